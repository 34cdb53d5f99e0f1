package sequencer

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"

	"github.com/flashrpc/flashrpc/internal/txpool"
)

// stagingSeq is a sequencer on a stepped clock whose timer stages every 20 ms, two
// flashblocks of testInterval a block, and the test's view of the loop's sleeps.
type stagingSeq struct {
	*testSeq
	clk *stepClock
}

func newStagingSeq(t *testing.T) *stagingSeq {
	t.Helper()
	clk := &stepClock{now: t0, sleeps: make(chan sleepCall)}
	ts := newTestSeqStaging(t, txpool.Config{}, Config{PreconfInterval: testInterval, BlockTime: 2 * testInterval}, clk, 20*time.Millisecond)
	return &stagingSeq{testSeq: ts, clk: clk}
}

// next returns the loop's next sleep, which must be until want (from t0).
func (ss *stagingSeq) next(t *testing.T, what string, want time.Duration) sleepCall {
	t.Helper()
	return ss.clk.next(t, what, want)
}

// firstFlashblock steps the loop through flashblock 1, empty: a staging round at 20 ms woken
// at 180 ms (the next, at 200 ms, would not come before the build's start), the build at
// 198 ms (the first lead is leadMargin), the publication at 200 ms.
func (ss *stagingSeq) firstFlashblock(t *testing.T) {
	t.Helper()
	const ms = time.Millisecond
	call := ss.next(t, "first staging round of flashblock 1", 20*ms)
	call.wake <- at(180 * ms)
	call = ss.next(t, "build of flashblock 1", 200*ms-leadMargin)
	call.wake <- call.until
	call = ss.next(t, "publication of flashblock 1", 200*ms)
	call.wake <- call.until
}

// stageFirst steps the loop through flashblock 1 and the first staging round of flashblock 2
// (at 220 ms), which stages tx, and returns the second round's sleep (240 ms), not yet woken.
func (ss *stagingSeq) stageFirst(t *testing.T, tx *types.Transaction) sleepCall {
	t.Helper()
	const ms = time.Millisecond
	ss.firstFlashblock(t)
	call := ss.next(t, "first staging round of flashblock 2", 220*ms)
	ss.send(t, tx)
	call.wake <- call.until
	call = ss.next(t, "second staging round", 240*ms)
	if got := ss.staged(); len(got) != 1 || got[0].Hash() != tx.Hash() {
		t.Fatalf("after the first round: staged %v, want [%s]", hashes(got), tx.Hash().TerminalString())
	}
	return call
}

// returns checks that fn returns, without an error, while the loop sleeps: what it waits for
// is not the timer's build.
func returns(t *testing.T, what string, fn func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	case <-time.After(30 * time.Second): // a hang guard, not a measurement
		t.Fatalf("%s waits for the staged flashblock", what)
	}
}

// staged returns the transactions the timer has staged and not published.
func (ss *stagingSeq) staged() []*types.Transaction {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.Sequencer.staged == nil {
		return nil
	}
	return ss.Sequencer.staged.spent
}

// wantInPool checks that the pool holds each of txs (in) or none of them.
func (ts *testSeq) wantInPool(t *testing.T, what string, in bool, txs ...*types.Transaction) {
	t.Helper()
	for _, tx := range txs {
		if got := ts.pool.Get(tx.Hash()) != nil; got != in {
			t.Fatalf("%s: %s in the pool %v, want %v", what, tx.Hash().TerminalString(), got, in)
		}
	}
}

