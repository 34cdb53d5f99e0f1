package kvstore

import (
	"fmt"
	"sync"

	"github.com/cockroachdb/pebble"
	"github.com/ethereum/go-ethereum/ethdb"
)

// A Store is the chain database: an ethdb.KeyValueStore over a Pebble database. It is safe
// for concurrent use.
type Store struct {
	db   *pebble.DB
	path string

	// closeMu is held for reading by every call that reaches db and for writing by Close, so
	// that no call runs on a closed Pebble (which panics).
	closeMu sync.RWMutex
	closed  bool // guarded by closeMu

	stalls stallClock // Pebble's write stalls (stalls.go)
}

var _ ethdb.KeyValueStore = (*Store)(nil)

// writeOptions makes writes return once they are in the memtable and the WAL's buffer, as in
// go-ethereum; durability comes from SyncKeyValue.
var writeOptions = pebble.NoSync

// Open opens (or creates, unless readOnly) the Pebble database in dir with a cache of cacheMB
// megabytes and up to handles open files (options.go), its flushes and compactions at a lower
// priority after LowerBackgroundPriority (background.go).
func Open(dir string, cacheMB, handles int, readOnly bool) (*Store, error) {
	s := &Store{path: dir}
	opt := options(cacheMB, handles, readOnly, background.Load(), &s.stalls)
	// The database takes its own reference to the cache; the one NewCache made is dropped, so
	// that the cache's memory (C memory with cgo) is freed when the database closes.
	defer opt.Cache.Unref()
	db, err := pebble.Open(dir, opt)
	if err != nil {
		return nil, fmt.Errorf("open pebble in %s: %w", dir, err)
	}
	s.db = db
	return s, nil
}

// WriteStalls returns the write stalls since the store was opened (stalls.go).
func (s *Store) WriteStalls() WriteStalls { return s.stalls.read() }

// Path returns the directory of the database.
func (s *Store) Path() string { return s.path }

// use runs f unless the store is closed, in which case it returns pebble.ErrClosed.
func (s *Store) use(f func() error) error {
	s.closeMu.RLock()
	defer s.closeMu.RUnlock()
	if s.closed {
		return pebble.ErrClosed
	}
	return f()
}

// Has implements ethdb.KeyValueReader.
func (s *Store) Has(key []byte) (has bool, err error) {
	err = s.use(func() error {
		_, closer, err := s.db.Get(key)
		if err == pebble.ErrNotFound {
			return nil
		}
		if err != nil {
			return err
		}
		has = true
		return closer.Close()
	})
	return has, err
}

// Get implements ethdb.KeyValueReader. The value is a copy the caller owns; a missing key is
// pebble.ErrNotFound, as in go-ethereum.
func (s *Store) Get(key []byte) (value []byte, err error) {
	err = s.use(func() error {
		v, closer, err := s.db.Get(key)
		if err != nil {
			return err
		}
		value = append([]byte{}, v...)
		return closer.Close()
	})
	if err != nil {
		return nil, err
	}
	return value, nil
}

// Put implements ethdb.KeyValueWriter.
func (s *Store) Put(key, value []byte) error {
	return s.use(func() error { return s.db.Set(key, value, writeOptions) })
}

// Delete implements ethdb.KeyValueWriter.
func (s *Store) Delete(key []byte) error {
	return s.use(func() error { return s.db.Delete(key, writeOptions) })
}

// DeleteRange implements ethdb.KeyValueRangeDeleter. A nil end is ethdb.MaximumKey, which every
// key flashrpc and go-ethereum write sorts below, as in go-ethereum (Pebble has no open end).
func (s *Store) DeleteRange(start, end []byte) error {
	if end == nil {
		end = ethdb.MaximumKey
	}
	return s.use(func() error { return s.db.DeleteRange(start, end, writeOptions) })
}

// Stat implements ethdb.KeyValueStater: Pebble's metrics, as text.
func (s *Store) Stat() (stat string, err error) {
	err = s.use(func() error {
		stat = s.db.Metrics().String()
		return nil
	})
	return stat, err
}

// Compact implements ethdb.Compacter; a nil limit is ethdb.MaximumKey (DeleteRange).
func (s *Store) Compact(start, limit []byte) error {
	if limit == nil {
		limit = ethdb.MaximumKey
	}
	return s.use(func() error { return s.db.Compact(start, limit, true) })
}

// SyncKeyValue implements ethdb.KeyValueSyncer: it makes every write before it durable, by
// a synced write of an empty log record (nothing is added to the keys), as in go-ethereum.
func (s *Store) SyncKeyValue() error {
	return s.use(func() error {
		b := s.db.NewBatch()
		defer b.Close()
		if err := b.LogData(nil, nil); err != nil {
			return err
		}
		return s.db.Apply(b, pebble.Sync)
	})
}

// NewBatch implements ethdb.Batcher.
func (s *Store) NewBatch() ethdb.Batch {
	return &batch{b: s.db.NewBatch(), s: s}
}

// NewBatchWithSize implements ethdb.Batcher: the batch's buffer starts at size bytes.
func (s *Store) NewBatchWithSize(size int) ethdb.Batch {
	return &batch{b: s.db.NewBatchWithSize(size), s: s}
}

// Close waits for the calls under way, then closes Pebble and reports what it found left open
// (iterators not released: their memtables). A second Close returns nil.
func (s *Store) Close() error {
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	return s.db.Close()
}
