package fork_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb/pebble"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/fork"
	"github.com/flashrpc/flashrpc/internal/networks"
)

// rehearsalChainID is a registry chain (rehearsal-0-bn-0) whose configuration schedules
// lagoon_time 1749150000, a fork flashrpc does not run.
const rehearsalChainID = 420120009

// TestForkRefusesForkNotRun forks an upstream whose chain id names a registry chain with
// Lagoon active at the fork block: the fork (dev or replica) is refused before anything is
// written, the error naming the fork, its activation and the block; the same upstream blocks
// under a chain id that names no network fork as before.
func TestForkRefusesForkNotRun(t *testing.T) {
	t.Parallel()
	key, _ := crypto.HexToECDSA("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
	upstreamAt := func(chainID uint64) *upstream {
		g := chain.DevGenesis(chainID, []common.Address{crypto.PubkeyToAddress(key.PublicKey)})
		g.Timestamp = 1749150000 // lagoon_time: every block is past it
		return serveUpstream(t, g, key)
	}
	up := upstreamAt(rehearsalChainID)
	b1 := up.set(t) // block 1, time 1749150002
	for _, replica := range []bool{false, true} {
		fc := forkConfig(up.url, 1)
		fc.Replica = replica
		_, err := fork.Open(context.Background(), chain.Config{DataDir: t.TempDir()}, fc)
		var nr *networks.NotRunError
		if !errors.As(err, &nr) || nr.Fork.Name != "lagoon" || nr.Number != 1 || nr.Time != b1.Time() {
			t.Fatalf("replica %v: fork of block 1: %v, want lagoon's refusal at block 1", replica, err)
		}
		want := "fork lagoon (activation 1749150000) is active at block 1 (time 1749150002)"
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("error %q lacks %q", err, want)
		}
	}

	other := upstreamAt(31337)
	other.set(t)
	c, err := fork.Open(context.Background(), chain.Config{DataDir: t.TempDir()}, forkConfig(other.url, 1))
	if err != nil {
		t.Fatalf("fork of a chain no network names: %v", err)
	}
	c.Close()
}

// TestForkResumeRefusesForkNotRun resumes a fork whose stored rules schedule a fork flashrpc
// does not run at its fork block (as a datadir written by a flashrpc that ran it with older
// rules would): the resume is refused, naming the fork.
func TestForkResumeRefusesForkNotRun(t *testing.T) {
	t.Parallel()
	up := startUpstream(t, 31337)
	b1 := up.set(t)
	dir := t.TempDir()
	c, err := fork.Open(context.Background(), chain.Config{DataDir: dir}, forkConfig(up.url, 1))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	kv, err := pebble.New(filepath.Join(dir, "chaindata"), 16, 16, "", false)
	if err != nil {
		t.Fatal(err)
	}
	db := rawdb.NewDatabase(kv)
	genesis := rawdb.ReadCanonicalHash(db, 0)
	config := rawdb.ReadChainConfig(db, genesis)
	lagoon := b1.Time()
	config.LagoonTime = &lagoon
	rawdb.WriteChainConfig(db, genesis, config)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = fork.Open(context.Background(), chain.Config{DataDir: dir}, forkConfig(up.url, 1))
	var nr *networks.NotRunError
	if !errors.As(err, &nr) || nr.Fork.Name != "lagoon" || nr.Number != 1 {
		t.Fatalf("resume: %v, want lagoon's refusal at block 1", err)
	}
}
