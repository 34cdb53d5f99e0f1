// Package remote reads state and history from an upstream JSON-RPC node: the fork mode's view
// of the chain it continues (flashrpc dev --fork-url), and the replicas' reads of the node
// they follow (internal/follow: blocks, heads, forwarded transactions).
//
//   - [Client] sends calls, alone or in JSON-RPC batches (split at Config.MaxBatch and sent
//     together), and retries transport errors, timeouts, HTTP 429 and 5xx and JSON-RPC
//     rate-limit errors with exponential backoff (anvil's --fork-retries and
//     --fork-retry-backoff). When it gives up the error is an [UpstreamError] naming the URL,
//     the method and the reason; a JSON-RPC error answer is an [RPCError]. It also reads the
//     upstream's blocks and headers, checked against their hashes and roots, a block's
//     receipts and its state's root node (blocks.go).
//   - [State] is the upstream's state at one pinned block: accounts (eth_getBalance,
//     eth_getTransactionCount and eth_getCode in one batch) and storage slots
//     (eth_getStorageAt), cached in memory and, unless --no-storage-caching, in a store the
//     caller hands in (a table of the chain database), so a restart does not ask again.
//     [Discovery] collects the reads one execution missed so that they are fetched together.
//   - [SubscribeHeads] subscribes to the upstream's new heads over its WebSocket
//     (eth_subscribe newHeads, heads.go).
//   - [History] answers and caches calls about the upstream's immutable past, and keeps the
//     headers BLOCKHASH needs below the fork block.
//
// Failures are never cached and never become values: a read that fails is an error, and the
// next read asks again. What is cached is documented with its keys in docs/format/fork.md.
//
// Concurrency: every type here is safe for concurrent use; concurrent reads of one key share
// one request.
//
// Imports: go-ethereum only (types, rlp, ethdb for the store interface, rpc for the
// WebSocket subscription).
package remote
