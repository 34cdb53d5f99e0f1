package sequencer

import (
	"bytes"
	"log/slog"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flashrpc/flashrpc/internal/txpool"
)

const testInterval = 200 * time.Millisecond

var t0 = time.Unix(1_900_000_000, 0)

func at(d time.Duration) time.Time { return t0.Add(d) }

// TestSchedulePlan checks the deadlines the schedule plans and when their builds start: on
// time, late (a deadline passed by up to an interval is kept and built at once) and after a
// stall (deadlines passed by more than an interval are skipped).
func TestSchedulePlan(t *testing.T) {
	t.Parallel()
	const ms = time.Millisecond
	tests := []struct {
		name         string
		builds       []time.Duration // observed before planning
		planned      int             // flashblocks planned before
		now          time.Duration   // since the start
		wantDeadline time.Duration
		wantBegin    time.Duration
		wantSkipped  int64
	}{
		{"first, no builds yet", nil, 0, 0, 200 * ms, 198 * ms, 0},
		{"third, on time", nil, 2, 400 * ms, 600 * ms, 598 * ms, 0},
		{"lead from the builds", []time.Duration{4 * ms, 10 * ms, 6 * ms}, 0, 0, 200 * ms, 183 * ms, 0},
		{"lead at most half an interval", []time.Duration{90 * ms}, 0, 0, 200 * ms, 100 * ms, 0},
		{"late by less than an interval: kept", nil, 0, 350 * ms, 200 * ms, 198 * ms, 0},
		{"late by exactly an interval: kept", nil, 0, 400 * ms, 200 * ms, 198 * ms, 0},
		{"late by more than an interval: skipped", nil, 0, 401 * ms, 400 * ms, 398 * ms, 1},
		{"a stall of a second", nil, 1, 1450 * ms, 1400 * ms, 1398 * ms, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSchedule(testInterval, t0)
			for _, b := range tt.builds {
				s.observe(b)
			}
			for range tt.planned {
				s.plan(t0)
			}
			deadline, begin, skipped := s.plan(at(tt.now))
			if deadline != at(tt.wantDeadline) || begin != at(tt.wantBegin) || skipped != tt.wantSkipped {
				t.Fatalf("got deadline %v, begin %v, skipped %d; want %v, %v, %d", deadline.Sub(t0), begin.Sub(t0), skipped, tt.wantDeadline, tt.wantBegin, tt.wantSkipped)
			}
			// The next flashblock is the one after the planned one.
			if next, _, _ := s.plan(deadline); next != deadline.Add(testInterval) {
				t.Fatalf("next deadline %v, want %v", next.Sub(t0), deadline.Add(testInterval).Sub(t0))
			}
		})
	}
}

// TestScheduleLead checks that the lead follows the recent builds: a few milliseconds when they
// are quick, 1.5 × the slowest plus a margin under load, half an interval at most, and quick
// again once a slow build is buildHistory builds old.
func TestScheduleLead(t *testing.T) {
	t.Parallel()
	s := newSchedule(testInterval, t0)
	if got, want := s.lead(), leadMargin; got != want {
		t.Fatalf("no builds: lead %v, want %v", got, want)
	}
	s.observe(0)
	if got := s.lead(); got < minLead || got > 5*time.Millisecond {
		t.Fatalf("instant builds: lead %v, want a few ms", got)
	}
	s.observe(40 * time.Millisecond)
	if got, want := s.lead(), 62*time.Millisecond; got != want {
		t.Fatalf("a 40 ms build: lead %v, want %v", got, want)
	}
	s.observe(300 * time.Millisecond)
	if got, want := s.lead(), testInterval/2; got != want {
		t.Fatalf("a 300 ms build: lead %v, want at most %v", got, want)
	}
	for i := range buildHistory - 1 {
		s.observe(time.Millisecond)
		if got := s.lead(); got != testInterval/2 {
			t.Fatalf("%d quick builds after the slow one: lead %v, want still %v", i+1, got, testInterval/2)
		}
	}
	s.observe(time.Millisecond)
	if got, want := s.lead(), 3500*time.Microsecond; got != want {
		t.Fatalf("the slow build aged out: lead %v, want %v", got, want)
	}
	if got := newSchedule(2*time.Millisecond, t0).lead(); got != time.Millisecond {
		t.Fatalf("a 2 ms interval: lead %v, want half of it", got)
	}
}

