package sequencer

import (
	"context"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/preconf"
)

// Staging (doc.go, "The cadence"). A flashblock's build is serial: executing its
// transactions, then the state root and the assembly. Under load a thousand transactions
// take longer than the lead the schedule may give (half an interval), so builds ran late by
// their own length. The timer therefore executes the pool's transactions into the next
// flashblock as they arrive, every stageStep while it waits for the build's start (a staged
// build, build.go), and the build at the lead then adds only what arrived since, computes
// the root and publishes: the lead covers the last stretch, not the whole flashblock. Nothing
// staged is visible before that publication: the transactions stay in the pool, the
// pre-confirmation is not published.
//
// A staged build holds the Preconf's writer lock, which everything else under s.mu needs
// (the on-request pre-confirmations and seals, the dev controls, the deposits): they take
// s.mu with lock, which publishes what is staged first, as a pre-confirmation of its own
// that does not wait for a deadline. Whatever came first of the two is then what they see,
// as when they waited for the timer's build before.

// defaultStageStep is how often the timer stages: ten rounds of a 200 ms flashblock at most,
// each executing what arrived in the last 20 ms.
const defaultStageStep = 20 * time.Millisecond

// lock takes s.mu for anything but the timer's own builds and publishes what the timer has
// staged, which holds the Preconf's writer lock.
func (s *Sequencer) lock() {
	s.mu.Lock()
	s.publishStagedLocked()
}

// publishStagedLocked publishes the staged build, if any, at once, and returns the
// transactions it published. s.mu must be held.
func (s *Sequencer) publishStagedLocked() []*types.Transaction {
	b := s.staged
	if b == nil {
		return nil
	}
	s.staged = nil
	if _, err := b.commit(context.Background(), s, preconf.PublishOptions{}); err != nil {
		s.log.Error("pre-confirmation failed", "err", err)
		return nil
	}
	return b.spent
}

// requeueStagedLocked returns to the pool the transactions publishStagedLocked published for
// a control that then dropped pre-confirmed transactions (SealSelected's unlisted ones,
// Rewind's block in progress): before that publication they were only in the pool, and a
// control must not lose what it never saw. Those the chain now holds, or whose nonce it used,
// are refused by the pool's checks. s.mu must be held.
func (s *Sequencer) requeueStagedLocked(txs []*types.Transaction) {
	snap := s.preconf.Current()
	if len(txs) == 0 || snap == nil {
		return
	}
	returned := 0
	for _, err := range s.pool.Requeue(s.poolView(snap), txs...) {
		if err == nil {
			returned++
		}
	}
	s.log.Debug("returned staged transactions to the pool", "returned", returned, "refused", len(txs)-returned)
}

// stageUntil stages the pool's transactions every stageStep until begin, the start of the
// next build; it returns false when stop closed, having published what it staged.
func (s *Sequencer) stageUntil(begin time.Time, stop <-chan struct{}) bool {
	for s.stageStep > 0 {
		next := s.ticks.Now().Add(s.stageStep)
		if !next.Before(begin) {
			break
		}
		if !s.ticks.SleepUntil(next, stop) {
			s.publishStaged()
			return false
		}
		s.stage(begin)
	}
	if !s.ticks.SleepUntil(begin, stop) {
		s.publishStaged()
		return false
	}
	return true
}

// stage executes the pool's executable transactions into the staged build, beginning it when
// there are any, until until: a round must not hold up the build it stages for.
func (s *Sequencer) stage(until time.Time) {
	if pending, _ := s.pool.Stats(); pending == 0 {
		return
	}
	ctx := context.Background()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.staged == nil {
		b, err := s.beginLocked(ctx)
		if err != nil {
			// The build at the lead tries again and logs what fails then.
			return
		}
		s.staged = b
	}
	s.staged.addPending(ctx, s, until)
}

// publishStaged publishes what is staged, for a timer loop that stops.
func (s *Sequencer) publishStaged() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.publishStagedLocked()
}
