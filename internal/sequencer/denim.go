package sequencer

import (
	"errors"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// On a chain that runs Denim (Config.Denim, an OP Stack chain), from the activation on every
// block is a 200 ms block (oprollup's Denim rules):
//
//   - its time follows the parent's: Tms = 1000 × timestamp + part grows by exactly 200, so
//     five blocks share a whole-second header timestamp and the part runs 0, 200, …, 800.
//     The first Denim block (the first whose clock timestamp is at or after the activation,
//     or the first after a genesis that is already under Denim) takes the clock's second
//     with part 0; the blocks after it follow the schedule, not the clock, which they keep
//     up with when sealed every 200 ms (Config.BlockTime): the timer seals the blocks of
//     the deadlines it missed back to back (schedule.catchUp). Blocks sealed on request
//     (Mine, automine) put the chain's time ahead of the clock, and it stays ahead.
//   - transaction 1 is the BaseTime deposit of its part, between the L1-attributes deposit
//     and the user deposits;
//   - the first Denim block divides the parent's gas limit by 10 and multiplies its EIP-1559
//     denominator by 10; later blocks keep the parent's gas limit and extraData.
//
// The dev controls that move the clock (SetNextTimestamp, IncreaseTime) are refused there, and
// so is a move of a block before the activation to or past it: a Denim block's time is the
// schedule's, and the clock reaches the activation by itself.

// ErrDenimTime refuses a change of a Denim block's time.
var ErrDenimTime = errors.New("a Denim block's time follows its parent's by 200 ms and cannot be set, nor a block moved to Denim's activation or past it")

// denimLocked returns what Denim makes of the block after head whose clock time is ts
// (oprollup.NextDenimBlock: the time it takes, ts or the Denim schedule's, its part and gas
// parameters); nothing on a chain that is not an OP Stack chain. s.mu must be held.
func (s *Sequencer) denimLocked(head *types.Header, ts uint64) (oprollup.DenimNext, error) {
	if s.cfg.L1 == nil {
		return oprollup.DenimNext{Time: ts}, nil
	}
	return oprollup.NextDenimBlock(s.chain.Config(), s.cfg.Denim, head, s.parentTxs(head), ts)
}

// denimAt reports whether the block at time is a Denim block on this chain.
func (s *Sequencer) denimAt(time uint64) bool {
	return s.cfg.L1 != nil && oprollup.IsDenim(s.cfg.Denim, time)
}

// parentTxs returns the transactions of the block with header head: the block this sequencer
// sealed last when it is that one, else read from the chain.
func (s *Sequencer) parentTxs(head *types.Header) types.Transactions {
	if s.sealed != nil && s.sealed.Hash() == head.Hash() {
		return s.sealed.Transactions()
	}
	if parent := s.chain.BlockByHash(head.Hash()); parent != nil {
		return parent.Transactions()
	}
	return nil
}

// denimTimeLocked refuses, before the clock moves, to rebuild the block in progress at ts
// when it is a Denim block or ts is at or after the activation: a block moved across it would
// be neither a Denim block nor one before it. s.mu must be held.
func (s *Sequencer) denimTimeLocked(ts uint64) error {
	if s.denimAt(ts) {
		return ErrDenimTime
	}
	if attrs, ok := s.dev.Attributes(); ok && s.denimAt(attrs.Time) {
		return ErrDenimTime
	}
	return nil
}
