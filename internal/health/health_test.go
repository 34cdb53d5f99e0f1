package health

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// TestFollowRules covers the probes and rules follow mode will use: the upstream's head and
// the lag behind it against --health.max-lag, and the feed's connection.
func TestFollowRules(t *testing.T) {
	t.Parallel()
	u := func(n uint64) *uint64 { return &n }
	cases := []struct {
		name         string
		head         uint64
		upstream     uint64
		upstreamOK   bool
		feedUp       bool
		wantOK       bool
		wantLag      *uint64
		wantProblems []string // substrings, one per problem
	}{
		{name: "in step", head: 100, upstream: 100, upstreamOK: true, feedUp: true, wantOK: true, wantLag: u(0)},
		{name: "within max lag", head: 98, upstream: 100, upstreamOK: true, feedUp: true, wantOK: true, wantLag: u(2)},
		{name: "ahead of upstream", head: 101, upstream: 100, upstreamOK: true, feedUp: true, wantOK: true, wantLag: u(0)},
		{name: "over max lag", head: 97, upstream: 100, upstreamOK: true, feedUp: true, wantLag: u(3), wantProblems: []string{"3 blocks behind the upstream (head 97, upstream 100; --health.max-lag 2)"}},
		{name: "upstream unknown", head: 5, feedUp: true, wantProblems: []string{"upstream head unknown"}},
		{name: "feed down", head: 100, upstream: 100, upstreamOK: true, wantLag: u(0), wantProblems: []string{"flashblocks feed disconnected"}},
		{name: "both", head: 10, upstream: 100, upstreamOK: true, wantLag: u(90), wantProblems: []string{"90 blocks behind", "feed disconnected"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := New(Config{
				Probes: []Probe{
					func(s *Status) { s.Head = tc.head },
					Upstream(func() (uint64, bool) { return tc.upstream, tc.upstreamOK }),
					Feed(func() bool { return tc.feedUp }),
				},
				Rules: []Rule{MaxLag(2), FeedConnected()},
			})
			s, ok := c.Check()
			if ok != tc.wantOK {
				t.Errorf("ok = %v, want %v (problems %q)", ok, tc.wantOK, s.Problems)
			}
			if (s.Lag == nil) != (tc.wantLag == nil) || (s.Lag != nil && *s.Lag != *tc.wantLag) {
				t.Errorf("lag = %v, want %v", s.Lag, tc.wantLag)
			}
			if len(s.Problems) != len(tc.wantProblems) {
				t.Fatalf("problems %q, want %d", s.Problems, len(tc.wantProblems))
			}
			for i, want := range tc.wantProblems {
				if !strings.Contains(s.Problems[i], want) {
					t.Errorf("problem %d = %q, want it to contain %q", i, s.Problems[i], want)
				}
			}
			wantFeed := FeedDown
			if tc.feedUp {
				wantFeed = FeedUp
			}
			if s.Feed == nil || *s.Feed != wantFeed {
				t.Errorf("feed = %v, want %q", s.Feed, wantFeed)
			}
		})
	}
}

// TestServeHTTP checks the HTTP answer: the JSON fields, null where nothing applies, 200
// when fit and 503 with the same JSON and the problems when not.
func TestServeHTTP(t *testing.T) {
	t.Parallel()
	for _, fit := range []bool{true, false} {
		c := New(Config{
			Probes: []Probe{func(s *Status) { s.Head = 7 }},
			Rules: []Rule{func(*Status, time.Time) string {
				if fit {
					return ""
				}
				return "broken"
			}},
		})
		rec := httptest.NewRecorder()
		c.ServeHTTP(rec, httptest.NewRequest("GET", "/health", nil))
		wantCode, wantBody := http.StatusOK, `{"head":7,"upstreamHead":null,"lag":null,"pendingIndex":null,"feed":null}`
		if !fit {
			wantCode, wantBody = http.StatusServiceUnavailable, `{"head":7,"upstreamHead":null,"lag":null,"pendingIndex":null,"feed":null,"problems":["broken"]}`
		}
		if rec.Code != wantCode || strings.TrimSpace(rec.Body.String()) != wantBody || rec.Header().Get("Content-Type") != "application/json" {
			t.Errorf("fit=%v: %d %s (%s), want %d %s", fit, rec.Code, rec.Body, rec.Header().Get("Content-Type"), wantCode, wantBody)
		}
	}
}

