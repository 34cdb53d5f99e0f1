// Package simulate runs eth_simulateV1 ([Run]): a chain of simulated blocks on top of a base
// block, each with its block and state overrides and its calls, with go-ethereum v1.17.10's
// semantics (internal/ethapi's simulator, which cannot be imported and is re-implemented
// here). It owns everything that is eth_simulateV1's alone:
//
//   - the request: [Opts] and [BlockCalls], decoded by a reflection-free decoder for the
//     common shape (fastdecode.go) and by encoding/json otherwise, and the limits ([Limits],
//     [CheckOpts]);
//   - the simulator: the chain of headers (simulate.go), each block's system calls, calls and
//     post-block processing (block.go, system_calls.go, opstack.go for an OP Stack chain's
//     extraData, DA footprint and withdrawals root), and the transfer logs of traceTransfers
//     (logtracer.go);
//   - block assembly without repeated encoding and hashing (assemble.go; Keccak-256 from a
//     pooled state, keccak.go): an EIP-1559 call's encoding written by hand into a
//     per-block arena (txrlp.go), the transaction, receipt and withdrawal roots computed
//     from their sorted keys without a StackTrie (listroot.go), an EIP-1559 call's
//     types.Transaction made only when the result carries it (returnFullTransactions,
//     [Block.Transactions]), and the FastLZ size of the OP Stack DA footprint without a
//     fresh table per transaction (fastlz.go);
//   - prepared bases ([Base], base.go): the first block's system calls run once per base
//     state and kept in a private memory diff layer over the base (layer.go), on which each
//     request's account trie and storage tries share the decoded nodes of all requests and
//     copy only the paths they change (accounttrie.go, storagetrie.go, mpt.go, mptdelete.go:
//     go-ethereum's encoding, hashing and deletion, and go-ethereum's trie for whatever else
//     a state asks of them);
//   - the result ([Block], [CallResult]) and the request-level errors ([Error], by
//     [ErrorKind]).
//
// # Imports
//
// simulate imports go-ethereum (core, core/vm, core/state, core/types, consensus, params,
// rlp, trie, triedb) and, of flashrpc, internal/exec and internal/oprollup (the vm.Config of
// every EVM). From exec it takes what a simulated call shares with eth_call: the environment
// ([exec.Env]), the transaction arguments and their defaults ([exec.Args]), state and block
// overrides, the precompile set, warm precompiles ([exec.WithWarmPrecompiles]), the message
// runner ([exec.RunMessage]), the pre-block system calls ([exec.PreExecution]), the
// request decoding helper ([exec.DecodeObject]) and the per-call error types
// ([exec.RevertError], [exec.VMError]). exec does not import simulate.
//
// The caller resolves the block. For a sealed base it passes [Env] with the base header
// and a private copy of its state; for `pending` on the pre-confirmed endpoint Header is the
// sealed head, State the pre-confirmed state and Pending the partial header of the block in
// progress. Or it keeps a [Base] per base state and passes [Base.Env].
//
// # Concurrency
//
// [Run] runs on the goroutine that calls it and mutates the state it is given; one state
// must not be shared by two concurrent calls. The state it runs on is made
// single-threaded, so that each block's state root hashes the storage tries one after
// another on the calling goroutine, not on one goroutine per account (concurrent requests keep the cores busy
// instead). A request stops when its context ends or Env.EVMTimeout passes: one timer
// cancels the running block's EVM. How many run at once is the caller's to bound
// ([exec.Limiter]). A [Base] is safe for concurrent use: each request gets its own StateDB,
// opened on the memory layer or copied under the Base's mutex.
//
// # Errors and JSON-RPC codes
//
// A failing call does not fail the request: its [CallResult] carries a *exec.RevertError
// or a *exec.VMError, which the API writes as the call's error object (code 3 with the
// revert data, -32015 otherwise). Request-level failures are an *[Error], whose Kind has its
// own code, or one of exec's errors (*exec.OverrideError, *exec.ArgsError,
// *exec.DecodeError) or the context's, mapped as for eth_call (see package exec):
//
//	InvalidParams -32602           NonceTooLow -38010     SenderNotEOA -38024
//	ClientLimitExceeded -38026     NonceTooHigh -38011    MaxInitCodeSizeExceeded -38025
//	BlockNumberInvalid -38020      BaseFeeTooLow -38012   Internal -32603
//	BlockTimestampInvalid -38021   IntrinsicGas -38013
//	BlockGasLimitReached -38015    InsufficientFunds -38014
//
// Messages are err.Error(); they are go-ethereum's texts. The API should call [CheckOpts]
// before resolving the block tag (geth reports "empty input" and the limits before "header
// not found"). The JSON of the result is written by internal/api/execute (simulate_json.go);
// the tests here hold a reference encoding transcribed from go-ethereum (ref_test.go) to
// compare whole results with go-ethereum's node and the execution-apis fixtures.
package simulate
