package logs

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb"
)

// flushBatchBytes is how much one store batch of posting chunks buffers before it is written.
const flushBatchBytes = 32 << 20

// recordBatchBytes is how much one store batch of log records buffers before it is written.
// Records are most of what a rebuild writes (1.5 GB for a million blocks); batches of 32 MB, as
// for posting chunks, raised a rebuild's peak memory by 180 MB and made it no faster.
const recordBatchBytes = 4 << 20

// writer collects the posting entries of consecutive blocks in memory and appends them to the
// store's lists in one flush; the log records of the blocks go to the store as they are added,
// in batches of recordBatchBytes (docs/format/logindex.md, "Write order"). Blocks must be added
// in increasing order. It is used by one goroutine at a time; close releases it.
type writer struct {
	store   Store
	pending map[string][]uint64 // list key → entries to append, increasing
	entries int                 // total entries in pending
	next    uint64              // the block after the last one added
	head    common.Hash         // hash of block next-1
	checks  []checkpoint        // checkpoints among the added blocks
	records ethdb.Batch         // log records not yet written
	record  []byte              // scratch log record
	key     []byte              // scratch list key
	event   []byte              // scratch address ‖ topic
}

type checkpoint struct {
	number uint64
	hash   common.Hash
}

func newWriter(store Store) *writer {
	return &writer{store: store, pending: make(map[string][]uint64), records: store.NewBatch()}
}

// close releases the writer's batch; what was not flushed is dropped.
func (w *writer) close() { w.records.Close() }

// dropRecords deletes every log record at or above block from, before any record the writer
// writes: records that a crash or a failed update left above the indexed blocks, where a block
// added now may have no logs and so would not overwrite them.
func (w *writer) dropRecords(from uint64) error {
	return w.records.DeleteRange(logKey(from), logKeysEnd)
}

// add collects the entries of block number, whose hash and time are hash and time, whose logs,
// one slice per transaction, are logs and whose transaction hashes are txHashes (nil will do
// for a block without logs), and adds the block's log record to the records to write. Only
// Address, Topics and Data of the logs are read.
func (w *writer) add(number uint64, hash common.Hash, time uint64, logs [][]*types.Log, txHashes []common.Hash) error {
	if hasLogs(logs) {
		rec, err := appendLogRecord(w.record[:0], hash, time, logs, txHashes)
		if err != nil {
			return fmt.Errorf("log record of block %d: %w", number, err)
		}
		w.record = rec
		if err := w.records.Put(logKey(number), rec); err != nil {
			return err
		}
		if w.records.ValueSize() >= recordBatchBytes {
			if err := w.writeRecords(); err != nil {
				return err
			}
		}
	}
	for _, txLogs := range logs {
		for _, l := range txLogs {
			w.addKey(number, kindAny, nil)
			w.addKey(number, kindAddress, l.Address[:])
			for i, t := range l.Topics[:min(len(l.Topics), MaxTopics)] {
				w.addKey(number, kindTopic+byte(i), t[:])
			}
			if len(l.Topics) > 0 {
				w.event = append(append(w.event[:0], l.Address[:]...), l.Topics[0][:]...)
				w.addKey(number, kindEvent, w.event)
			}
		}
	}
	if number%checkpointEvery == 0 {
		w.checks = append(w.checks, checkpoint{number, hash})
	}
	w.next, w.head = number+1, hash
	return nil
}

// writeRecords writes the log records collected so far.
func (w *writer) writeRecords() error {
	if err := w.records.Write(); err != nil {
		return fmt.Errorf("write log index: %w", err)
	}
	w.records.Reset()
	return nil
}

func (w *writer) addKey(number uint64, kind byte, value []byte) {
	w.key = append(append(append(w.key[:0], postingsPrefix), kind), value...)
	list, ok := w.pending[string(w.key)]
	if ok && list[len(list)-1] == number {
		return // the block is listed already
	}
	w.pending[string(w.key)] = append(list, number)
	w.entries++
}

