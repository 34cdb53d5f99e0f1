package preconf

import "github.com/ethereum/go-ethereum/core/types"

// SetWriteHook makes fn run on the writing goroutine before each chain write SealAsync hands
// over (a test can hold the write there, or fail it with an error); the returned function
// removes it.
func SetWriteHook(fn func(*types.Block) error) func() {
	testHookBeforeWrite = fn
	return func() { testHookBeforeWrite = nil }
}

// SetOpenCommittedHook makes fn run before the state an early seal committed is opened for
// its pre-confirmation's readers, its error taken for the opening's; the returned function
// removes it.
func SetOpenCommittedHook(fn func(*types.Block) error) func() {
	testHookOpenCommitted = fn
	return func() { testHookOpenCommitted = nil }
}
