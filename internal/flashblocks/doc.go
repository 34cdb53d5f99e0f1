// Package flashblocks speaks the pre-confirmation wire formats, both FlashblocksPayloadV1 JSON
// (reference/flashblocks.md §1): one JSON object per pre-confirmation, with the block's fixed
// header fields ("base") at index 0, the transactions each pre-confirmation adds and the
// cumulative roots, gas used and partial block hash ("diff"), and free-form "metadata" whose
// block_number consumers read. Two formats ([Format]) share that shape: Base's, whose diff
// commits to the partial block (state root, block hash), and OP's subblocks
// (ethereum-optimism/specs, specs/protocol/subblocks.md), whose diff has the state root, block
// hash and withdrawals root zero, may carry the cumulative DA footprint (blob_gas_used) and,
// from Lagoon on, a post-execution transaction (post_exec_tx, type 0x7d, [DecodePostExecTx]),
// and whose metadata carries receipts and balances. The decoder reads both without a setting;
// [Diff.HasRoots] tells a consumer whether a flashblock commits to its block.
//
// It owns the message types ([Payload], [Base], [Diff], [Metadata]), their encodings (JSON
// text, or brotli-compressed JSON in binary frames as Base's public streams send it) and the
// decoder that accepts both ([Decode]), the conversion of a partial block into a payload of
// either format ([FromBlock], [Subblock]), the WebSocket server that publishes payloads to any number of consumers
// ([Publisher]) and a WebSocket consumer ([Client]). The dev sequencer's pre-confirmations are
// published through it; a replica (internal/follow) reads a remote feed through the same
// decoder and client, and publishes each verified message again as it came ([DecodeText],
// [Publisher.PublishText]).
//
// Concurrency: a [Publisher] is safe for concurrent use. [Publisher.Publish] never waits for a
// consumer: each consumer has a bounded queue, and one that falls further behind is
// disconnected with a logged reason. A [Client] is used by one goroutine.
//
// Imports: go-ethereum, github.com/coder/websocket and github.com/andybalholm/brotli; nothing
// from flashrpc, so every producer and consumer of a feed can use it: the node publishes the
// dev sequencer's pre-confirmations (cmd/flashrpc) and the replica reads its upstream's feed
// (internal/follow); internal/networks names each network's format with [Format].
package flashblocks
