// Package preconf owns the block in progress: the pre-confirmed part of the next block, built one
// pre-confirmation (flashblock) at a time on top of the sealed head.
//
// A writer (the dev sequencer today, a follower of a remote flashblocks feed later) opens a block
// with its fixed attributes (index 0), then adds transactions in batches: Begin, Add for each
// transaction, Commit. Every Commit publishes an immutable Snapshot: the partial block as if it
// were sealed now (cumulative gas used, state root, receipts root, bloom, requests hash, hence a
// block hash that changes with every pre-confirmation), its receipts and logs, and the state after
// the last pre-confirmed transaction. Seal assembles the final block from everything committed;
// its hash equals the last snapshot's.
//
// OP Stack blocks (opstack.go): the attributes carry the transactions the block opens with (the
// L1-attributes deposit and user deposits), applied in pre-confirmation 0 and kept by every
// seal; a Jovian block's data-availability footprint is budgeted like its gas; and each
// snapshot's receipts get the L1 fee fields op-geth derives for sealed receipts, so a
// pre-confirmed receipt equals its sealed one.
//
// Retraction: a block may be sealed with other transactions than were pre-confirmed (SealWith;
// later, a sealed block from a remote sequencer). The block is then built again on the parent's
// state, the pre-confirmed state is discarded, and the difference is published to OnRetract
// listeners: the pre-confirmed logs the sealed block does not carry (compared by transaction,
// position and content, not only by transaction hash), the sealed logs that were not
// pre-confirmed, and the dropped transactions.
//
// Concurrency: readers take the current snapshot with one atomic load (Current) and never block
// the writer; a request that holds a snapshot sees one pre-confirmation index from start to end.
// Writers are serialised by an internal mutex. Listeners registered with OnSnapshot and
// OnRetract run on the writer's goroutine after each publication and must not block.
//
// Imports: chain, oprollup and go-ethereum.
package preconf
