package sequencer

import (
	"errors"
	"time"
)

// A chain without pre-confirmations (Config.NoPreconfirmations), as Base runs since Denim:
// each block is built at its seal. The timer runs one build per block time on the cadence's
// fixed deadlines (the schedule's lead before each seal, schedule.go), executing the pool's
// executable transactions into the block in progress and sealing it at the deadline; Seal,
// Mine and automine do the same on request. Transactions wait in the pool until then, where
// txpool_* and the pending nonce see them. The block in progress is opened hidden
// (preconf.PublishOptions.Hidden): readers see each block once it is sealed and written,
// and the feed, the pre-confirmation subscriptions and the metrics nothing before. There
// is no per-flashblock gas budget (budget.go): the one build has the block's gas limit.

// ErrNoPreconfirmations refuses what only a chain with pre-confirmations does: building a
// pre-confirmation on request (dev_preconfirm) and sealing a chosen list of pre-confirmed
// transactions (dev_seal with a list).
var ErrNoPreconfirmations = errors.New("this chain has no pre-confirmations: blocks are built at their seal (evm_mine, dev_seal without a list)")

// preconfInterval is the timer's interval between builds for a block time: one build per
// block on a chain without pre-confirmations, else Config.PreconfInterval.
func (s *Sequencer) preconfInterval(blockTime time.Duration) time.Duration {
	if s.cfg.NoPreconfirmations {
		return blockTime
	}
	return s.cfg.PreconfInterval
}
