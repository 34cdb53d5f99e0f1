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
// Concurrency: readers take the current snapshot with one atomic load (Current) and never block
// the writer; a request that holds a snapshot sees one pre-confirmation index from start to end.
// Writers are serialised by an internal mutex. Listeners registered with OnSnapshot run on the
// writer's goroutine after each publication and must not block.
//
// Imports: chain and go-ethereum.
package preconf
