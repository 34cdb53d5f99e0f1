package chain_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/ethdb/pebble"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// TestDenimStored: the Denim time a chain is created with is stored with it. Reopened without
// one, the chain runs the stored time (and still accepts a block with its parent's
// timestamp); reopened with the same one it opens; with another, or with one on a chain
// created without Denim, Open refuses naming both.
func TestDenimStored(t *testing.T) {
	g, err := oprollup.DevDenimGenesis(chain.DefaultChainID, nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	zero, other := uint64(0), uint64(1793901600)
	c, err := chain.Open(chain.Config{DataDir: dir, Genesis: g, Denim: &zero})
	if err != nil {
		t.Fatal(err)
	}
	t0 := int(c.Head().Time) + 1
	sealDenim(t, c, [][2]int{{t0, 0}})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	c, err = chain.Open(chain.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if d := c.Denim(); d == nil || *d != 0 {
		t.Fatalf("reopened without a Denim time: Denim() = %v, want 0", d)
	}
	// A second block in the same second: accepted only under Denim.
	sealDenim(t, c, [][2]int{{t0, 200}})
	if ms := c.TimeMs(c.Head()); ms == nil || *ms != uint64(t0)*1000+200 {
		t.Fatalf("timestampMs of the head: %v", ms)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	if c, err = chain.Open(chain.Config{DataDir: dir, Denim: &zero}); err != nil {
		t.Fatalf("reopened with the same Denim time: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = chain.Open(chain.Config{DataDir: dir, Denim: &other})
	if !errors.Is(err, chain.ErrDenimConflict) || !strings.Contains(err.Error(), "1793901600") || !strings.Contains(err.Error(), "from 0") {
		t.Fatalf("reopened with another Denim time: %v, want a conflict naming both", err)
	}

	plain := t.TempDir()
	c, err = chain.Open(chain.Config{DataDir: plain, Genesis: g})
	if err != nil {
		t.Fatal(err)
	}
	if c.Denim() != nil {
		t.Fatalf("a chain created without Denim runs it from %d", *c.Denim())
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = chain.Open(chain.Config{DataDir: plain, Denim: &zero})
	if !errors.Is(err, chain.ErrDenimConflict) || !strings.Contains(err.Error(), "does not run Denim") {
		t.Fatalf("Denim given to a chain created without it: %v", err)
	}
}

// TestDenimKeyWithoutGenesis: a Denim time stored in a database without a block 0 (a crash
// between storing a new chain's time and committing its genesis) is not the chain's: the
// next Open creates the chain with the time it is given, and keeps that one.
func TestDenimKeyWithoutGenesis(t *testing.T) {
	g, err := oprollup.DevDenimGenesis(chain.DefaultChainID, nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	kv, err := pebble.New(filepath.Join(dir, "chaindata"), 16, 16, "", false)
	if err != nil {
		t.Fatal(err)
	}
	db := rawdb.NewDatabase(kv)
	if err := chain.StoreDenim(db, nil); err != nil { // "does not run Denim", and no block 0
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	zero := uint64(0)
	for _, given := range []*uint64{&zero, nil} { // created with Denim, then reopened without
		c, err := chain.Open(chain.Config{DataDir: dir, Genesis: g, Denim: given})
		if err != nil {
			t.Fatalf("open with Denim %v: %v", given, err)
		}
		d := c.Denim()
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if d == nil || *d != 0 {
			t.Fatalf("opened with Denim %v: the chain runs Denim from %v, want 0", given, d)
		}
	}
}
