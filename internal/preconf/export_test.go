package preconf

import "github.com/ethereum/go-ethereum/core/types"

// SetWriteHook makes fn run on the writing goroutine before each chain write SealAsync hands
// over (a test can hold the write there, or fail it with an error); the returned function
// removes it.
func SetWriteHook(fn func(*types.Block) error) func() {
	testHookBeforeWrite = fn
	return func() { testHookBeforeWrite = nil }
}
