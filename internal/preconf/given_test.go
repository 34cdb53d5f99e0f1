package preconf_test

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/preconf"
)

// TestGivenRoots checks that Open and Commit with PublishOptions.Roots put the given state
// root into the partial block the check sees and the snapshot publishes, keep the rest
// computed (the transactions and receipts roots of a block built with computed roots), and
// that a commit without given roots after them computes the root again.
func TestGivenRoots(t *testing.T) {
	ctx := context.Background()
	c := openChain(t)
	head := c.Head()
	attrs := preconf.NextAttributes(c.Config(), head, head.Time+1, common.Address{0xfe}, nil)
	tx := transfer(t, c, 0, common.Address{0xaa})

	// The same block with computed roots, for reference.
	ref := preconf.New(c)
	if _, err := ref.Open(ctx, attrs, preconf.PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	b, err := ref.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Add(ctx, tx); err != nil {
		t.Fatal(err)
	}
	want, err := b.Commit(ctx, preconf.PublishOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ref.Discard()

	given := [2]common.Hash{{0x01}, {0x02}}
	var checked []common.Hash
	check := func(b *types.Block) error { checked = append(checked, b.Root()); return nil }
	p := preconf.New(c)
	snap, err := p.Open(ctx, attrs, preconf.PublishOptions{Roots: &preconf.Roots{State: given[0]}, Check: check})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Block.Root() != given[0] {
		t.Fatalf("index 0 root %s, want the given %s", snap.Block.Root(), given[0])
	}
	if b, err = p.Begin(); err != nil {
		t.Fatal(err)
	}
	if err := b.Add(ctx, tx); err != nil {
		t.Fatal(err)
	}
	if snap, err = b.Commit(ctx, preconf.PublishOptions{Roots: &preconf.Roots{State: given[1]}, Check: check}); err != nil {
		t.Fatal(err)
	}
	got, w := snap.Block.Header(), want.Block.Header()
	switch {
	case got.Root != given[1]:
		t.Fatalf("index 1 root %s, want the given %s", got.Root, given[1])
	case got.TxHash != w.TxHash || got.ReceiptHash != w.ReceiptHash || got.Bloom != w.Bloom || got.GasUsed != w.GasUsed:
		t.Fatalf("computed fields differ from the reference block:\ngot  %+v\nwant %+v", got, w)
	case snap.Block.Hash() == want.Block.Hash():
		t.Fatal("the block hash does not commit to the given root")
	case len(checked) != 2 || checked[0] != given[0] || checked[1] != given[1]:
		t.Fatalf("the check saw roots %v, want %v", checked, given)
	}
	if b, err = p.Begin(); err != nil {
		t.Fatal(err)
	}
	if snap, err = b.Commit(ctx, preconf.PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	if snap.Block.Root() != want.Block.Root() {
		t.Fatalf("a commit without given roots has root %s, want the computed %s", snap.Block.Root(), want.Block.Root())
	}
}