// TestStaging runs the timer on a stepped clock: while it waits for a build it executes the
// pool's transactions into the next flashblock every 20 ms, unpublished, the transactions
// still in the pool; a sender's next nonce arriving between two rounds goes in behind the one
// staged; the build at the lead publishes them with what arrived since, at the deadline.
func TestStaging(t *testing.T) {
	ss := newStagingSeq(t)
	const ms = time.Millisecond
	// Flashblock 2: its build starts the lead (leadMargin: the first build took no time on
	// this clock) before 400 ms; the timer stages at 220, 240, ... until then.
	a := ss.tx(t, 0, 0, 1, big.NewInt(1))
	call := ss.stageFirst(t, a)
	if cur := ss.pre.Current(); cur.Index != 1 || len(cur.Block.Transactions()) != 0 {
		t.Fatalf("staged: pending is index %d with %d transactions, want index 1 and none", cur.Index, len(cur.Block.Transactions()))
	}
	ss.wantInPool(t, "staged", true, a)
	// The sender's next nonce and another sender's transaction, in the same round.
	b := ss.tx(t, 0, 1, 1, big.NewInt(1))
	c := ss.tx(t, 1, 0, 1, big.NewInt(1))
	ss.send(t, b, c)
	call.wake <- call.until
	call = ss.next(t, "third staging round", 260*ms)
	if got := ss.staged(); len(got) != 3 {
		t.Fatalf("after the second round: staged %v, want a and then b and c", hashes(got))
	}
	// The last round before the build: woken at 380 ms, the next round (400 ms) would not
	// come before the build starts.
	call.wake <- at(380 * ms)
	call = ss.next(t, "build of flashblock 2", 400*ms-leadMargin)
	d := ss.tx(t, 2, 0, 1, big.NewInt(1))
	ss.send(t, d) // arrives after the last round: the build takes it
	call.wake <- call.until
	call = ss.next(t, "publication of flashblock 2", 400*ms)
	if cur := ss.pre.Current(); cur.Index != 1 {
		t.Fatalf("before its deadline: pending is index %d, want 1", cur.Index)
	}
	call.wake <- call.until

	// Flashblock 2 is published, the block sealed with it.
	call = ss.next(t, "first staging round of flashblock 3", 420*ms)
	if err := ss.pre.WaitWritten(); err != nil {
		t.Fatal(err)
	}
	block := ss.chain.BlockByNumber(1)
	if block == nil {
		t.Fatal("block 1 is not sealed")
	}
	txs := block.Transactions()
	if len(txs) != 4 || txs[3].Hash() != d.Hash() {
		t.Fatalf("block 1: %v, want a, b and c (staged, a before b) and then d", hashes(txs))
	}
	if pos := map[common.Hash]int{txs[0].Hash(): 0, txs[1].Hash(): 1, txs[2].Hash(): 2}; pos[a.Hash()] > pos[b.Hash()] {
		t.Fatalf("block 1: %v, a after b", hashes(txs))
	}
	ss.wantInPool(t, "sealed", false, a, b, c, d)
	call.wake <- call.until
	_ = ss.next(t, "second staging round of flashblock 3", 440*ms)
}

// TestStagingYields: what the timer staged holds the block in progress, so a dev control
// (here a state cheat) publishes it first and then runs, instead of waiting for the timer;
// and a timer loop that stops publishes what it staged.
func TestStagingYields(t *testing.T) {
	ss := newStagingSeq(t)
	const ms = time.Millisecond
	a := ss.tx(t, 0, 0, 1, big.NewInt(1))
	call := ss.stageFirst(t, a)

	// The cheat, while the loop sleeps with a staged: a is published first.
	rich := common.Address{0xc4}
	returns(t, "the cheat", func() error {
		_, err := ss.Cheat(context.Background(), func(st *state.StateDB) {
			st.SetBalance(rich, uint256.NewInt(7), tracing.BalanceChangeUnspecified)
		})
		return err
	})
	if _, i, ok := ss.pre.View().Preconfirmed(a.Hash()); !ok || i != 0 {
		t.Fatalf("after the cheat: a pre-confirmed %v at position %d, want true, 0", ok, i)
	}
	ss.wantInPool(t, "after the cheat", false, a)
	var bal *uint256.Int
	ss.pre.Current().ReadState(func(st *state.StateDB) { bal = st.GetBalance(rich) })
	if bal.Uint64() != 7 {
		t.Fatalf("after the cheat: balance %v, want 7", bal)
	}

	// Another staged transaction, then the loop stops in its sleep.
	b := ss.tx(t, 1, 0, 1, big.NewInt(1))
	ss.send(t, b)
	call.wake <- call.until
	_ = ss.next(t, "third staging round", 260*ms)
	if len(ss.staged()) != 1 {
		t.Fatal("b is not staged")
	}
	ss.Close()
	if _, _, ok := ss.pre.View().Preconfirmed(b.Hash()); !ok {
		t.Fatal("after Close: b, staged, is not pre-confirmed")
	}
	ss.wantInPool(t, "after Close", false, b)
}

