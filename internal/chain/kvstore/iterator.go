package kvstore

import (
	"github.com/cockroachdb/pebble"
	"github.com/ethereum/go-ethereum/ethdb"
)

// NewIterator implements ethdb.Iteratee: the keys with prefix, in byte order, from
// prefix+start on. Its Key and Value are Pebble's slices, as in go-ethereum: the caller does
// not modify them, and they change with the next Next. An iterator of a closed store is empty
// and its Error is pebble.ErrClosed. The iterator is not safe for concurrent use; the caller
// releases it before the store is closed.
func (s *Store) NewIterator(prefix []byte, start []byte) ethdb.Iterator {
	lower := make([]byte, 0, len(prefix)+len(start)) // not append(prefix, …): prefix may be shared
	lower = append(append(lower, prefix...), start...)
	s.closeMu.RLock()
	defer s.closeMu.RUnlock()
	if s.closed {
		return &iterator{err: pebble.ErrClosed}
	}
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upperBound(prefix)})
	if err != nil {
		return &iterator{err: err}
	}
	it.First()
	return &iterator{it: it, atFirst: true}
}

// upperBound returns the smallest key above every key with prefix, or nil (no bound) when the
// prefix is empty or all 0xff.
func upperBound(prefix []byte) []byte {
	for i := len(prefix) - 1; i >= 0; i-- {
		if prefix[i] != 0xff {
			limit := append([]byte{}, prefix[:i+1]...)
			limit[i]++
			return limit
		}
	}
	return nil
}

// iterator is a Pebble iterator as an ethdb.Iterator, whose first Next stays on the first key.
type iterator struct {
	it       *pebble.Iterator // nil when err is the reason it is empty
	err      error
	atFirst  bool // positioned on the first key, which the first Next reports
	released bool
}

// Next implements ethdb.Iterator.
func (i *iterator) Next() bool {
	if i.it == nil || i.released {
		return false
	}
	if i.atFirst {
		i.atFirst = false
		return i.it.Valid()
	}
	return i.it.Next()
}

// Error implements ethdb.Iterator.
func (i *iterator) Error() error {
	if i.it == nil || i.released {
		return i.err
	}
	return i.it.Error()
}

// Key implements ethdb.Iterator.
func (i *iterator) Key() []byte {
	if i.it == nil || i.released || i.atFirst || !i.it.Valid() {
		return nil
	}
	return i.it.Key()
}

// Value implements ethdb.Iterator.
func (i *iterator) Value() []byte {
	if i.it == nil || i.released || i.atFirst || !i.it.Valid() {
		return nil
	}
	return i.it.Value()
}

// Release implements ethdb.Iterator; it may be called more than once.
func (i *iterator) Release() {
	if i.it != nil && !i.released {
		i.err = i.it.Close()
		i.released = true
	}
}
