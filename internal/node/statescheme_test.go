package node

import (
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/flashrpc/flashrpc/internal/chain"
)

// TestPathSchemeDevAndReplica: a dev chain and a replica with local state, both with
// --state.scheme path: the replica takes the primary's blocks with the same hashes, reads an
// old state through its state history, and answers a state older than what it keeps with the
// error naming --history.state; both come back with their scheme after a restart.
func TestPathSchemeDevAndReplica(t *testing.T) {
	const keep = 4
	cfg := testConfig(t.TempDir())
	cfg.StateScheme = chain.SchemePath
	up, err := StartDev(cfg)
	if err != nil {
		t.Fatal(err)
	}
	up.Endpoints().Serve()
	stopped := false
	defer func() {
		if !stopped {
			stopDev(t, up)
		}
	}()
	if s := up.Chain().Scheme(); s != chain.SchemePath {
		t.Fatalf("dev chain's scheme %s", s)
	}
	rpc := dial(t, up.Endpoints()[0])
	const blocks = 140 // past the 128 blocks the path scheme keeps in memory
	for range blocks {
		seal(t, rpc)
	}
	fc := followConfig(up, t.TempDir())
	fc.StateScheme = chain.SchemePath
	history := uint64(keep)
	fc.StateHistory = &history
	r, err := StartFollow(fc)
	if err != nil {
		t.Fatal(err)
	}
	r.Endpoints().Serve()
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Error(err)
		}
	})
	if s := r.Chain().Scheme(); s != chain.SchemePath {
		t.Fatalf("replica's scheme %s", s)
	}
	deadline := time.Now().Add(60 * time.Second)
	for r.Chain().Head().Number.Uint64() < blocks {
		if time.Now().After(deadline) {
			t.Fatalf("replica at block %d, want %d", r.Chain().Head().Number, blocks)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got, want := r.Chain().Head().Hash(), up.Chain().HeaderByNumber(blocks).Hash(); got != want {
		t.Fatalf("block %d: replica %s, primary %s", blocks, got, want)
	}
	// Block 2 is below the replica's memory layers and its 4 blocks of history.
	var balance string
	err = dial(t, r.Endpoints()[0]).Call(&balance, "eth_getBalance", common.Address{}, "0x2")
	want := "historical state for block 2 is not available: the node keeps the state of the last 4 blocks (--state.scheme path --history.state 4); use --state.scheme hash for an archive"
	if err == nil || err.Error() != want {
		t.Fatalf("eth_getBalance at block 2 on the replica: %v, want %q", err, want)
	}
	// The primary keeps 90,000 blocks of history: block 2 is read through it once indexed,
	// which go-ethereum starts when it opens a chain whose head is recent (a new chain waits
	// for its check a minute later). Restarted without a scheme, it keeps the datadir's.
	stopDev(t, up)
	stopped = true
	cfg.StateScheme = ""
	up = startTestDev(t, cfg)
	if s := up.Chain().Scheme(); s != chain.SchemePath {
		t.Fatalf("restarted dev chain's scheme %s, want the datadir's (path)", s)
	}
	rpc = dial(t, up.Endpoints()[0])
	waitIndexed := time.Now().Add(60 * time.Second)
	for {
		err := rpc.Call(&balance, "eth_getBalance", common.Address{}, "0x2")
		if err == nil {
			break
		}
		if !strings.Contains(err.Error(), "being indexed") || time.Now().After(waitIndexed) {
			t.Fatalf("eth_getBalance at block 2 on the primary: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
