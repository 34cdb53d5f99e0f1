package chain_test

import (
	"context"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/chaingen"
)

// generated writes a small generated chain into a new datadir and opens it.
func generated(t *testing.T, blocks uint64) *chain.Chain {
	t.Helper()
	dir := t.TempDir()
	w, err := chain.OpenBulk(chain.Config{DataDir: dir, Genesis: chaingen.Genesis(chain.DefaultChainID)})
	if err != nil {
		t.Fatal(err)
	}
	cfg := chaingen.Config{Blocks: blocks, Seed: 7, Tokens: 20, Accounts: 200, Senders: 20, TxsPerBlock: 4, RareEvery: 20}
	if err := chaingen.Generate(context.Background(), cfg, w); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := chain.Open(chain.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	closeAtEnd(t, c)
	return c
}

// TestBulkWrittenChainReadsBack opens a bulk-written chain with the node's Open and reads
// every block back the way the API does.
func TestBulkWrittenChainReadsBack(t *testing.T) {
	t.Parallel()
	c := generated(t, 200)
	if got := c.Head().Number.Uint64(); got != 200 {
		t.Fatalf("head %d, want 200", got)
	}
	logCount := 0
	for n := uint64(1); n <= 200; n++ {
		b := c.BlockByNumber(n)
		if b == nil {
			t.Fatalf("block %d missing", n)
		}
		h := b.Header()
		if b.ParentHash() != c.CanonicalHash(n-1) || h.Time != c.HeaderByNumber(n-1).Time+chaingen.BlockTime {
			t.Fatalf("block %d: parent or time does not follow", n)
		}
		if got := types.DeriveSha(b.Transactions(), trie.NewStackTrie(nil)); got != h.TxHash {
			t.Fatalf("block %d: transactions root %s, header says %s", n, got, h.TxHash)
		}
		receipts := c.Receipts(b.Hash())
		if len(receipts) != len(b.Transactions()) {
			t.Fatalf("block %d: %d receipts for %d transactions", n, len(receipts), len(b.Transactions()))
		}
		if types.MergeBloom(receipts) != h.Bloom {
			t.Fatalf("block %d: bloom does not match the receipts", n)
		}
		signer := types.LatestSigner(c.Config())
		for i, tx := range b.Transactions() {
			if _, err := types.Sender(signer, tx); err != nil {
				t.Fatalf("block %d tx %d: %v", n, i, err)
			}
			if _, loc, ok := c.Transaction(tx.Hash()); !ok || loc.BlockNumber != n || loc.Index != uint64(i) {
				t.Fatalf("block %d tx %d: lookup %+v %v", n, i, loc, ok)
			}
		}
		// FilterLogs fills every field Receipts derives.
		var want []*types.Log
		for _, r := range receipts {
			want = append(want, r.Logs...)
		}
		got := c.FilterLogs(h, func(*types.Log) bool { return true })
		if len(got) != len(want) {
			t.Fatalf("block %d: FilterLogs returned %d logs, receipts hold %d", n, len(got), len(want))
		}
		for i := range got {
			g, w := *got[i], *want[i]
			if g.Address != w.Address || !slices.Equal(g.Topics, w.Topics) || !slices.Equal(g.Data, w.Data) ||
				g.BlockNumber != w.BlockNumber || g.TxHash != w.TxHash || g.TxIndex != w.TxIndex ||
				g.BlockHash != w.BlockHash || g.BlockTimestamp != w.BlockTimestamp || g.Index != w.Index || g.Removed != w.Removed {
				t.Fatalf("block %d log %d: FilterLogs %+v, receipts %+v", n, i, g, w)
			}
		}
		if byHash := c.FilterBlockLogs(h.Hash(), n, h.Time, func(*types.Log) bool { return true }); !slices.EqualFunc(byHash, got, func(a, b *types.Log) bool {
			return a.TxHash == b.TxHash && a.Index == b.Index && a.BlockTimestamp == b.BlockTimestamp && slices.Equal(a.Data, b.Data)
		}) {
			t.Fatalf("block %d: FilterBlockLogs differs from FilterLogs", n)
		}
		logCount += len(got)
		// Only the kept logs come back, with their positions in the block.
		odd := c.FilterLogs(h, func(l *types.Log) bool { return l.Index%2 == 1 })
		for _, l := range odd {
			if l.Index%2 != 1 || l.TxHash != want[l.Index].TxHash {
				t.Fatalf("block %d: filtered log %+v", n, l)
			}
		}
	}
	if logCount == 0 {
		t.Fatal("the generated chain has no logs")
	}
}

func TestBulkWriterRefusesGaps(t *testing.T) {
	t.Parallel()
	w, err := chain.OpenBulk(chain.Config{DataDir: t.TempDir(), Genesis: chaingen.Genesis(chain.DefaultChainID)})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	orphan := types.NewBlockWithHeader(&types.Header{Number: w.Head().Number, ParentHash: w.Head().Hash()})
	if err := w.Append(orphan, nil); err == nil {
		t.Fatal("a block that does not extend the head was accepted")
	}
	if _, err := chain.OpenBulk(chain.Config{}); err == nil {
		t.Fatal("a bulk writer without a datadir was opened")
	}
}
