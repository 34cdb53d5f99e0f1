package logs

import (
	"bytes"

	"github.com/ethereum/go-ethereum/ethdb"
)

// Store is the key-value space the index is kept in: chain.Chain.LogIndexStore (a table of the
// chain's Pebble database), or ethdb/memorydb in tests. Any ethdb.KeyValueStore satisfies it.
// It must be safe for concurrent use: queries read while the indexer writes. Get must return a
// copy of the value that the caller owns, as go-ethereum's stores do: the logs a query returns
// alias it.
type Store interface {
	ethdb.KeyValueReader
	ethdb.KeyValueRangeDeleter
	ethdb.Batcher
	ethdb.Iteratee
}

// seekSteps is how many chunks a Seek steps over with the open store iterator before it opens
// a new one at the target; stepping is cheaper for short hops, a new iterator for long ones.
const seekSteps = 4

// reader hands out posting-list iterators over a store and releases their store iterators at
// Close. It is not safe for concurrent use: one query, one reader.
type reader struct {
	store Store
	lists []*chunkPostings
}

func newReader(store Store) *reader { return &reader{store: store} }

// postings returns the iterator over the posting list of (kind, value).
func (r *reader) postings(kind byte, value []byte) *chunkPostings {
	p := &chunkPostings{store: r.store, list: listKey(kind, value)}
	r.lists = append(r.lists, p)
	return p
}

// Close releases every store iterator the reader's lists hold.
func (r *reader) Close() {
	for _, p := range r.lists {
		p.release()
	}
	r.lists = nil
}

// chunkPostings iterates over one posting list in the store, one decoded chunk at a time: it
// holds at most chunkEntries block numbers in memory, whatever the list's length.
type chunkPostings struct {
	store Store
	list  []byte         // key prefix of the list: 'p' kind value
	it    ethdb.Iterator // over the list's chunks, positioned on the current chunk; nil when none is open
	chunk []uint64       // the current chunk's entries
	pos   int            // index of the current entry in chunk
	state postingsState
	err   error
}

type postingsState uint8

const (
	unstarted postingsState = iota
	positioned
	exhausted
)

func (p *chunkPostings) Next() bool {
	switch p.state {
	case unstarted:
		return p.load(0)
	case exhausted:
		return false
	}
	if p.pos+1 < len(p.chunk) {
		p.pos++
		return true
	}
	return p.nextChunk()
}

func (p *chunkPostings) Seek(v uint64) bool {
	switch p.state {
	case unstarted:
		return p.load(v)
	case exhausted:
		return false
	}
	if p.chunk[p.pos] >= v {
		return true
	}
	if p.chunk[len(p.chunk)-1] >= v {
		p.pos = searchFrom(p.chunk, p.pos+1, len(p.chunk), v)
		return true
	}
	// Step over a few chunks by their keys (the key holds the chunk's last entry) before
	// paying for a new store iterator.
	for range seekSteps {
		if !p.it.Next() {
			return p.end(p.it.Error())
		}
		if chunkLast(p.it.Key()) >= v {
			return p.decode(v)
		}
	}
	return p.load(v)
}

func (p *chunkPostings) At() uint64 { return p.chunk[p.pos] }
func (p *chunkPostings) Err() error { return p.err }

// load opens a store iterator at the first chunk that can hold v and positions on the first
// entry at or above v.
func (p *chunkPostings) load(v uint64) bool {
	p.release()
	p.it = p.store.NewIterator(p.list, chunkKey(nil, v))
	if !p.it.Next() {
		return p.end(p.it.Error())
	}
	return p.decode(v)
}

// nextChunk moves to the first entry of the next chunk.
func (p *chunkPostings) nextChunk() bool {
	if !p.it.Next() {
		return p.end(p.it.Error())
	}
	return p.decode(0)
}

// decode decodes the chunk under the store iterator and positions on its first entry at or
// above v.
func (p *chunkPostings) decode(v uint64) bool {
	key := p.it.Key()
	if len(key) != len(p.list)+lastLen || !bytes.HasPrefix(key, p.list) {
		return p.end(nil) // a longer list's key sharing the prefix cannot occur; be safe
	}
	var err error
	if p.chunk, err = decodeChunk(p.chunk, p.it.Value()); err != nil {
		return p.end(err)
	}
	if last := chunkLast(key); last != openChunk && last != p.chunk[len(p.chunk)-1] {
		return p.end(ErrCorrupt)
	}
	p.pos = searchFrom(p.chunk, 0, len(p.chunk), v)
	if p.pos == len(p.chunk) { // only the open chunk can end below v
		return p.nextChunk()
	}
	p.state = positioned
	return true
}

// end marks the iteration over, with err (nil at the natural end), and releases the store
// iterator.
func (p *chunkPostings) end(err error) bool {
	p.state, p.err = exhausted, err
	p.release()
	return false
}

func (p *chunkPostings) release() {
	if p.it != nil {
		p.it.Release()
		p.it = nil
	}
}
