package sequencer

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// The dev chain's mining and time controls and state cheats (internal/devapi): they change
// the block in progress through preconf's dev controls (preconf.Dev) under the sequencer's
// lock, so no timer tick interleaves. A state cheat applies to the block in progress at once,
// and to `latest` through the View's unsealed cheats (preconf.Dev.Cheat); a new timestamp or
// base fee rebuilds it (preconf.Dev.Rebuild): its pre-confirmed transactions are executed
// again, results that change are retracted, and on an OP Stack chain its L1-attributes deposit
// is made again for the new time. Rewind abandons it and takes the chain back
// (preconf.Dev.Rewind).

// MaxMine is the most blocks one Mine call seals.
const MaxMine = 10_000

// ErrTimestamp refuses a block timestamp that is not after its parent's.
var ErrTimestamp = errors.New("timestamp must be after the parent block's")

// devClock is the dev chain's time control. Guarded by Sequencer.mu.
type devClock struct {
	offset   int64           // seconds added to the wall clock for block timestamps
	next     uint64          // the timestamp of the next block to open; 0 means none
	increase uint64          // seconds evm_increaseTime added since the block in progress opened
	exact    bool            // the block in progress has the timestamp evm_setNextBlockTimestamp set
	baseFee  *big.Int        // the base fee of the next block to open; nil means the protocol's
	coinbase *common.Address // the fee recipient of every block from now on; nil means the configured one
}

// nextTimeLocked is the timestamp of a block opening on head: the wall clock plus the offset
// (or the one-off next timestamp), in whole seconds, after head's. As anvil does, once a
// block with a set timestamp (evm_setNextBlockTimestamp) is sealed the clock goes on from it:
// the offset becomes its timestamp minus the wall clock, whatever was added to it meanwhile.
// s.mu must be held.
func (s *Sequencer) nextTimeLocked(head *types.Header) uint64 {
	now := s.cfg.Now().Unix()
	if s.clock.exact {
		s.clock.offset, s.clock.exact = int64(head.Time)-now, false
	}
	ts := now + s.clock.offset
	if s.clock.next != 0 {
		ts, s.clock.next = int64(s.clock.next), 0
	}
	s.clock.increase = 0 // the sealed block's; the offset carries them on
	if ts <= int64(head.Time) {
		return head.Time + 1
	}
	return uint64(ts)
}

// apply sets the one-off base fee and the chosen fee recipient, if any, in attrs.
func (c *devClock) apply(attrs *preconf.Attributes) {
	if c.baseFee != nil {
		attrs.BaseFee, c.baseFee = c.baseFee, nil
	}
	if c.coinbase != nil {
		attrs.FeeRecipient = *c.coinbase
	}
}

// TimeOffset returns the seconds added to the wall clock for block timestamps.
func (s *Sequencer) TimeOffset() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clock.offset
}

// Mine seals n blocks now (evm_mine, anvil_mine): each takes the pool's executable
// transactions first. With interval > 0 each block after the first is interval seconds after
// the one before, and the clock moves on from the last. It returns the sealed blocks; on an
// error, those sealed before it.
func (s *Sequencer) Mine(ctx context.Context, n, interval uint64) ([]*types.Block, error) {
	if n > MaxMine {
		return nil, fmt.Errorf("at most %d blocks at once, asked %d", MaxMine, n)
	}
	s.mu.Lock() // what the timer staged goes into the first block's pre-confirmation
	defer s.mu.Unlock()
	var blocks []*types.Block
	for i := uint64(0); i < n; i++ {
		if err := ctx.Err(); err != nil {
			return blocks, err
		}
		snap, err := s.preconfirmLocked(ctx, time.Time{}, nil, false)
		if err != nil {
			return blocks, err
		}
		if interval > 0 && i+1 < n {
			s.clock.next = snap.Block.Time() + interval
			s.clock.offset = int64(s.clock.next) - s.cfg.Now().Unix()
		}
		block, err := s.sealLocked(ctx, false)
		if block != nil {
			blocks = append(blocks, block)
		}
		if err != nil {
			return blocks, err
		}
	}
	return blocks, nil
}

