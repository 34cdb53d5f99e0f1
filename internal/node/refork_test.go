package node

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flashrpc/flashrpc/internal/fork"
	"github.com/flashrpc/flashrpc/internal/networks"
)

var errInjected = errors.New("injected failure")

// TestReforkAtomic injects a failure at each step of a re-fork, with and without a data
// directory, and checks that the node goes on serving the chain it served (the same fork
// block and head on its endpoint) and sealing on it, that a datadir is left as it was, and
// that a re-fork without a failure then succeeds.
func TestReforkAtomic(t *testing.T) {
	ctx := context.Background()
	up := startTestDev(t, testConfig(""))
	upc := dial(t, up.Endpoints()[0])
	for range 3 {
		seal(t, upc)
	}
	one, two := int64(1), int64(2)
	forkConfig := func(dataDir string) DevConfig {
		cfg := testConfig(dataDir)
		cfg.Fork = Fork{URL: up.Endpoints()[0].URL(), Block: &one}
		return cfg
	}
	steps := map[string][]reforkStep{
		"tempdir": {stepOpen, stepBuild, stepStart},
		"datadir": {stepOpen, stepCloseNew, stepStopOld, stepSwap, stepReopen, stepBuild, stepStart},
	}
	for _, mode := range []string{"tempdir", "datadir"} {
		for _, step := range steps[mode] {
			t.Run(mode+"/"+string(step), func(t *testing.T) {
				dataDir := ""
				if mode == "datadir" {
					dataDir = t.TempDir()
				}
				n := startTestDev(t, forkConfig(dataDir))
				c := dial(t, n.Endpoints()[0])
				seal(t, c) // a local block on the fork: block 2
				before := blockNumber(t, c)

				err := n.refork(ctx, ForkRequest{Block: &two}, func(s reforkStep) error {
					if s == step {
						return errInjected
					}
					return nil
				})
				if !errors.Is(err, errInjected) {
					t.Fatalf("re-fork with a failure at %q: %v, want the injected failure", step, err)
				}
				if got := fork.Of(n.Chain()).Info().Number; got != 1 {
					t.Fatalf("after the failed re-fork the chain forks block %d, want 1", got)
				}
				if got := blockNumber(t, c); got != before {
					t.Fatalf("after the failed re-fork the endpoint serves head %d, want %d", got, before)
				}
				seal(t, c)
				if got := blockNumber(t, c); got != before+1 {
					t.Fatalf("after the failed re-fork a seal gives head %d, want %d", got, before+1)
				}
				if dataDir != "" {
					for _, name := range []string{"refork", "chaindata.old"} {
						if _, err := os.Stat(filepath.Join(dataDir, name)); !errors.Is(err, os.ErrNotExist) {
							t.Errorf("after the failed re-fork the datadir holds %s (%v)", name, err)
						}
					}
				}

				// The node is whole: a re-fork without a failure succeeds and seals.
				if err := n.Refork(ctx, ForkRequest{Block: &two}); err != nil {
					t.Fatalf("re-fork after the failed one: %v", err)
				}
				if got := fork.Of(n.Chain()).Info().Number; got != 2 {
					t.Fatalf("after the re-fork the chain forks block %d, want 2", got)
				}
				seal(t, c)
				if got := blockNumber(t, c); got != 4 {
					t.Fatalf("after the re-fork and a seal the head is %d, want 4", got)
				}
				if dataDir != "" {
					// A restart resumes the new fork from the datadir.
					stopDev(t, n)
					cfg := testConfig(dataDir)
					r, err := StartDev(cfg)
					if err != nil {
						t.Fatalf("restart: %v", err)
					}
					defer stopDev(t, r)
					if got, head := fork.Of(r.Chain()).Info().Number, r.Chain().Head().Number.Uint64(); got != 2 || head != 4 {
						t.Fatalf("restart: fork of block %d at head %d, want 2 and 4", got, head)
					}
					// A node that resumed the fork (no fork URL given) restarts it after a failure too.
					r.Endpoints().Serve()
					rc := dial(t, r.Endpoints()[0])
					err = r.refork(ctx, ForkRequest{Block: &one}, func(s reforkStep) error {
						if s == step {
							return errInjected
						}
						return nil
					})
					if !errors.Is(err, errInjected) {
						t.Fatalf("re-fork of the resumed fork with a failure at %q: %v", step, err)
					}
					seal(t, rc)
					if got, head := fork.Of(r.Chain()).Info().Number, blockNumber(t, rc); got != 2 || head != 5 {
						t.Fatalf("after the failed re-fork of the resumed fork: fork of block %d at head %d, want 2 and 5", got, head)
					}
				}
			})
		}
	}
}

