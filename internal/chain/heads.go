package chain

import (
	"sync"

	"github.com/ethereum/go-ethereum/core/types"
)

// Heads are the chain's markers as of one moment: the sealed head, the safe and the
// finalized block. A Heads value is immutable and published whole, so a reader that loads it
// once sees three markers that belonged together, and every block up to Latest is durable
// and readable (its body, receipts and transaction lookups) before a Heads naming it is
// published. The headers are shared: callers must not modify them.
type Heads struct {
	// Latest is the newest sealed block; never nil. It is the pointer Head returned when it
	// was published, so comparing it with another header by pointer costs no hashing.
	Latest *types.Header
	// Safe is the safe block, nil when none is set.
	Safe *types.Header
	// Finalized is the finalized block, nil when none is set.
	Finalized *types.Header
}

// headsPublisher publishes Heads (Chain.heads).
type headsPublisher struct {
	mu  sync.Mutex // serialises publications; guards fns
	fns []func(*Heads)
}

// Heads returns the chain's newest published markers: one atomic load.
func (c *Chain) Heads() *Heads { return c.heads.Load() }

// OnHeads registers fn to be called, on the goroutine that changed a marker, after every new
// Heads is published: a block inserted, the head rewound, the safe or finalized block set.
// It runs before the OnReorg and OnHead listeners of the same change, so a listener that
// reacts to a new head (a view of the chain paired with other state, internal/preconf) can
// publish what depends on it before anyone is told of the block. fn runs with the
// publication lock held: it must return quickly and must not change the chain.
func (c *Chain) OnHeads(fn func(*Heads)) {
	c.headsPub.mu.Lock()
	defer c.headsPub.mu.Unlock()
	c.headsPub.fns = append(c.headsPub.fns, fn)
}

// publishHeads publishes the current markers and tells the OnHeads listeners. Callers have
// made the blocks durable first.
func (c *Chain) publishHeads() {
	c.headsPub.mu.Lock()
	defer c.headsPub.mu.Unlock()
	h := &Heads{Latest: c.bc.CurrentBlock(), Safe: c.bc.CurrentSafeBlock(), Finalized: c.bc.CurrentFinalBlock()}
	if old := c.heads.Load(); old != nil && *old == *h {
		return
	}
	c.heads.Store(h)
	for _, fn := range c.headsPub.fns {
		fn(h)
	}
}
