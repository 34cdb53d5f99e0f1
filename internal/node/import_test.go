package node

import (
	"context"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/flashrpc/flashrpc/internal/chain"
)

// TestImportRejectsBadFiles imports broken versions of the conformance chain and checks that
// the error names the block and the reason, and that the datadir is left as it was.
func TestImportRejectsBadFiles(t *testing.T) {
	dir := conformanceDir(t)
	ctx := context.Background()
	f, err := os.Open(filepath.Join(dir, "chain.rlp"))
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := chain.DecodeBlocks(f)
	f.Close()
	if err != nil || len(blocks) != 54 {
		t.Fatalf("decode: %d blocks, %v", len(blocks), err)
	}
	work := t.TempDir()
	write := func(name string, bs types.Blocks) string {
		path := filepath.Join(work, name)
		out, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		for _, b := range bs {
			if err := rlp.Encode(out, b); err != nil {
				t.Fatal(err)
			}
		}
		return path
	}
	opts := func(dataDir, file string) ImportConfig {
		return ImportConfig{DataDir: dataDir, Genesis: filepath.Join(dir, "genesis.json"), File: file, Log: io.Discard}
	}

	// A truncated file: the decoding error names the block after the last good one.
	whole, err := os.ReadFile(filepath.Join(dir, "chain.rlp"))
	if err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(work, "truncated.rlp")
	if err := os.WriteFile(truncated, whole[:len(whole)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(work, "fresh")
	err = Import(ctx, opts(fresh, truncated))
	if err == nil || !strings.Contains(err.Error(), "decode block") {
		t.Fatalf("truncated file: %v", err)
	}
	if _, statErr := os.Stat(fresh); !os.IsNotExist(statErr) {
		t.Fatalf("a failed import into a new datadir left it behind: %v", statErr)
	}

	// The first 20 blocks import; then a file of blocks 21-30 whose last block has a wrong
	// state root fails at block 30 and leaves the head at 20.
	dataDir := filepath.Join(work, "data")
	if err := Import(ctx, opts(dataDir, write("first.rlp", blocks[:20]))); err != nil {
		t.Fatal(err)
	}
	bad := make(types.Blocks, 0, 10)
	for _, b := range blocks[20:30] {
		if b.NumberU64() == 30 {
			h := b.Header()
			h.Root[0] ^= 0xff
			b = b.WithSeal(h)
		}
		bad = append(bad, b)
	}
	err = Import(ctx, opts(dataDir, write("bad.rlp", bad)))
	if err == nil || !strings.Contains(err.Error(), "insert block 30") {
		t.Fatalf("bad block 30: got %v, want an error naming block 30", err)
	}
	t.Logf("bad block: %v", err)
	c, err := chain.Open(chain.Config{DataDir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if head := c.Head().Number; head.Cmp(big.NewInt(20)) != 0 {
		t.Fatalf("after the failed import the head is %v, want 20", head)
	}
}

// conformanceDir returns the execution-apis fixtures' directory (FLASHRPC_CONFORMANCE_DIR, or
// ../shared/conformance beside the repository), as cmd/flashrpc's conformance suite finds it.
func conformanceDir(t *testing.T) string {
	dir := os.Getenv("FLASHRPC_CONFORMANCE_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "conformance")
	}
	if _, err := os.Stat(filepath.Join(dir, "chain.rlp")); err != nil {
		if os.Getenv("CI") != "" || os.Getenv("FLASHRPC_CONFORMANCE_DIR") != "" {
			t.Fatalf("conformance fixtures not found at %s: CI must run the suite", dir)
		}
		t.Skipf("conformance fixtures not found at %s (set FLASHRPC_CONFORMANCE_DIR); the suite needs ../shared beside the repository", dir)
	}
	return dir
}