// lockedBuffer is a bytes.Buffer the node's goroutines may log into.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestReforkLogSaysWhy: a re-fork with a datadir reopens the fork it created without asking
// the upstream again, and its log line says so, not that --fork-chain-id (never given) asked
// for an offline start.
func TestReforkLogSaysWhy(t *testing.T) {
	up := startTestDev(t, testConfig(""))
	upc := dial(t, up.Endpoints()[0])
	for range 2 {
		seal(t, upc)
	}
	one, two := int64(1), int64(2)
	var logs lockedBuffer
	cfg := testConfig(t.TempDir())
	cfg.Fork = Fork{URL: up.Endpoints()[0].URL(), Block: &one}
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	n := startTestDev(t, cfg)
	if err := n.Refork(context.Background(), ForkRequest{Block: &two}); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	if !strings.Contains(out, `msg="fork: resuming the stored fork without asking the upstream" why="re-fork: reopening the fork just created"`) {
		t.Errorf("no log line saying the re-fork reopens its new fork:\n%s", out)
	}
	if strings.Contains(out, "--fork-chain-id") {
		t.Errorf("the log names --fork-chain-id, which was not given:\n%s", out)
	}
}

// TestReforkDenimCadence re-forks a node between an upstream that runs Denim and one that
// does not, with the flags' default cadence (2 s blocks, 200 ms pre-confirmations, neither
// given explicitly): each new chain gets its own cadence, Denim's 200 ms blocks without
// pre-confirmations or the defaults, not the previous chain's.
func TestReforkDenimCadence(t *testing.T) {
	ctx := context.Background()
	denimCfg := testConfig("")
	denimCfg.Network = "base-mainnet"
	denimCfg.Explicit.BlockTime = true // sealed on request
	denimUp := startTestDev(t, denimCfg)
	plainUp := startTestDev(t, testConfig(""))
	seal(t, dial(t, denimUp.Endpoints()[0]))
	seal(t, dial(t, plainUp.Endpoints()[0]))

	cfg := testConfig("")
	cfg.BlockTime, cfg.PreconfInterval = 2*time.Second, 200*time.Millisecond
	cfg.Fork = Fork{URL: plainUp.Endpoints()[0].URL()}
	n := startTestDev(t, cfg)
	check := func(what string, denim bool, blockTime, interval time.Duration) {
		t.Helper()
		if d := n.Chain().Denim(); (d != nil) != denim {
			t.Fatalf("%s: the chain's Denim %v, want Denim %v", what, d, denim)
		}
		got := n.Config()
		if got.BlockTime != blockTime || got.PreconfInterval != interval {
			t.Fatalf("%s: cadence %s / %s, want %s / %s", what, got.BlockTime, got.PreconfInterval, blockTime, interval)
		}
		n.mu.Lock()
		seqTime := n.cur.seq.BlockTime()
		n.mu.Unlock()
		if seqTime != blockTime {
			t.Fatalf("%s: the sequencer seals every %s, want %s", what, seqTime, blockTime)
		}
	}
	check("fork of a chain without Denim", false, 2*time.Second, 200*time.Millisecond)
	if err := n.Refork(ctx, ForkRequest{URL: denimUp.Endpoints()[0].URL()}); err != nil {
		t.Fatal(err)
	}
	check("re-fork of a Denim chain", true, networks.DenimBlockTime, 0)
	if err := n.Refork(ctx, ForkRequest{URL: plainUp.Endpoints()[0].URL()}); err != nil {
		t.Fatal(err)
	}
	check("re-fork of a chain without Denim again", false, 2*time.Second, 200*time.Millisecond)

	// An explicit interval against a fork that runs Denim is refused once the fork is made:
	// the error says that the datadir holds it.
	dir := t.TempDir()
	bad := testConfig(dir)
	bad.BlockTime, bad.PreconfInterval, bad.Explicit.PreconfInterval = 2*time.Second, 200*time.Millisecond, true
	bad.Fork = Fork{URL: denimUp.Endpoints()[0].URL()}
	if r, err := StartDev(bad); err == nil {
		stopDev(t, r)
		t.Fatal("a fork of a Denim chain started with --preconf-interval")
	} else if !strings.Contains(err.Error(), "--preconf-interval") || !strings.Contains(err.Error(), dir) {
		t.Fatalf("error %q, want one naming --preconf-interval and the datadir holding the fork", err)
	}
}
