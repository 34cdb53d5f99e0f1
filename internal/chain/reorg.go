package chain

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/ethereum/go-ethereum/core/types"
)

// ReorgEvent reports sealed blocks that left the canonical chain: a rewind (SetForkchoice to an
// older head, a failed import rolled back) or a side chain that became canonical in Insert.
// Removed holds the dropped blocks' logs, oldest block first, with Removed set and every
// location field filled, as go-ethereum's RemovedLogsEvent carries them. The slices are shared:
// listeners must not modify them.
type ReorgEvent struct {
	Dropped []*types.Header // oldest first
	Removed []*types.Log
}

// reorgListeners are the OnReorg listeners (Chain.reorgs).
type reorgListeners struct {
	mu  sync.Mutex // guards fns
	fns []func(ReorgEvent)
}

// OnReorg registers fn to be called, on the goroutine that changed the head, when canonical
// blocks are dropped; for a side chain that becomes canonical it runs before the OnHead calls
// of the new blocks. fn must return quickly.
func (c *Chain) OnReorg(fn func(ReorgEvent)) {
	c.reorgs.mu.Lock()
	defer c.reorgs.mu.Unlock()
	c.reorgs.fns = append(c.reorgs.fns, fn)
}

// setHead rewinds the canonical chain to number and announces the dropped blocks. Their logs
// are read first: go-ethereum deletes the bodies and receipts of the blocks it rewinds.
func (c *Chain) setHead(number uint64) error {
	if c.up != nil {
		c.writeMu.Lock()
		defer c.writeMu.Unlock()
		first := c.up.Number() + 1
		if c.up.Replica() {
			first-- // a replica's blocks from N on are all the upstream's, each with its root node
		}
		if number < first {
			return fmt.Errorf("fork: rewind to block %d: %w %d (forks rewind no further; start a new fork instead)", number, ErrBeforeFork, first)
		}
	}
	if c.scheme == SchemePath {
		if err := c.pathRewindable(number); err != nil { // history.go
			return err
		}
	}
	var dropped []*types.Header
	for n := c.Head().Number.Uint64(); n > number; n-- {
		if h := c.HeaderByNumber(n); h != nil {
			dropped = append(dropped, h)
		}
	}
	ev := c.reorgEvent(dropped)
	err := c.bc.SetHead(number)
	if c.up != nil {
		// What the upstream kept of the dropped blocks goes with them.
		err = errors.Join(err, c.up.Rewound(c.bc.CurrentBlock().Number.Uint64()))
	}
	c.publishHeads() // heads.go: even a failed rewind may have moved the head
	if err != nil {
		return err
	}
	c.announceReorg(ev)
	return nil
}

// announceDropped announces the blocks from before back to the canonical chain when before,
// the head before an insert, is no longer canonical (a side chain took over).
func (c *Chain) announceDropped(before *types.Header) {
	var dropped []*types.Header
	for h := before; h != nil && h.Number.Sign() > 0 && c.CanonicalHash(h.Number.Uint64()) != h.Hash(); h = c.HeaderByHash(h.ParentHash) {
		dropped = append(dropped, h)
	}
	c.announceReorg(c.reorgEvent(dropped))
}

// reorgEvent gathers the logs of dropped blocks (newest first as given) in chain order.
func (c *Chain) reorgEvent(dropped []*types.Header) ReorgEvent {
	slices.Reverse(dropped)
	ev := ReorgEvent{Dropped: dropped}
	for _, h := range dropped {
		for _, r := range c.Receipts(h.Hash()) {
			for _, l := range r.Logs {
				cp := *l
				cp.Removed = true
				ev.Removed = append(ev.Removed, &cp)
			}
		}
	}
	return ev
}

func (c *Chain) announceReorg(ev ReorgEvent) {
	if len(ev.Dropped) == 0 {
		return
	}
	c.reorgs.mu.Lock()
	fns := c.reorgs.fns
	c.reorgs.mu.Unlock()
	for _, fn := range fns {
		fn(ev)
	}
}