// clock is a manual clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// TestDevRules runs the dev chain's probes and rules on a real chain and block in progress:
// healthy while blocks are sealed, 503 after five block times without one, healthy again
// after the next seal; pendingIndex follows the pre-confirmations.
func TestDevRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, err := chain.Open(chain.Config{DataDir: t.TempDir(), Genesis: chain.DevGenesis(chain.DefaultChainID, nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p := preconf.New(c)
	clk := &clock{now: time.Unix(1_800_000_000, 0)}
	chk := New(Config{
		Probes: []Probe{Head(c), Pending(p)},
		Rules:  []Rule{Sealing(c, 2*time.Second, clk.Now)},
		Now:    clk.Now,
	})
	check := func(step string, wantOK bool, wantHead uint64, wantIndex *int) {
		t.Helper()
		s, ok := chk.Check()
		if ok != wantOK || s.Head != wantHead || (s.PendingIndex == nil) != (wantIndex == nil) || (wantIndex != nil && *s.PendingIndex != *wantIndex) {
			b, _ := json.Marshal(s)
			t.Errorf("%s: ok %v %s; want ok %v, head %d, pendingIndex %v", step, ok, b, wantOK, wantHead, wantIndex)
		}
		if s.UpstreamHead != nil || s.Lag != nil || s.Feed != nil {
			t.Errorf("%s: follow fields set in dev: %+v", step, s)
		}
	}
	idx := func(i int) *int { return &i }

	check("start", true, 0, nil)
	head := c.Head()
	if _, err := p.Open(ctx, preconf.NextAttributes(c.Config(), head, head.Time+1, common.Address{}, nil), preconf.PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	check("block open", true, 0, idx(0))
	clk.advance(10 * time.Second)
	check("five block times", true, 0, idx(0))
	clk.advance(time.Millisecond)
	check("past five block times", false, 0, idx(0))
	s, _ := chk.Check()
	if len(s.Problems) != 1 || !strings.Contains(s.Problems[0], "no block sealed for 10.001s (block time 2s") {
		t.Errorf("problems %q", s.Problems)
	}
	if _, err := p.Seal(ctx); err != nil {
		t.Fatal(err)
	}
	check("sealed", true, 1, nil)

	// A sequencer that seals on request only is never judged.
	onRequest := New(Config{Probes: []Probe{Head(c)}, Rules: []Rule{Sealing(c, 0, clk.Now)}, Now: clk.Now})
	clk.advance(time.Hour)
	if _, ok := onRequest.Check(); !ok {
		t.Error("block time 0: unhealthy")
	}
	if s, _ := chk.Check(); !slices.ContainsFunc(s.Problems, func(p string) bool { return strings.Contains(p, "no block sealed for 1h0m0s") }) {
		t.Errorf("an hour later: problems %q", s.Problems)
	}

	// A block time changed at runtime (SealingTimer): off is never judged; a new block time
	// counts from when it took effect.
	blockTime, since := time.Duration(0), clk.Now()
	timed := New(Config{Probes: []Probe{Head(c)}, Rules: []Rule{SealingTimer(c, func() (time.Duration, time.Time) { return blockTime, since }, clk.Now)}, Now: clk.Now})
	clk.advance(time.Hour)
	if _, ok := timed.Check(); !ok {
		t.Error("timer off: unhealthy")
	}
	blockTime, since = time.Second, clk.Now()
	clk.advance(5 * time.Second)
	if _, ok := timed.Check(); !ok {
		t.Error("five block times after the timer came back: unhealthy")
	}
	clk.advance(time.Millisecond)
	if s, ok := timed.Check(); ok || !strings.Contains(strings.Join(s.Problems, ""), "no block sealed for 5.001s (block time 1s") {
		t.Errorf("past five block times after the timer came back: ok %v, problems %q", ok, s.Problems)
	}
}
