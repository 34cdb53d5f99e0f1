package kvstore

import (
	"sync"
	"time"

	"github.com/cockroachdb/pebble"
)

// WriteStalls is what Pebble's write stalls have cost a store since it was opened: Pebble stops
// the writes while its memtables or its level 0 are full, until a flush or a compaction has
// caught up. With its flushes and compactions at a lower priority (background.go), this is
// where a node whose disk or CPU cannot keep up shows it.
type WriteStalls struct {
	Count    uint64        // stalls begun
	Duration time.Duration // time the writes were stopped, a stall under way included
}

// stallClock times the stalls from Pebble's WriteStallBegin and WriteStallEnd events. They
// come in pairs, one stall at a time: Pebble's writers make room for their writes one after
// another, under its commit pipeline's mutex.
type stallClock struct {
	mu       sync.Mutex
	stalled  bool      // a stall has begun and not ended
	began    time.Time // when it began
	count    uint64
	duration time.Duration
}

func (c *stallClock) begin() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.count++
	c.stalled, c.began = true, time.Now()
}

func (c *stallClock) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stalled {
		c.stalled = false
		c.duration += time.Since(c.began)
	}
}

// read returns the stalls so far.
func (c *stallClock) read() WriteStalls {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := WriteStalls{Count: c.count, Duration: c.duration}
	if c.stalled {
		s.Duration += time.Since(c.began)
	}
	return s
}

// listen sets l's stall events to c.
func (c *stallClock) listen(l *pebble.EventListener) {
	l.WriteStallBegin = func(pebble.WriteStallBeginInfo) { c.begin() }
	l.WriteStallEnd = c.end
}
