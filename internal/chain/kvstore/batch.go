package kvstore

import (
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble"
	"github.com/ethereum/go-ethereum/ethdb"
)

// batch is a Pebble batch as an ethdb.Batch. It is not safe for concurrent use.
type batch struct {
	b *pebble.Batch
	s *Store
	// size is ValueSize: the bytes of keys and values queued, counted as go-ethereum counts
	// them (a range deletion by its two bounds), which callers compare with
	// ethdb.IdealBatchSize to decide when to write.
	size int
}

// Put implements ethdb.KeyValueWriter.
func (b *batch) Put(key, value []byte) error {
	if err := b.b.Set(key, value, nil); err != nil {
		return err
	}
	b.size += len(key) + len(value)
	return nil
}

// Delete implements ethdb.KeyValueWriter.
func (b *batch) Delete(key []byte) error {
	if err := b.b.Delete(key, nil); err != nil {
		return err
	}
	b.size += len(key)
	return nil
}

// DeleteRange implements ethdb.KeyValueRangeDeleter; a nil end is ethdb.MaximumKey.
func (b *batch) DeleteRange(start, end []byte) error {
	if end == nil {
		end = ethdb.MaximumKey
	}
	if err := b.b.DeleteRange(start, end, nil); err != nil {
		return err
	}
	b.size += len(start) + len(end)
	return nil
}

// ValueSize implements ethdb.Batch.
func (b *batch) ValueSize() int { return b.size }

// Write implements ethdb.Batch: it commits the batch without fsync (Store.SyncKeyValue).
func (b *batch) Write() error {
	return b.s.use(func() error { return b.b.Commit(writeOptions) })
}

// Reset implements ethdb.Batch.
func (b *batch) Reset() {
	b.b.Reset()
	b.size = 0
}

// Replay implements ethdb.Batch: it gives w the batch's writes in order. The slices w receives
// are the batch's own, valid until it is reset; w copies what it keeps. A range deletion needs
// a w that implements ethdb.KeyValueRangeDeleter.
func (b *batch) Replay(w ethdb.KeyValueWriter) error {
	r := b.b.Reader()
	for {
		kind, k, v, ok, err := r.Next()
		if !ok || err != nil {
			return err
		}
		switch kind {
		case pebble.InternalKeyKindSet:
			err = w.Put(k, v)
		case pebble.InternalKeyKindDelete:
			err = w.Delete(k)
		case pebble.InternalKeyKindRangeDelete: // k is the start, v the end
			rd, ok := w.(ethdb.KeyValueRangeDeleter)
			if !ok {
				return errors.New("replay batch: the writer cannot delete a range")
			}
			err = rd.DeleteRange(k, v)
		default:
			return fmt.Errorf("replay batch: unexpected record kind %v", kind)
		}
		if err != nil {
			return err
		}
	}
}

// Close implements ethdb.Batch: it returns the batch's memory to Pebble; the batch is not used
// after.
func (b *batch) Close() { b.b.Close() }
