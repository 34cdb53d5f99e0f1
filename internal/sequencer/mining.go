package sequencer

import (
	"context"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
)

// The mining controls of anvil and Hardhat (internal/devapi: evm_setAutomine,
// evm_setIntervalMining, anvil_setIntervalMining). Automine seals every transaction the pool
// takes in a block of its own before the send answers; interval mining is the timer's block
// time. Changing either restarts the timer loop: the running loop is stopped and waited for,
// and a new one starts with the new block time (zero while automine is on, so that the timer
// seals nothing but still publishes flashblocks every PreconfInterval, as a BlockTime of zero
// does). The block in progress is kept across a restart: it is sealed by the new loop, by the
// next automined transaction or on request.

// MaxBlockTime is the longest block time interval mining takes.
const MaxBlockTime = 24 * time.Hour

// Automine reports whether every transaction the pool takes is sealed at once.
func (s *Sequencer) Automine() bool { return s.automine.Load() }

// BlockTime returns the timer's block time: Config.BlockTime until SetBlockTime changes it; 0
// means the timer seals nothing. While automine is on the timer seals nothing whatever it is.
func (s *Sequencer) BlockTime() time.Duration { return time.Duration(s.blockTime.Load()) }

// Timer returns the block time the timer seals at now (0 when it seals nothing: a zero
// block time or automine on) and when that took effect (the last restart of the timer loop),
// for the dev chain's health rule (health.SealingTimer).
func (s *Sequencer) Timer() (time.Duration, time.Time) {
	s.loopMu.Lock()
	defer s.loopMu.Unlock()
	if s.automine.Load() {
		return 0, s.timerSince
	}
	return s.BlockTime(), s.timerSince
}

// SetAutomine turns automine on or off (evm_setAutomine). On, each transaction the pool takes
// as executable is pre-confirmed and its block sealed and written before the pool's Add
// returns (so before eth_sendRawTransaction and eth_sendTransaction answer), and the timer
// seals nothing; off, the timer seals every BlockTime again. Turning it on seals nothing by
// itself: transactions pre-confirmed by then, and those of a block whose chain write failed
// meanwhile (dropped.go), are sealed with the next transaction sent or by the next Mine.
func (s *Sequencer) SetAutomine(on bool) {
	s.loopMu.Lock()
	defer s.loopMu.Unlock()
	if s.automine.Load() == on {
		return
	}
	s.automine.Store(on)
	s.restartLoopLocked()
}

// SetBlockTime sets the timer's block time (evm_setIntervalMining); 0 turns the timer's seals
// off. Pre-confirmations keep Config.PreconfInterval, except on a chain without
// pre-confirmations (Config.NoPreconfirmations), where the timer builds once a block, at its
// seal (nopreconf.go): a block time that is not a whole number of intervals is handled as
// such a Config.BlockTime is (loop).
func (s *Sequencer) SetBlockTime(d time.Duration) error {
	if d < 0 || d > MaxBlockTime {
		return fmt.Errorf("block time %s out of range [0, %s]", d, MaxBlockTime)
	}
	s.loopMu.Lock()
	defer s.loopMu.Unlock()
	if s.BlockTime() == d {
		return nil
	}
	s.blockTime.Store(int64(d))
	s.restartLoopLocked()
	return nil
}

// restartLoopLocked stops the running timer loop, if any, and starts one with the current
// block time, unless the sequencer is closed. s.loopMu must be held, s.mu must not.
func (s *Sequencer) restartLoopLocked() {
	s.stopLoopLocked()
	if s.closed {
		return
	}
	blockTime := s.BlockTime()
	if s.automine.Load() {
		blockTime = 0
	}
	s.halt, s.halted, s.timerSince = make(chan struct{}), make(chan struct{}), time.Now()
	go s.loop(blockTime, s.halt, s.halted)
}

// stopLoopLocked stops the running timer loop, if any, and waits for it and for the chain
// write of the block it sealed last. s.loopMu must be held, s.mu must not.
func (s *Sequencer) stopLoopLocked() {
	if s.halt != nil {
		close(s.halt)
		<-s.halted
		s.halt, s.halted = nil, nil
	}
	// What the loop sealed last is on the chain when the control answers.
	if err := s.preconf.WaitWritten(); err != nil {
		s.log.Error("writing the last sealed block failed", "err", err)
	}
}

// automineTx is the pool's hook for each transaction it takes (txpool.Pool.SetOnAdd): under
// automine it pre-confirms the pool's executable transactions and, when tx is among them,
// seals the block and waits for its chain write, so that its receipt is on the standard
// endpoint when the send answers. A transaction that is not executable yet (a nonce gap)
// seals nothing: it goes in with the transaction that fills the gap.
func (s *Sequencer) automineTx(tx *types.Transaction) {
	if !s.automine.Load() {
		return
	}
	ctx := context.Background()
	s.mu.Lock()
	defer s.mu.Unlock()
	snap, err := s.preconfirmLocked(ctx, time.Time{}, nil, false)
	if err != nil {
		s.log.Error("automine: pre-confirmation failed", "hash", tx.Hash(), "err", err)
		return
	}
	if _, ok := snap.TxIndex(tx.Hash()); !ok {
		return
	}
	if _, err := s.sealLocked(ctx, false); err != nil {
		s.log.Error("automine: sealing failed", "hash", tx.Hash(), "err", err)
	}
}
