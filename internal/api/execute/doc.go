// Package execute is the execution front of an internal/api endpoint: eth_call and
// eth_estimateGas (call.go), eth_createAccessList (accesslist.go), eth_simulateV1
// (simulate.go, its result's JSON in simulate_json.go, its prepared bases in simbase.go) and
// the debug_trace* methods (trace.go). The EVM work is internal/exec's and
// internal/exec/simulate's; this package resolves each request's block against its view,
// takes a slot of the node's EVM limiter, in fork mode fetches the upstream state the
// execution reads first (core.Core.Discover), and maps the outcome to JSON-RPC (core's
// errors.go).
//
// Concurrency: an *API is safe for concurrent use.
//
// Imports: internal/api/core, internal/api/param, exec, exec/simulate, ethjson, preconf,
// recent, rpc and go-ethereum.
package execute