// TestAddUntil: a build adds for the first half of its lead (a block's last, which also
// commits the block's state, for a quarter), and one that starts late still for a half (a
// quarter).
func TestAddUntil(t *testing.T) {
	const ms = time.Millisecond
	for _, c := range []struct {
		name                 string
		until                func(deadline, begin, now time.Time) time.Time
		deadline, begin, now time.Duration
		want                 time.Duration
	}{
		{"on time, a lead of 100 ms", addUntil, 400 * ms, 300 * ms, 300 * ms, 350 * ms},
		{"started 30 ms into its lead", addUntil, 400 * ms, 300 * ms, 330 * ms, 380 * ms},
		{"started after its deadline", addUntil, 400 * ms, 300 * ms, 420 * ms, 470 * ms},
		{"a lead of 2 ms", addUntil, 400 * ms, 398 * ms, 398 * ms, 399 * ms},
		{"seal: on time, a lead of 100 ms", sealAddUntil, 400 * ms, 300 * ms, 300 * ms, 325 * ms},
		{"seal: started 30 ms into its lead", sealAddUntil, 400 * ms, 300 * ms, 330 * ms, 355 * ms},
		{"seal: started after its deadline", sealAddUntil, 400 * ms, 300 * ms, 420 * ms, 445 * ms},
		{"seal: a lead of 4 ms", sealAddUntil, 400 * ms, 396 * ms, 396 * ms, 397 * ms},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.until(at(c.deadline), at(c.begin), at(c.now)); got != at(c.want) {
				t.Errorf("until %v, want %v", got.Sub(t0), c.want)
			}
		})
	}
}

// TestBuildStopsAtUntil: a build adds nothing once the clock has passed its until, and
// everything the pool holds without one; what it left is taken by the next.
func TestBuildStopsAtUntil(t *testing.T) {
	ts := newTestSeq(t, txpool.Config{})
	txs := []*types.Transaction{ts.tx(t, 0, 0, 1, big.NewInt(1)), ts.tx(t, 1, 0, 1, big.NewInt(1))}
	ts.send(t, txs...)
	ts.mu.Lock()
	defer ts.mu.Unlock()
	snap, err := ts.preconfirmLocked(context.Background(), time.Now().Add(-time.Second), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(snap.Block.Transactions()); n != 0 {
		t.Fatalf("until passed: %d transactions pre-confirmed, want none", n)
	}
	ts.wantInPool(t, "left by a build past its until", true, txs...)
	if snap, err = ts.preconfirmLocked(context.Background(), time.Time{}, nil, false); err != nil {
		t.Fatal(err)
	}
	if n := len(snap.Block.Transactions()); n != 2 {
		t.Fatalf("no until: %d transactions pre-confirmed, want 2", n)
	}
}

// TestStagingDevControls: the controls that drop pre-confirmed transactions (dev_seal with a
// list, evm_revert's Rewind) publish what is staged first and then give it back to the pool,
// since no reader saw it; WaitWritten (evm_snapshot, anvil_dumpState) does not wait for the
// timer's build.
func TestStagingDevControls(t *testing.T) {
	ss := newStagingSeq(t)
	const ms = time.Millisecond
	ctx := context.Background()
	a := ss.tx(t, 0, 0, 1, big.NewInt(1))
	call := ss.stageFirst(t, a)
	returns(t, "WaitWritten", ss.WaitWritten)
	ss.wantInPool(t, "published by WaitWritten", false, a)

	// dev_seal with an empty list: a, published first, is left out of the block and returned.
	b := ss.tx(t, 1, 0, 1, big.NewInt(1))
	ss.send(t, b)
	call.wake <- call.until
	call = ss.next(t, "third staging round", 260*ms)
	if got := ss.staged(); len(got) != 1 || got[0].Hash() != b.Hash() {
		t.Fatalf("staged %v, want [b]", hashes(got))
	}
	block, err := ss.SealSelected(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tx := range block.Transactions() {
		if tx.Hash() == b.Hash() {
			t.Fatal("b sealed without being listed")
		}
	}
	ss.wantInPool(t, "staged, left out of dev_seal's list", true, b)

	// Rewind to the head: the block in progress goes, and what was staged in it comes back.
	call.wake <- call.until
	call = ss.next(t, "fourth staging round", 280*ms)
	if got := ss.staged(); len(got) != 1 || got[0].Hash() != b.Hash() {
		t.Fatalf("staged %v, want [b] again", hashes(got))
	}
	if err := ss.Rewind(ctx, ss.chain.Head().Number.Uint64(), 0, nil); err != nil {
		t.Fatal(err)
	}
	ss.wantInPool(t, "staged, then rewound", true, b)
	if _, _, ok := ss.pre.View().Preconfirmed(b.Hash()); ok {
		t.Fatal("after the rewind: b is pre-confirmed")
	}
	call.wake <- call.until
	_ = ss.next(t, "fifth staging round", 300*ms)
}
