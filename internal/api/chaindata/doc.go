// Package chaindata holds the read methods of an internal/api endpoint: blocks
// (blocks.go), headers and uncles (headers.go), transactions and receipts
// (transactions.go), account state (state.go, state_values.go) and its proofs (proof.go),
// raw consensus encodings (raw.go), fee suggestions and history (fees.go), the chain's
// rules and what the node keeps (chaininfo.go), the node's identity (info.go) and the
// nonce wallets send with (nonce.go).
//
// Each method answers from the request's view (internal/api/core) and with the pre-encoded
// JSON core keeps; internal/api registers them with what they read. Their errors are built
// in core's errors.go.
//
// Concurrency: an *API is safe for concurrent use.
//
// Imports: internal/api/core, internal/api/param, ethjson, exec, preconf, chain, rpc and
// go-ethereum.
package chaindata
