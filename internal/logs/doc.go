// Package logs answers eth_getLogs filters: the filter criteria as clients send them (address
// string or list, topics by position with null and OR-lists, a block range or a block hash), the
// matching rules go-ethereum applies to single logs and block blooms, and the log index that
// names the blocks a filter can match without reading the others.
//
// # The log index
//
// For every address, every (topic position, topic) and every (address, topic 0) pair, the
// index keeps the increasing list of block numbers whose logs hold it: inverted lists of block
// numbers, as Erigon keeps them, delta-encoded in chunks of 1,024 in the chain's database
// (docs/format/logindex.md; format.go, writer.go, reader.go). A filter becomes a combination
// of those lists (query.go): the union of a place's alternatives, the intersection across
// places, iterated through the Postings interface (postings.go: Next, Seek, At, Err;
// Intersect, Merge, Bound, EmptyPostings) one chunk at a time, so a query's memory does not grow
// with its range and its cost grows with the blocks the lists name, not with the range. The
// index names candidate blocks and keeps a log record of each block with logs (logrecord.go):
// its hash and time, its transactions' indexes and hashes and its logs, everything eth_getLogs
// returns. The caller reads each candidate's record (Search.BlockLogs: one read, nothing of the
// chain) and keeps the logs that Criteria.Match accepts, so results are exactly an unindexed
// scan's.
//
// Index (index.go) follows the chain on a goroutine of its own: it indexes every sealed block
// in order, notices rewinds and reorganisations by block hash and rolls back to a checkpoint,
// and rebuilds the index, logging progress, when it is missing, of another format version or
// damaged. Search reports how far the index covers a range; the caller scans the rest, so a
// query never misses a sealed block while the index catches up.
//
// Concurrency: Criteria and Postings values belong to one goroutine, as does a Search but for
// BlockLogs, which several goroutines may call at once. Index is safe for concurrent use: one
// goroutine writes, queries read the store and an atomically published head. Imports:
// go-ethereum only (core/types, and the ethdb interfaces for the store).
package logs
