package logs

import "github.com/ethereum/go-ethereum/common"

// Search is one query's view of the index: the candidate blocks of a block range as far as the
// index covers it, and where the part it does not cover begins. It holds store iterators until
// Close. It is not safe for concurrent use.
type Search struct {
	// Blocks iterates, in increasing order, over the blocks of the range up to the last
	// indexed one that may hold a matching log. It may name blocks without a match (after a
	// reorganisation), never miss one.
	Blocks Postings
	// ScanFrom is the first block of the range the index does not cover: the caller scans
	// from there to the end of the range. It is one past the range's end when the index
	// covers all of it, and the range's start when it covers none.
	ScanFrom uint64

	ix *Index
	r  *reader
}

// Search returns the blocks of [first, last] that may hold a log matching crit's addresses
// and topics (crit's block fields are not read). Call Close when done. On a nil *Index it
// covers nothing.
func (ix *Index) Search(crit *Criteria, first, last uint64) *Search {
	s := &Search{Blocks: EmptyPostings(), ScanFrom: first, ix: ix}
	if ix == nil || first > last {
		return s
	}
	indexed, ok := ix.covered()
	if !ok || indexed < first {
		return s
	}
	end := min(last, indexed)
	s.r = newReader(ix.store)
	s.Blocks = Bound(s.r.match(crit), first, end)
	s.ScanFrom = end + 1
	return s
}

// Block returns the hash and time of block n, one the search named: what reading its logs
// takes, without reading its header. Blocks of a search are consecutive in the store, so this
// reads one record per 64 blocks at most. ok is false if the record is missing, in which case
// the caller looks the block up in the chain.
func (s *Search) Block(n uint64) (hash common.Hash, time uint64, ok bool) {
	if s.r == nil {
		return common.Hash{}, 0, false
	}
	b, ok := s.r.block(n)
	return b.hash, b.time, ok
}

// Close releases the search's store iterators. When the iteration ended with ErrCorrupt, the
// index is rebuilt.
func (s *Search) Close() {
	if s.r == nil {
		return
	}
	if err := s.Blocks.Err(); err != nil && isCorrupt(err) {
		s.ix.reportCorrupt(err)
	}
	s.r.Close()
	s.r = nil
}

// maxEventLists is the most (address, topic 0) lists a search merges; a filter with more
// combinations uses the address and topic 0 lists separately.
const maxEventLists = 64

// match returns the blocks that may hold a log matching crit: the intersection, over the
// address list and each constrained topic position, of the union of that place's
// alternatives. A filter that names both addresses and topic 0 (a contract's event, the most
// common filter) uses the lists of (address, topic 0) pairs instead of the two separately: a
// block where the contract emitted something and another contract emitted the event is not
// named. A filter without constraints matches every block that has a log.
func (r *reader) match(crit *Criteria) Postings {
	var groups []Postings
	topics := crit.Topics[:min(len(crit.Topics), MaxTopics)]
	if len(crit.Addresses) > 0 && len(topics) > 0 && len(topics[0]) > 0 && len(crit.Addresses)*len(topics[0]) <= maxEventLists {
		var alts []Postings
		for _, a := range crit.Addresses {
			for _, t := range topics[0] {
				event := append(append(make([]byte, 0, len(a)+len(t)), a[:]...), t[:]...)
				alts = append(alts, r.postings(kindEvent, event))
			}
		}
		groups = append(groups, Merge(alts...))
		topics = append([][]common.Hash{nil}, topics[1:]...)
	} else if len(crit.Addresses) > 0 {
		alts := make([]Postings, len(crit.Addresses))
		for i, a := range crit.Addresses {
			alts[i] = r.postings(kindAddress, a[:])
		}
		groups = append(groups, Merge(alts...))
	}
	for pos, alts := range topics {
		if len(alts) == 0 {
			continue
		}
		lists := make([]Postings, len(alts))
		for i, t := range alts {
			lists[i] = r.postings(kindTopic+byte(pos), t[:])
		}
		groups = append(groups, Merge(lists...))
	}
	if len(groups) == 0 {
		return r.postings(kindAny, nil)
	}
	return Intersect(groups...)
}
