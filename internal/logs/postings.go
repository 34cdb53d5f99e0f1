package logs

import "container/heap"

// Postings iterates over a strictly increasing list of block numbers: the blocks of a posting
// list, or of a combination of lists. Implementations are not safe for concurrent use.
type Postings interface {
	// Next advances to the next block number and reports whether there is one.
	Next() bool
	// Seek advances to the first block number at or above v and reports whether there is
	// one. An iterator already at or past v stays where it is. Seek may be called before
	// Next.
	Seek(v uint64) bool
	// At returns the current block number. It may only be called after Next or Seek has
	// returned true.
	At() uint64
	// Err returns the error that ended the iteration, if any. An iterator that fails stops:
	// Next and Seek return false from then on.
	Err() error
}

// emptyPostings holds nothing.
type emptyPostings struct{}

func (emptyPostings) Next() bool       { return false }
func (emptyPostings) Seek(uint64) bool { return false }
func (emptyPostings) At() uint64       { return 0 }
func (emptyPostings) Err() error       { return nil }

var theEmpty Postings = emptyPostings{}

// EmptyPostings returns the iterator over nothing. Intersect and Merge check for it to skip
// work, so return it rather than another empty iterator.
func EmptyPostings() Postings { return theEmpty }

// errPostings holds nothing and an error.
type errPostings struct{ err error }

func (errPostings) Next() bool       { return false }
func (errPostings) Seek(uint64) bool { return false }
func (errPostings) At() uint64       { return 0 }
func (e errPostings) Err() error     { return e.err }

// ErrPostings returns an iterator that holds nothing and reports err.
func ErrPostings(err error) Postings { return errPostings{err} }

// listPostings iterates over a slice.
type listPostings struct {
	list []uint64
	pos  int // index of the current entry; -1 before the first Next
}

// NewListPostings returns an iterator over list, which must strictly increase. It keeps list:
// the caller must not modify it while the iterator is in use.
func NewListPostings(list []uint64) Postings {
	if len(list) == 0 {
		return EmptyPostings()
	}
	return &listPostings{list: list, pos: -1}
}

func (it *listPostings) Next() bool {
	if it.pos < len(it.list) {
		it.pos++
	}
	return it.pos < len(it.list)
}

func (it *listPostings) Seek(v uint64) bool {
	it.pos = max(it.pos, 0)
	// Galloping: a seek usually lands close by.
	lo, step := it.pos, 1
	for lo < len(it.list) && it.list[lo] < v {
		next := lo + step
		if next >= len(it.list) || it.list[next] >= v {
			lo = searchFrom(it.list, lo+1, min(next, len(it.list)), v)
			break
		}
		lo, step = next, step*2
	}
	it.pos = lo
	return it.pos < len(it.list)
}

func (it *listPostings) At() uint64 { return it.list[it.pos] }
func (it *listPostings) Err() error { return nil }