// SetNextTimestamp rebuilds the block in progress with timestamp ts (evm_setNextBlockTimestamp)
// and moves the clock so that later blocks follow it.
func (s *Sequencer) SetNextTimestamp(ctx context.Context, ts uint64) (*preconf.Snapshot, error) {
	s.lock() // stage.go
	defer s.mu.Unlock()
	if err := s.settleLocked(); err != nil {
		return nil, err
	}
	if err := s.denimTimeLocked(ts); err != nil {
		return nil, err
	}
	head := s.chain.Head()
	if ts <= head.Time {
		return nil, fmt.Errorf("%w: %d is not after block %d's %d", ErrTimestamp, ts, head.Number.Uint64(), head.Time)
	}
	s.clock.offset = int64(ts) - s.cfg.Now().Unix()
	s.clock.increase = 0
	snap, err := s.rebuildLocked(ctx, ts, nil)
	if err == nil {
		s.clock.exact = true
	}
	return snap, err
}

// IncreaseTime moves the clock seconds ahead (evm_increaseTime) and rebuilds the block in
// progress at the sum of the increases made since it opened after the sealed head, so that
// it seals that long after its parent: two increases back to back add up, and a pause between
// them changes nothing (the block's timestamp does not follow the wall clock once it is open;
// the blocks after it do, from the new offset). When the block in progress has a timestamp
// set by evm_setNextBlockTimestamp it keeps it, as on anvil (and Hardhat): the offset changes,
// and the clock goes on from that timestamp once the block is sealed (nextTimeLocked). It
// returns the clock's total offset.
func (s *Sequencer) IncreaseTime(ctx context.Context, seconds uint64) (int64, error) {
	s.lock() // stage.go
	defer s.mu.Unlock()
	if err := s.settleLocked(); err != nil {
		return s.clock.offset, err
	}
	if seconds == 0 {
		return s.clock.offset, nil
	}
	if s.clock.exact {
		s.clock.offset += int64(seconds)
		return s.clock.offset, nil
	}
	head := s.chain.Head()
	ts := head.Time + s.clock.increase + seconds
	if err := s.denimTimeLocked(ts); err != nil {
		return s.clock.offset, err
	}
	s.clock.offset += int64(seconds)
	s.clock.increase += seconds
	if _, err := s.rebuildLocked(ctx, ts, nil); err != nil {
		return s.clock.offset, err
	}
	return s.clock.offset, nil
}

// SetNextBaseFee rebuilds the block in progress with this base fee
// (anvil_setNextBlockBaseFeePerGas). Its pre-confirmed transactions whose fee cap is below it
// are left out.
func (s *Sequencer) SetNextBaseFee(ctx context.Context, fee *big.Int) (*preconf.Snapshot, error) {
	s.lock() // stage.go
	defer s.mu.Unlock()
	attrs, ok := s.dev.Attributes()
	if !ok {
		return nil, preconf.ErrNoBlock
	}
	return s.rebuildLocked(ctx, attrs.Time, new(big.Int).Set(fee))
}

// SetCoinbase makes addr the fee recipient of the block in progress, which is rebuilt, and of
// every later block (anvil_setCoinbase).
func (s *Sequencer) SetCoinbase(ctx context.Context, addr common.Address) (*preconf.Snapshot, error) {
	s.lock() // stage.go
	defer s.mu.Unlock()
	s.clock.coinbase = &addr
	return s.rebuildWithLocked(ctx, func(a *preconf.Attributes) { a.FeeRecipient = addr })
}

// SetPrevRandao rebuilds the block in progress with this prevRandao (hardhat_setPrevRandao).
func (s *Sequencer) SetPrevRandao(ctx context.Context, randao common.Hash) (*preconf.Snapshot, error) {
	s.lock() // stage.go
	defer s.mu.Unlock()
	return s.rebuildWithLocked(ctx, func(a *preconf.Attributes) { a.PrevRandao = randao })
}

// SetGasLimit rebuilds the block in progress with this gas limit (evm_setBlockGasLimit); the
// blocks after it keep it. Pre-confirmed transactions that no longer fit are left out.
func (s *Sequencer) SetGasLimit(ctx context.Context, limit uint64) (*preconf.Snapshot, error) {
	s.lock() // stage.go
	defer s.mu.Unlock()
	return s.rebuildWithLocked(ctx, func(a *preconf.Attributes) { a.GasLimit = limit })
}