// TestScheduleSealLead: the builds of blocks' last flashblocks, which also commit the block's
// state, set their own lead and leave the other flashblocks' alone, and the other way round.
func TestScheduleSealLead(t *testing.T) {
	t.Parallel()
	s := newSchedule(testInterval, t0)
	s.observe(10 * time.Millisecond)
	s.observeSeal(40 * time.Millisecond)
	if got, want := s.lead(), 17*time.Millisecond; got != want {
		t.Fatalf("lead %v beside a 40 ms seal build, want %v (the 10 ms build's)", got, want)
	}
	if got, want := s.sealLead(), 62*time.Millisecond; got != want {
		t.Fatalf("seal lead %v, want %v (the 40 ms seal build's)", got, want)
	}
	s.observe(80 * time.Millisecond)
	if got, want := s.sealLead(), 62*time.Millisecond; got != want {
		t.Fatalf("seal lead %v after an 80 ms flashblock build, want still %v", got, want)
	}
}

// stepClock is a loopClock the test steps: each sleep is handed to the test, which says when
// the loop wakes. Its time moves only then.
type stepClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps chan sleepCall
}

type sleepCall struct {
	until time.Time
	wake  chan time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) SleepUntil(t time.Time, stop <-chan struct{}) bool {
	if !t.After(c.Now()) {
		select {
		case <-stop:
			return false
		default:
			return true
		}
	}
	call := sleepCall{until: t, wake: make(chan time.Time)}
	select {
	case c.sleeps <- call:
	case <-stop:
		return false
	}
	select {
	case now := <-call.wake:
		c.mu.Lock()
		c.now = now
		c.mu.Unlock()
		return true
	case <-stop:
		return false
	}
}

// next returns the loop's next sleep, which must be until want (from t0).
func (c *stepClock) next(t *testing.T, what string, want time.Duration) sleepCall {
	t.Helper()
	select {
	case call := <-c.sleeps:
		if call.until != at(want) {
			t.Fatalf("%s: the loop sleeps until %v, want %v", what, call.until.Sub(t0), want)
		}
		return call
	case <-time.After(30 * time.Second): // a hang guard, not a measurement
		t.Fatalf("%s: the loop does not sleep", what)
		return sleepCall{}
	}
}

