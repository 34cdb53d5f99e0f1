// Package core is what the concerns of one internal/api endpoint share, in one place so that
// none of them duplicates it:
//
//   - Core (core.go): the chain, the block in progress, the pool, the EVM limiter and the
//     upstream of one endpoint, built once by api.New and embedded by each concern's API.
//   - The request's view (view.go): one atomic load of preconf's View per request, and the
//     state a new transaction is validated against (PoolView).
//   - Block resolution and state reads against a view (resolve.go), with the cached state of
//     the sealed head (headstate.go).
//   - The next block as forecast (forecast.go): `pending` on a view that shows no block in
//     progress (the standard endpoint's, serve mode's), for execution and the pending block.
//   - The pre-encoded blocks (blockjson.go: the sealed head and the block in progress,
//     encoded once per change), transactions and receipts (txjson.go), which the read
//     methods and the events both answer with.
//   - The tip suggestion (tip.go) of the fee methods and eth_createAccessList.
//   - The fork seam (reads.go, fork.go): what each method declares it reads (Reads), the
//     method table that registers every method with its declaration (Table), the Upstream
//     that routes methods by it, and the prefetch and discovery passes executions and state
//     reads run against it.
//   - Every JSON-RPC error the methods build, and every mapping of a domain error (chain,
//     exec, simulate, the log search) to a code (errors.go), one function or sentinel per
//     kind, with a table test per function (errors_test.go). The generic invalid-argument
//     errors are internal/api/param's.
//
// Concurrency: a Core is safe for concurrent use; its exported fields are set by New and
// never modified, the block cache swaps immutable entries atomically, and the head state's
// reads are serialised by its lock.
//
// Imports: internal/api/param, rpc, ethjson, exec, exec/simulate, preconf, chain, txpool,
// logs and go-ethereum; nothing else of internal/api (the concerns import core).
package core