// rebuildWithLocked rebuilds the block in progress with its attributes changed by edit. s.mu
// must be held.
func (s *Sequencer) rebuildWithLocked(ctx context.Context, edit func(*preconf.Attributes)) (*preconf.Snapshot, error) {
	attrs, ok := s.dev.Attributes()
	if !ok {
		return nil, preconf.ErrNoBlock
	}
	edit(&attrs)
	snap, _, err := s.dev.Rebuild(ctx, attrs)
	if err != nil {
		return nil, err
	}
	s.pool.Reset(s.poolView(snap))
	return snap, nil
}

// rebuildLocked rebuilds the block in progress with timestamp ts and, when baseFee is set,
// that base fee (otherwise the protocol's for ts, unless the block had a chosen one). s.mu
// must be held.
func (s *Sequencer) rebuildLocked(ctx context.Context, ts uint64, baseFee *big.Int) (*preconf.Snapshot, error) {
	if err := s.settleLocked(); err != nil {
		return nil, err
	}
	attrs, ok := s.dev.Attributes()
	if !ok {
		return nil, preconf.ErrNoBlock
	}
	if s.denimAt(attrs.Time) && ts != attrs.Time {
		return nil, ErrDenimTime
	}
	head := s.chain.Head()
	config := s.chain.Config()
	chosen := attrs.BaseFee != nil && eip1559.CalcBaseFee(config, head, attrs.Time).Cmp(attrs.BaseFee) != 0
	attrs.Time = ts
	switch {
	case baseFee != nil:
		attrs.BaseFee = baseFee
	case !chosen:
		attrs.BaseFee = eip1559.CalcBaseFee(config, head, ts)
	}
	if s.cfg.L1 != nil && len(attrs.Transactions) > 0 {
		info := s.cfg.L1.Info(s.parentTxs(head), ts)
		attrs.Transactions = slices.Clone(attrs.Transactions)
		attrs.Transactions[0] = info.DepositTx()
		if !s.denimAt(ts) { // a Denim block keeps its gas parameters (denim.go)
			attrs.ExtraData = oprollup.ExtraData(config, ts)
		}
		attrs.PrevRandao = info.Hash
	}
	snap, dropped, err := s.dev.Rebuild(ctx, attrs)
	if err != nil {
		return nil, err
	}
	for _, tx := range dropped {
		s.log.Debug("rebuilt block leaves out a pre-confirmed transaction", "hash", tx.Hash())
	}
	s.pool.Reset(s.poolView(snap))
	return snap, nil
}

// Cheat changes the state of the block in progress with fn now (anvil_setBalance and the
// other state cheats): `pending` and `latest` see it at once, the sealed block carries it.
func (s *Sequencer) Cheat(ctx context.Context, fn func(*state.StateDB)) (*preconf.Snapshot, error) {
	s.lock() // stage.go
	defer s.mu.Unlock()
	snap, err := s.dev.Cheat(ctx, fn)
	if err != nil {
		return nil, err
	}
	s.pool.Reset(s.poolView(snap))
	return snap, nil
}

// Rewind abandons the block in progress (its pre-confirmed logs retracted), takes the chain
// back to block number (the dropped blocks' logs sent as removed), sets the clock offset and
// opens the next block with cheats, the state cheats no sealed block carries (evm_revert
// restores those its snapshot saved; anvil_reset none): `latest` and `pending` see them as
// they saw them then. The pool keeps what it holds.
func (s *Sequencer) Rewind(ctx context.Context, number uint64, offset int64, cheats *preconf.Cheats) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	staged := s.publishStagedLocked() // stage.go; given back below
	defer s.requeueStagedLocked(staged)
	if err := s.settleLocked(); err != nil {
		s.log.Error("writing the last sealed block failed", "err", err) // the head is the block before
	}
	if number > s.chain.Head().Number.Uint64() {
		return fmt.Errorf("rewind to block %d: the head is %d", number, s.chain.Head().Number.Uint64())
	}
	err := s.dev.Rewind(number, cheats)
	s.clock = devClock{offset: offset, coinbase: s.clock.coinbase}
	if oerr := s.openLocked(ctx); oerr != nil {
		err = errors.Join(err, oerr)
	}
	return err
}
