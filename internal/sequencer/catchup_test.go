package sequencer

import (
	"context"
	"testing"
	"time"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// TestScheduleCatchUp: a schedule that catches up keeps the deadlines passed by up to
// maxCatchUp, one after the other, and skips only those passed by more.
func TestScheduleCatchUp(t *testing.T) {
	t.Parallel()
	const ms = time.Millisecond
	s := newSchedule(testInterval, t0)
	s.catchUp()
	for k := 1; k <= 5; k++ { // a stall of a second: deadlines 200 … 1,000 ms are kept
		deadline, _, skipped := s.plan(at(1050 * ms))
		if want := at(time.Duration(k) * testInterval); deadline != want || skipped != 0 {
			t.Fatalf("after a stall of a second: deadline %v, skipped %d; want %v, 0", deadline.Sub(t0), skipped, want.Sub(t0))
		}
	}
	// A stall past maxCatchUp: the deadlines older than maxCatchUp are skipped.
	now := at(1200*ms + maxCatchUp + 300*ms)
	deadline, _, skipped := s.plan(now)
	if want := now.Add(-maxCatchUp); deadline.Before(want) || deadline.Sub(want) >= testInterval || skipped == 0 {
		t.Fatalf("after a stall past maxCatchUp: deadline %v, skipped %d; want the first within %v of %v", deadline.Sub(t0), skipped, maxCatchUp, now.Sub(t0))
	}
}

// TestDenimCatchUp runs the timer of a Denim chain (a block every 200 ms, no
// pre-confirmations) on a stepped clock and stalls it for a second: the blocks whose deadlines
// passed are sealed back to back, so that the chain's millisecond time (Tms, 200 ms a block)
// has advanced as much as the clock since the first block.
func TestDenimCatchUp(t *testing.T) {
	zero := uint64(0)
	g, err := oprollup.DevDenimGenesis(1337, nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	c, err := chain.Open(chain.Config{Genesis: g, Denim: &zero})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	clk := &stepClock{now: t0, sleeps: make(chan sleepCall)}
	pre := preconf.New(c)
	seq := newWithClock(Config{
		BlockTime: testInterval, NoPreconfirmations: true, Denim: &zero,
		L1: &oprollup.DevL1{GenesisTime: g.Timestamp}, Now: func() time.Time { return time.Unix(int64(g.Timestamp), 0) },
	}, c, pre, txpool.New(c.Config(), txpool.Config{}), clk, 0) // every sleep is the test's: no staging (stage_test.go has it)
	if err := seq.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(seq.Close)
	next := func(what string) sleepCall {
		t.Helper()
		select {
		case call := <-clk.sleeps:
			return call
		case <-time.After(30 * time.Second): // a hang guard, not a measurement
			t.Fatalf("%s: the loop does not sleep", what)
			return sleepCall{}
		}
	}
	const ms = time.Millisecond
	headMs := func() (uint64, uint64) {
		t.Helper()
		if err := pre.WaitWritten(); err != nil {
			t.Fatal(err)
		}
		h := c.Head()
		tms, ok := oprollup.BlockTimeMs(h.Time, c.BlockByHash(h.Hash()).Transactions())
		if !ok {
			t.Fatalf("block %d is not a Denim block", h.Number)
		}
		return h.Number.Uint64(), tms
	}

	// Block 1: built ahead of its deadline (200 ms), sealed at it.
	call := next("build of block 1")
	call.wake <- call.until
	call = next("seal of block 1")
	if call.until != at(200*ms) {
		t.Fatalf("block 1 is sealed at %v, want 200ms", call.until.Sub(t0))
	}
	call.wake <- call.until
	call = next("build of block 2")
	n1, ms1 := headMs()
	if n1 != 1 {
		t.Fatalf("head %d after the first deadline, want 1", n1)
	}
	// A stall: the loop wakes at 1,400 ms, five deadlines late (400 … 1,200 ms) and on time
	// for the sixth (1,400 ms). All six blocks are sealed before it sleeps again.
	call.wake <- at(1400 * ms)
	next("build after the stall")
	n, tms := headMs()
	if n != 7 || tms-ms1 != 1200 {
		t.Fatalf("after a stall to 1,400 ms: head %d, %d ms after block 1; want 7, 1200 (the clock's advance)", n, tms-ms1)
	}
}