// searchFrom returns the first index in [lo, hi) whose entry is at or above v, or hi.
func searchFrom(list []uint64, lo, hi int, v uint64) int {
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if list[mid] < v {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// intersectPostings holds the block numbers every one of its iterators holds.
type intersectPostings struct {
	its []Postings
	cur uint64
	err error
}

// Intersect returns an iterator over the block numbers that every one of its holds. With no
// iterators, or with EmptyPostings among them, it returns EmptyPostings.
func Intersect(its ...Postings) Postings {
	switch len(its) {
	case 0:
		return EmptyPostings()
	case 1:
		return its[0]
	}
	for _, p := range its {
		if p == theEmpty {
			return EmptyPostings()
		}
	}
	return &intersectPostings{its: its}
}

func (it *intersectPostings) Next() bool {
	if it.err != nil || !it.its[0].Next() {
		return it.fail(it.its[0])
	}
	return it.seekAll(it.its[0].At())
}

func (it *intersectPostings) Seek(v uint64) bool { return it.seekAll(v) }

// seekAll moves every iterator to the first value at or above target that they all hold
// (leapfrogging: each iterator that lands past target raises it).
func (it *intersectPostings) seekAll(target uint64) bool {
	if it.err != nil {
		return false
	}
	for {
		agreed := true
		for _, p := range it.its {
			if !p.Seek(target) {
				return it.fail(p)
			}
			if at := p.At(); at > target {
				target, agreed = at, false
			}
		}
		if agreed {
			it.cur = target
			return true
		}
	}
}

// fail records p's error, if any, and reports the end.
func (it *intersectPostings) fail(p Postings) bool {
	if it.err == nil {
		it.err = p.Err()
	}
	return false
}

func (it *intersectPostings) At() uint64 { return it.cur }
func (it *intersectPostings) Err() error { return it.err }

// mergedPostings holds the block numbers any one of its iterators holds.
type mergedPostings struct {
	all     []Postings
	h       postingsHeap // the iterators that are not exhausted, smallest At first
	started bool
	cur     uint64
	err     error
}

// Merge returns an iterator over the block numbers that any one of its holds, each once.
// EmptyPostings among its are dropped; with none left it returns EmptyPostings.
func Merge(its ...Postings) Postings {
	var live []Postings
	for _, p := range its {
		if p != theEmpty {
			live = append(live, p)
		}
	}
	switch len(live) {
	case 0:
		return EmptyPostings()
	case 1:
		return live[0]
	}
	return &mergedPostings{all: live}
}

func (it *mergedPostings) Next() bool {
	if it.err != nil {
		return false
	}
	if !it.started {
		return it.start(func(p Postings) bool { return p.Next() })
	}
	for len(it.h) > 0 && it.h[0].At() == it.cur {
		if !it.advance(it.h[0].Next()) {
			return false
		}
	}
	return it.settle()
}

func (it *mergedPostings) Seek(v uint64) bool {
	if it.err != nil {
		return false
	}
	if !it.started {
		return it.start(func(p Postings) bool { return p.Seek(v) })
	}
	if len(it.h) > 0 && it.cur >= v {
		return true
	}
	for len(it.h) > 0 && it.h[0].At() < v {
		if !it.advance(it.h[0].Seek(v)) {
			return false
		}
	}
	return it.settle()
}

// start positions every iterator with move and builds the heap.
func (it *mergedPostings) start(move func(Postings) bool) bool {
	it.started = true
	for _, p := range it.all {
		if move(p) {
			it.h = append(it.h, p)
		} else if err := p.Err(); err != nil {
			it.err = err
			return false
		}
	}
	heap.Init(&it.h)
	return it.settle()
}

// advance restores the heap after its top moved; moved says whether the top still holds a
// value. It reports false when the top failed.
func (it *mergedPostings) advance(moved bool) bool {
	if moved {
		heap.Fix(&it.h, 0)
		return true
	}
	if err := it.h[0].Err(); err != nil {
		it.err = err
		return false
	}
	heap.Pop(&it.h)
	return true
}

func (it *mergedPostings) settle() bool {
	if len(it.h) == 0 {
		return false
	}
	it.cur = it.h[0].At()
	return true
}

func (it *mergedPostings) At() uint64 { return it.cur }
func (it *mergedPostings) Err() error { return it.err }

// postingsHeap orders iterators by their current value.
type postingsHeap []Postings

func (h postingsHeap) Len() int           { return len(h) }
func (h postingsHeap) Less(i, j int) bool { return h[i].At() < h[j].At() }
func (h postingsHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *postingsHeap) Push(x any)        { *h = append(*h, x.(Postings)) }
func (h *postingsHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// boundedPostings stops its iterator at a last value.
type boundedPostings struct {
	p     Postings
	first uint64
	last  uint64
	moved bool
	ended bool
}

// Bound returns p limited to the block numbers in [first, last]: the first Next seeks to
// first, and the iteration ends past last.
func Bound(p Postings, first, last uint64) Postings {
	if p == theEmpty || first > last {
		return EmptyPostings()
	}
	return &boundedPostings{p: p, first: first, last: last}
}

func (it *boundedPostings) Next() bool {
	if it.ended {
		return false
	}
	var ok bool
	if it.moved {
		ok = it.p.Next()
	} else {
		ok = it.p.Seek(it.first)
	}
	return it.check(ok)
}

func (it *boundedPostings) Seek(v uint64) bool {
	if it.ended {
		return false
	}
	return it.check(it.p.Seek(max(v, it.first)))
}

func (it *boundedPostings) check(ok bool) bool {
	it.moved = true
	if !ok || it.p.At() > it.last {
		it.ended = true
		return false
	}
	return true
}

func (it *boundedPostings) At() uint64 { return it.p.At() }
func (it *boundedPostings) Err() error { return it.p.Err() }
