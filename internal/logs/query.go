package logs

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Search is one query's view of the index: the candidate blocks of a block range as far as the
// index covers it, their logs, and where the part of the range it does not cover begins. It
// holds store iterators until Close. It is not safe for concurrent use, except BlockLogs.
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

// BlockLogs calls fn with each log of block n, a block the search named, in block order, with
// every field eth_getLogs returns set (the log index counts all logs of the block). It reads
// one log record of the index and nothing of the chain: this is the per-block cost of an
// indexed query. A named block without a record has no logs (the lists may name such a block
// after a reorganisation): fn is not called.
//
// fn gets one *types.Log, reused for the next log: it must not modify it or keep the pointer or
// its Topics. Data aliases a buffer of this call's own, which fn may keep. An error means fn's
// logs must be discarded and the block read from the chain; ErrCorrupt also has the index
// rebuilt. BlockLogs is safe for concurrent use, with itself and with the rest of the search:
// it reads the store only.
func (s *Search) BlockLogs(n uint64, fn func(*types.Log)) error {
	if s.ix == nil {
		return nil
	}
	val, err := get(s.ix.store, logKey(n))
	if err != nil || val == nil {
		return err
	}
	if err := decodeLogRecord(val, n, fn); err != nil {
		err = fmt.Errorf("block %d: %w", n, err)
		s.ix.reportCorrupt(err)
		return err
	}
	return nil
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
