// Package exec runs EVM work on a (header, state) pair: eth_call ([Call]) and
// eth_estimateGas ([EstimateGas]), with go-ethereum's transaction-argument defaulting
// ([Args]), state overrides ([StateOverride]) and block overrides ([BlockOverrides]). The
// semantics are those of go-ethereum v1.17.10's internal/ethapi (DoCall, DoEstimateGas, the
// overrides), which cannot be imported and is re-implemented here; the gas search follows
// v1.17.10's eth/gasestimator step for step (estimate_search.go says why it is not
// imported). The go-ethereum library underneath is op-geth v1.101702.3 (go-ethereum 1.17.2
// with the OP Stack rules, through go.mod's replace): its EVM, state and system calls
// (system_calls.go) run the blocks, while the answers stay v1.17.10's where 1.17.2's own
// internal/ethapi differs (internal/exectest's opGethDivergences).
//
// It also computes access lists ([CreateAccessList], with go-ethereum's access-list tracer)
// and traces ([TraceTransaction], [TraceBlock], [TraceCall]): the tracers are go-ethereum's
// (eth/tracers/logger's struct logger and eth/tracers/native's, chosen through
// eth/tracers.DefaultDirectory); exec replays a block's earlier transactions for them on the
// block's own context and system calls ([BlockEnv], trace_block.go), as the block's execution
// ran them. Importing eth/tracers links internal/ethapi and go-ethereum's p2p packages into the
// binary (some 80 packages, 0.4 MB); nothing of them runs. JavaScript tracers (eth/tracers/js)
// are not linked.
//
// eth_simulateV1 is the sub-package internal/exec/simulate. exec exports what a simulated
// call shares with eth_call and nothing of the simulator: [Env], [Args] with its defaults
// ([Args.CallDefaults], [Args.ToMessage], [Args.TxData], [Args.Sender]), the overrides
// ([StateOverride.Apply], [BlockOverrides.ApplyHeader]), [Precompiles],
// [WithWarmPrecompiles], [RunMessage], [PreExecution], [DecodeObject] and the error types.
//
// Differences from geth: unknown or duplicate keys in state and block
// overrides are rejected for every method (geth only does so in eth_simulateV1), and "data"
// and "input" that differ are rejected (geth silently uses "input" in calls).
//
// # Imports and ownership
//
// exec imports go-ethereum (core, core/vm, core/state, params, eth/tracers,
// accounts/abi for revert reasons) and, of flashrpc, only internal/oprollup for the vm.Config
// every EVM runs with (Azul's precompile overrides, so that calls execute as blocks do). It
// does not import eth/gasestimator (estimate_search.go). The caller resolves the block:
// it passes a header, a chain for BLOCKHASH and the consensus engine, and a private copy of
// the state, which exec mutates. For `pending` on the pre-confirmed endpoint the header is
// the partial header of the block in progress and the state the pre-confirmed one.
//
// # Concurrency
//
// Every function runs on the goroutine that calls it and is safe for concurrent use with
// different states; one state must not be shared by two concurrent calls. Calls and
// estimates stop when their context ends or Env.EVMTimeout passes. How many run at once is
// the caller's to bound: a [Limiter] admits a fixed number and a short queue, and refuses the
// rest with a [BusyError]. The only shared state is the per-process cache of precompile
// address sets behind [WithWarmPrecompiles] (a sync.Map, bounded).
//
// # Errors and JSON-RPC codes
//
// exec returns domain errors only; the API layer maps them (STYLE.md rule 4). The mapping
// that reproduces go-ethereum (with decisions.md's estimateGas revert rule):
//
//	error                          eth_call                 eth_estimateGas          eth_simulateV1
//	*DecodeError (param decoding)  -32602 "invalid argument <i>: <msg>" for all methods
//	*RevertError                   3, data = hex(Data)      -32000, data = hex(Data)  (per call, in the result)
//	*VMError                       -32000                   -32000                   (per call, in the result)
//	*TxError                       -32000                   -32000                   (inside *simulate.Error)
//	*TimeoutError                  -32000                   -32000                   (inside *simulate.Error)
//	*AllowanceError                -                        -32000                   -
//	*ArgsError, *OverrideError     -32000                   -32000                   -32000
//	*BusyError ([Limiter])         -32005 for all methods
//	context errors                 -32002 when the request deadline ran out, else -32000
//	anything else (state reads)    -32000
//
// Messages are err.Error(); they are go-ethereum's texts. eth_simulateV1's own request-level
// errors and their codes are in package simulate.
package exec
