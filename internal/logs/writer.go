package logs

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb"
)

// flushBatchBytes is how much one store batch of an update buffers before it is written.
const flushBatchBytes = 32 << 20

// writer collects the posting entries of consecutive blocks in memory and appends them to the
// store's lists in one flush (docs/format/logindex.md, "Write order"). Blocks must be added
// in increasing order. It is used by one goroutine at a time.
type writer struct {
	store   Store
	pending map[string][]uint64 // list key → entries to append, increasing
	entries int                 // total entries in pending
	next    uint64              // the block after the last one added
	head    common.Hash         // hash of block next-1
	checks  []checkpoint        // checkpoints among the added blocks
	blocks  []blockInfo         // the added blocks, the first being block from
	from    uint64              // the first block added
	key     []byte              // scratch list key
	event   []byte              // scratch address ‖ topic
}

type checkpoint struct {
	number uint64
	hash   common.Hash
}

func newWriter(store Store) *writer {
	return &writer{store: store, pending: make(map[string][]uint64)}
}

// add collects the entries of block number, whose hash and time are hash and time and whose
// logs, one slice per transaction, are logs. Only addresses and topics are read.
func (w *writer) add(number uint64, hash common.Hash, time uint64, logs [][]*types.Log) {
	if len(w.blocks) == 0 {
		w.from = number
	}
	w.blocks = append(w.blocks, blockInfo{hash: hash, time: time})
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

// flush appends what was collected to the store, then writes the checkpoints and a meta
// record naming the last block added, and returns that record. The writer is empty after.
func (w *writer) flush() (meta, error) {
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
	if err := w.writeBlocks(batch); err != nil {
		return meta{}, err
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
	w.entries, w.checks, w.blocks = 0, w.checks[:0], w.blocks[:0]
	return m, nil
}

// writeBlocks writes the block records of the added blocks. A group that the first of them
// joins keeps the entries before it (dropping any at or after it, left by a rollback or a
// crash).
func (w *writer) writeBlocks(batch ethdb.Batch) error {
	blocks, n := w.blocks, w.from
	for len(blocks) > 0 {
		group, offset := n/blockGroup, int(n%blockGroup)
		var entries []blockInfo
		if offset > 0 {
			val, err := w.get(blocksKey(group))
			if err != nil {
				return err
			}
			if val != nil {
				if entries, err = decodeBlocks(nil, val); err != nil {
					return fmt.Errorf("block record %d: %w", group, err)
				}
			}
			if len(entries) < offset {
				return fmt.Errorf("%w: block record %d holds %d blocks, the next is block %d", ErrCorrupt, group, len(entries), n)
			}
			entries = entries[:offset]
		}
		take := min(len(blocks), blockGroup-offset)
		entries = append(entries, blocks[:take]...)
		if err := batch.Put(blocksKey(group), appendBlocks(nil, entries)); err != nil {
			return err
		}
		blocks, n = blocks[take:], n+uint64(take)
	}
	return nil
}

// appendList appends add to the posting list with key prefix list. The list's newest entries
// are in its open chunk; if any is at or above add[0] (left by a rollback or a crash), every
// entry from add[0] on is dropped first. buf is scratch space, returned for reuse.
func (w *writer) appendList(batch ethdb.Batch, list []byte, add []uint64, buf []byte) ([]byte, error) {
	openKey := chunkKey(list, openChunk)
	val, err := w.get(openKey)
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

// get returns the value under key, or nil when there is none. ethdb reports a missing key as
// an error of each store's own type, so a failed Get is confirmed with Has.
func (w *writer) get(key []byte) ([]byte, error) {
	val, err := w.store.Get(key)
	if err == nil {
		return val, nil
	}
	if ok, herr := w.store.Has(key); herr == nil && !ok {
		return nil, nil
	}
	return nil, fmt.Errorf("read log index: %w", err)
}
