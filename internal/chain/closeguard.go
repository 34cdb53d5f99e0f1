package chain

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/ethdb"
)

// Closing the database under readers. The store (kvstore) refuses every call and new
// iterators once it is closed, under a lock its Close takes, but not an iterator opened
// before: the caller releases those. An iterator still open when Pebble closes holds its
// version and memtables: Pebble's Close then reports "leaked iterators" or "leaked memtable
// reservation", and the iterator's Release afterwards panics inside Pebble ("send on closed
// channel": its cleanup queue is closed). The chain's iterating readers are the log index's
// searches (eth_getLogs in flight, on the requests' goroutines) and go-ethereum's snapshot
// generator; neither stops when the chain is told to close. closeGuard makes the close wait
// for them instead.

// closeWait bounds how long closing the database waits for open iterators: long enough for an
// eth_getLogs in flight to finish, short enough that a reader that never releases its
// iterator (a bug) cannot hang a shutdown.
const closeWait = 10 * time.Second

// errDatabaseClosed is the error of an iterator asked for once the database is closing.
var errDatabaseClosed = errors.New("chain database closed")

// closeGuard wraps the chain's key-value store: it counts the iterators open and the
// SyncKeyValue and Compact calls under way, and its Close waits for them (up to closeWait)
// before it closes the store. From the start of Close, new iterators are empty and report
// errDatabaseClosed, and SyncKeyValue and Compact return it. It is safe for concurrent use.
type closeGuard struct {
	ethdb.KeyValueStore
	wait time.Duration // how long Close waits: closeWait

	mu      sync.Mutex
	idle    sync.Cond // broadcast when busy reaches zero, and at Close's deadline
	busy    int       // open iterators and calls under way; guarded by mu
	closing bool      // Close has begun; guarded by mu

	// closeMu is held for writing while the store closes and for reading while an iterator
	// is used or released: one used after Close gave up waiting is not handed to Pebble.
	closeMu sync.RWMutex
	closed  bool // guarded by closeMu
}

func newCloseGuard(kv ethdb.KeyValueStore) *closeGuard {
	g := &closeGuard{KeyValueStore: kv, wait: closeWait}
	g.idle.L = &g.mu
	return g
}

// enter counts a use of the store; it reports false once Close has begun.
func (g *closeGuard) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closing {
		return false
	}
	g.busy++
	return true
}

// leave ends a use counted by enter.
func (g *closeGuard) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.busy--
	if g.busy == 0 {
		g.idle.Broadcast()
	}
}

// NewIterator implements ethdb.Iteratee.
func (g *closeGuard) NewIterator(prefix []byte, start []byte) ethdb.Iterator {
	if !g.enter() {
		return closedIterator{}
	}
	return &guardedIterator{Iterator: g.KeyValueStore.NewIterator(prefix, start), g: g}
}

// SyncKeyValue implements ethdb.KeyValueSyncer.
func (g *closeGuard) SyncKeyValue() error {
	if !g.enter() {
		return errDatabaseClosed
	}
	defer g.leave()
	return g.KeyValueStore.SyncKeyValue()
}

// Compact implements ethdb.Compacter.
func (g *closeGuard) Compact(start []byte, limit []byte) error {
	if !g.enter() {
		return errDatabaseClosed
	}
	defer g.leave()
	return g.KeyValueStore.Compact(start, limit)
}

// Close waits until no iterator is open and no call is under way, or closeWait has passed,
// and closes the store. Iterators still open then are reported in the error, beside what the
// store's Close returns.
func (g *closeGuard) Close() error {
	g.mu.Lock()
	g.closing = true
	// The timer's own flag ends the wait: a clock read here could find the wait not quite over
	// after the timer's one broadcast, and wait for a broadcast that never comes.
	expired := false
	deadline := time.AfterFunc(g.wait, func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		expired = true
		g.idle.Broadcast()
	})
	for g.busy > 0 && !expired {
		g.idle.Wait()
	}
	deadline.Stop()
	open := g.busy
	g.mu.Unlock()
	g.closeMu.Lock()
	g.closed = true
	err := g.KeyValueStore.Close()
	g.closeMu.Unlock()
	if open > 0 {
		err = errors.Join(fmt.Errorf("%d database iterators or calls still open %s after closing began", open, g.wait), err)
	}
	return err
}

// guardedIterator is an iterator closeGuard counts until its Release. Once the store was
// closed anyway (Close gave up waiting), it is empty and reports errDatabaseClosed: it is
// not used on the closed store, where Pebble's iterator would read released memory.
type guardedIterator struct {
	ethdb.Iterator
	g        *closeGuard
	released bool // Release is not safe for concurrent use, as go-ethereum's iterators
}

// Next implements ethdb.Iterator.
func (it *guardedIterator) Next() bool {
	it.g.closeMu.RLock()
	defer it.g.closeMu.RUnlock()
	return !it.g.closed && it.Iterator.Next()
}

// Error implements ethdb.Iterator.
func (it *guardedIterator) Error() error {
	it.g.closeMu.RLock()
	defer it.g.closeMu.RUnlock()
	if it.g.closed {
		return errDatabaseClosed
	}
	return it.Iterator.Error()
}

// Key implements ethdb.Iterator.
func (it *guardedIterator) Key() []byte {
	it.g.closeMu.RLock()
	defer it.g.closeMu.RUnlock()
	if it.g.closed {
		return nil
	}
	return it.Iterator.Key()
}

// Value implements ethdb.Iterator.
func (it *guardedIterator) Value() []byte {
	it.g.closeMu.RLock()
	defer it.g.closeMu.RUnlock()
	if it.g.closed {
		return nil
	}
	return it.Iterator.Value()
}

// Release implements ethdb.Iterator. An iterator released after the store was closed anyway
// (Close gave up waiting) is not handed to Pebble, which would panic.
func (it *guardedIterator) Release() {
	if it.released {
		return
	}
	it.released = true
	it.g.closeMu.RLock()
	if !it.g.closed {
		it.Iterator.Release()
	}
	it.g.closeMu.RUnlock()
	it.g.leave()
}

// closedIterator is the iterator of a closing database: empty, with errDatabaseClosed.
type closedIterator struct{}

func (closedIterator) Next() bool    { return false }
func (closedIterator) Error() error  { return errDatabaseClosed }
func (closedIterator) Key() []byte   { return nil }
func (closedIterator) Value() []byte { return nil }
func (closedIterator) Release()      {}
