// Package kvstore opens the chain database: an ethdb.KeyValueStore over a Pebble database, with
// go-ethereum's Pebble options (ethdb/pebble.New) but compactions on all the CPUs but one.
//
// Why it exists. go-ethereum's opener lets Pebble run as many compactions at once as there are
// CPUs (MaxConcurrentCompactions: runtime.NumCPU) and gives no way to change it. On a node with
// two cores, the flush that a block's write starts (a full memtable) then takes both cores at
// the block boundary, where the sequencer builds the next block's first flashblock: at 5,000 mix
// transactions a second the interval's p99 was 468 ms with go-ethereum's opener and 322–374 ms
// with one compaction at a time, Pebble's own default (docs/benchmarks.md, "The block boundary
// under load, session 10"). The compactions cost the same CPU; they no longer take it all at
// once. The store allows one compaction fewer than there are CPUs, at least one: one on two
// cores, as measured, and on a larger machine nearly go-ethereum's, so that catching up or a
// bulk import there is not held to one compaction (not measured beyond two cores).
//
// After LowerBackgroundPriority (cmd/flashrpc calls it), the flushes and compactions also run on
// threads of lower priority, each with a Go P of its own while it runs, so that the node's own
// work gets the cores first (background.go).
//
// Everything else is go-ethereum's, so that a datadir written by either opener opens with the
// other (and go-ethereum's tools read it): the same Pebble options (format major version left to
// the store, the levels and their bloom filters, the cache, memtable size and count, L0
// thresholds, WAL syncing, file handles, seek compactions off) and the same behaviour for what
// ethdb.KeyValueStore promises (store.go, batch.go, iterator.go): writes do not fsync
// (SyncKeyValue does), Get of a missing key returns pebble.ErrNotFound (rawdb's readers treat any
// error as absent), iterators' keys and values are Pebble's own slices, valid until the next
// move. It differs where go-ethereum's would panic or mis-use memory: an iterator of a closed
// store is empty and reports pebble.ErrClosed, Stat, Compact and SyncKeyValue of a closed
// store return it, and an iterator's lower bound never writes into the caller's prefix.
//
// It keeps none of go-ethereum's metrics (its meters, gauges and their goroutine) nor its
// write-stall warning; flashrpc's metrics do not read them.
//
// Concurrency: a *Store is safe for concurrent use; Close waits for calls under way (Get, Has,
// the writes, a batch's Write, SyncKeyValue, Compact) and refuses later ones with
// pebble.ErrClosed. Iterators and batches are not safe for concurrent use, and iterators still
// open at Close are the caller's to release first (internal/chain's close guard waits for them).
//
// Imports: go-ethereum's ethdb and Pebble only.
package kvstore