// flush writes the log records not written yet, appends the posting entries collected to the
// store, then writes the checkpoints and a meta record naming the last block added, and
// returns that record. The writer is empty after.
func (w *writer) flush() (meta, error) {
	if err := w.writeRecords(); err != nil {
		return meta{}, err
	}
	keys := make([]string, 0, len(w.pending))
	for k := range w.pending {
		keys = append(keys, k)
	}
	slices.Sort(keys) // neighbouring keys, neighbouring reads
	batch := w.store.NewBatch()
	defer batch.Close()
	var buf []byte
	for _, k := range keys {
		var err error
		if buf, err = w.appendList(batch, []byte(k), w.pending[k], buf); err != nil {
			return meta{}, err
		}
		if batch.ValueSize() >= flushBatchBytes {
			if err := batch.Write(); err != nil {
				return meta{}, fmt.Errorf("write log index: %w", err)
			}
			batch.Reset()
		}
	}
	for _, c := range w.checks {
		if err := batch.Put(checkpointKey(c.number), c.hash[:]); err != nil {
			return meta{}, err
		}
	}
	m := meta{next: w.next, head: w.head}
	if err := batch.Put([]byte(metaKey), encodeMeta(m)); err != nil {
		return meta{}, err
	}
	if err := batch.Write(); err != nil {
		return meta{}, fmt.Errorf("write log index: %w", err)
	}
	clear(w.pending)
	w.entries, w.checks = 0, w.checks[:0]
	return m, nil
}

// appendList appends add to the posting list with key prefix list. The list's newest entries
// are in its open chunk; if any is at or above add[0] (left by a rollback or a crash), every
// entry from add[0] on is dropped first. buf is scratch space, returned for reuse.
func (w *writer) appendList(batch ethdb.Batch, list []byte, add []uint64, buf []byte) ([]byte, error) {
	openKey := chunkKey(list, openChunk)
	val, err := get(w.store, openKey)
	if err != nil {
		return buf, err
	}
	var entries []uint64
	if val != nil {
		if entries, err = decodeChunk(nil, val); err != nil {
			return buf, fmt.Errorf("posting list %x: %w", list, err)
		}
		if entries[len(entries)-1] >= add[0] {
			if entries, err = w.truncate(batch, list, add[0]); err != nil {
				return buf, err
			}
		}
	}
	entries = append(entries, add...)
	for len(entries) > chunkEntries {
		buf = appendChunk(buf[:0], entries[:chunkEntries])
		if err := batch.Put(chunkKey(list, entries[chunkEntries-1]), buf); err != nil {
			return buf, err
		}
		entries = entries[chunkEntries:]
	}
	buf = appendChunk(buf[:0], entries)
	return buf, batch.Put(openKey, buf)
}

// truncate deletes every chunk of list that holds an entry at or above from and returns the
// entries below from that those chunks held, the new start of the open chunk.
func (w *writer) truncate(batch ethdb.Batch, list []byte, from uint64) ([]uint64, error) {
	it := w.store.NewIterator(list, binary.BigEndian.AppendUint64(nil, from))
	defer it.Release()
	var kept []uint64
	for first := true; it.Next(); first = false {
		if first {
			entries, err := decodeChunk(nil, it.Value())
			if err != nil {
				return nil, fmt.Errorf("posting list %x: %w", list, err)
			}
			kept = entries[:searchFrom(entries, 0, len(entries), from)]
		}
		if err := batch.Delete(slices.Clone(it.Key())); err != nil {
			return nil, err
		}
	}
	return kept, it.Error()
}

// get returns the value under key in store, or nil when there is none. ethdb reports a missing
// key as an error of each store's own type, so a failed Get is confirmed with Has.
func get(store Store, key []byte) ([]byte, error) {
	val, err := store.Get(key)
	if err == nil {
		return val, nil
	}
	if ok, herr := store.Has(key); herr == nil && !ok {
		return nil, nil
	}
	return nil, fmt.Errorf("read log index: %w", err)
}