// TestCadence runs the timer loop on a stepped clock, two flashblocks a block: a flashblock
// built before its deadline is not published before it, a late one is published at once (and
// the lead grows), and after a stall the deadlines passed by more than an interval are skipped.
func TestCadence(t *testing.T) {
	clk := &stepClock{now: t0, sleeps: make(chan sleepCall)}
	logged := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ts := newTestSeqTimed(t, txpool.Config{}, Config{PreconfInterval: testInterval, BlockTime: 2 * testInterval, Logger: logger}, clk)
	next := func(what string, want time.Duration) sleepCall {
		t.Helper()
		return clk.next(t, what, want)
	}
	const ms = time.Millisecond

	// Flashblock 1: its build starts the initial lead (leadMargin) before its deadline and,
	// done at once on this clock, waits for the deadline unpublished.
	call := next("build of flashblock 1", 200*ms-leadMargin)
	a := ts.tx(t, 0, 0, 1, big.NewInt(1))
	ts.send(t, a)
	call.wake <- call.until
	call = next("publication of flashblock 1", 200*ms)
	if cur := ts.pre.Current(); cur.Index != 0 {
		t.Fatalf("before its deadline: pending is index %d, want 0", cur.Index)
	}
	if _, _, ok := ts.pre.View().Preconfirmed(a.Hash()); ok {
		t.Fatal("before its deadline: the transaction is pre-confirmed")
	}
	call.wake <- call.until

	// Flashblock 2, the block's last: its build starts late (the timer woke 5 ms after the
	// deadline), so it is published at once, without a sleep, and the block is sealed.
	call = next("build of flashblock 2", 400*ms-leadMargin)
	if _, i, ok := ts.pre.View().Preconfirmed(a.Hash()); !ok || i != 0 || ts.pre.Current().Index != 1 {
		t.Fatalf("at its deadline: transaction pre-confirmed %v at %d, pending index %d; want true, 0, 1", ok, i, ts.pre.Current().Index)
	}
	b := ts.tx(t, 1, 0, 1, big.NewInt(1))
	ts.send(t, b)
	call.wake <- at(405 * ms)
	// The late build took 7 ms from its planned start. It sealed the block, so it sets the
	// lead of blocks' last flashblocks (1.5 × 7 + 2 ms), not flashblock 3's.
	call = next("build of flashblock 3", 600*ms-leadMargin)
	if cur := ts.pre.Current(); cur.Number() != 2 || cur.Index != 0 {
		t.Fatalf("after the seal: pending is block %d index %d, want 2, 0", cur.Number(), cur.Index)
	}
	if err := ts.pre.WaitWritten(); err != nil {
		t.Fatal(err)
	}
	ts.mu.Lock()
	sealed := ts.sealed
	ts.mu.Unlock()
	wantTxs(t, "block 1", sealed.Transactions(), a, b)
	// Each build's debug line: flashblock 1 ready at its start, 2 ms (the lead) ahead of its
	// deadline, with no state commit; flashblock 2, the block's last, 5 ms late, 7 ms from its
	// planned start, with the state commit that seals the block.
	built := builtLines(t, logged.String())
	if len(built) != 2 {
		t.Fatalf("%d built-flashblock lines after two builds: %v", len(built), built)
	}
	for i, want := range []map[string]string{
		{"number": "1", "index": "1", "kind": "first", "txs": "1", "staged": "0", "took": "0s", "ahead": "2ms", "lead": "2ms", "commit": "0s"},
		{"number": "1", "index": "2", "kind": "last", "txs": "1", "staged": "0", "took": "7ms", "ahead": "-5ms", "lead": "2ms"},
	} {
		for key, v := range want {
			if built[i][key] != v {
				t.Errorf("build %d: %s=%s, want %s (%v)", i+1, key, built[i][key], v, built[i])
			}
		}
		// Every duration the benchmark reads (scripts/bench/sequencer, buildlog.go) parses.
		for _, key := range []string{"took", "ahead", "roots", "assembly", "commit"} {
			if _, err := time.ParseDuration(built[i][key]); err != nil {
				t.Errorf("build %d: %s=%q: %v", i+1, key, built[i][key], err)
			}
		}
	}
	if d, err := time.ParseDuration(built[1]["commit"]); err != nil || d <= 0 {
		t.Errorf("the sealing build's commit=%s, want its state commit's time", built[1]["commit"])
	}

	// A stall: the loop wakes 450 ms after flashblock 3's deadline. Flashblock 3 is published
	// at once; flashblock 4's deadline (800 ms) has passed by more than an interval and is
	// skipped; flashblock 5's (1,000 ms) is built at once and published late, which seals block
	// 2; the lead is now half an interval, so flashblock 6 (1,200 ms) starts at 1,100 ms.
	call.wake <- at(1050 * ms)
	next("build of the flashblock due at 1,200 ms", 1100*ms)
	if cur := ts.pre.Current(); cur.Number() != 3 || cur.Index != 0 {
		t.Fatalf("after the stall: pending is block %d index %d, want 3, 0 (two flashblocks built, one skipped)", cur.Number(), cur.Index)
	}
}

// TestWallClockStops: the real clock's SleepUntil reports a closed stop even when the time
// slept to has passed. Under sustained load every build starts late, so the timer loop only
// ever sleeps until past times: without this, Close would wait for it for ever.
func TestWallClockStops(t *testing.T) {
	stop := make(chan struct{})
	if !(wallClock{}).SleepUntil(time.Now().Add(-time.Second), stop) {
		t.Fatal("SleepUntil a past time, stop open: false, want true")
	}
	close(stop)
	if (wallClock{}).SleepUntil(time.Now().Add(-time.Second), stop) {
		t.Fatal("SleepUntil a past time, stop closed: true, want false (the loop would not stop)")
	}
	if (wallClock{}).SleepUntil(time.Now().Add(time.Hour), stop) {
		t.Fatal("SleepUntil a future time, stop closed: true, want false")
	}
}

// builtLines returns the fields of the `built flashblock` lines of a text log.
func builtLines(t *testing.T, log string) []map[string]string {
	t.Helper()
	var out []map[string]string
	for _, line := range strings.Split(log, "\n") {
		if !strings.Contains(line, `msg="built flashblock"`) {
			continue
		}
		kv := map[string]string{}
		for _, f := range strings.Fields(line) {
			if k, v, ok := strings.Cut(f, "="); ok {
				kv[k] = v
			}
		}
		out = append(out, kv)
	}
	return out
}

// syncBuffer is a bytes.Buffer safe for a logger on another goroutine.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
