package sequencer

import (
	"time"

	"github.com/flashrpc/flashrpc/internal/preconf"
)

// The per-flashblock gas budget, as Base builds blocks (decisions.md "Building blocks as Base
// does"): a block has N flashblocks after index 0 (N = block time / pre-confirmation
// interval); index 0 carries the L1-attributes deposit and the deposits only, and flashblock i
// (1..N) may bring the block's cumulative gas up to i/N of its gas limit. What a flashblock
// leaves unused carries forward. A transaction whose gas limit does not fit what is left of
// the current flashblock's budget, but fits the block, waits for a later flashblock of the
// same block; the flashblock closes behind it, so that transactions ranked after it by fee do
// not take the budget it waits for, and it goes in as soon as the budget allows.

// flashblocks returns N, the flashblocks of a block after index 0 the gas budget is split
// over: Config.Flashblocks, else block time / pre-confirmation interval on an OP Stack chain;
// 0 means no per-flashblock budget (the block's whole gas limit from the first
// pre-confirmation on).
func (c Config) flashblocks() int { return c.flashblocksAt(c.BlockTime) }

// flashblocksAt is flashblocks with this block time (the one interval mining set, mining.go).
func (c Config) flashblocksAt(blockTime time.Duration) int {
	if c.NoPreconfirmations { // one build per block, at its seal: the whole gas limit
		return 0
	}
	if c.Flashblocks != 0 || c.L1 == nil {
		return max(c.Flashblocks, 0)
	}
	if c.PreconfInterval > 0 && blockTime >= c.PreconfInterval {
		return int(blockTime / c.PreconfInterval)
	}
	return 0
}

// gasBudget returns the cumulative gas the pre-confirmation after snap may bring its block to.
// Under automine a block is one pre-confirmation: it has the whole gas limit.
func (s *Sequencer) gasBudget(snap *preconf.Snapshot) uint64 {
	limit := snap.Block.GasLimit()
	n := s.cfg.flashblocksAt(time.Duration(s.blockTime.Load()))
	index := snap.Index + 1
	if n == 0 || index >= n || s.automine.Load() {
		return limit
	}
	// limit·index/N without overflow: gas limits are far below 2^63, index below N.
	return limit/uint64(n)*uint64(index) + limit%uint64(n)*uint64(index)/uint64(n)
}
