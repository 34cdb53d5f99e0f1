package preconf_test

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// TestViewPublication walks one block through its life and checks the View after each step:
// the sealed markers and the block in progress are published together, the block in progress
// always builds on Latest, and a sealed block is readable before a View names it.
func TestViewPublication(t *testing.T) {
	ctx := context.Background()
	c := openChain(t)
	p := preconf.New(c)
	genesis := c.Head()
	to := common.Address{0xaa}
	tx := transfer(t, c, 0, to)

	// Whenever the chain publishes new markers, preconf (registered first, in New) has
	// published its View; OnHead listeners, told of the block later, see it too.
	var heads []*chain.Heads
	c.OnHeads(func(h *chain.Heads) {
		if v := p.View(); v.Latest != h.Latest || v.Safe != h.Safe || v.Finalized != h.Finalized {
			t.Errorf("OnHeads: view %+v does not have the new markers %+v", v, h)
		}
		if p.View().Latest.Number.Uint64() == 1 {
			if _, _, ok := c.Transaction(tx.Hash()); !ok {
				t.Error("the view names block 1 before its transaction can be looked up")
			}
		}
		heads = append(heads, h)
	})
	c.OnHead(func(ev chain.HeadEvent) {
		if v := p.View(); v.Latest.Hash() != ev.Block.Hash() || v.Pending != nil {
			t.Errorf("OnHead of block %d: view has head %d, pending %v", ev.Block.NumberU64(), v.Latest.Number, v.Pending != nil)
		}
	})

	var open, committed *preconf.Snapshot
	var sealed *types.Block
	steps := []struct {
		name    string
		do      func() error
		latest  func() *types.Header
		pending func() *preconf.Snapshot
		safe    func() *types.Header
	}{
		{"start", func() error { return nil },
			func() *types.Header { return genesis }, func() *preconf.Snapshot { return nil }, func() *types.Header { return nil }},
		{"open", func() (err error) {
			open, err = p.Open(ctx, preconf.NextAttributes(c.Config(), genesis, genesis.Time+1, common.Address{}, nil), preconf.PublishOptions{})
			return err
		}, func() *types.Header { return genesis }, func() *preconf.Snapshot { return open }, func() *types.Header { return nil }},
		{"commit", func() error {
			b, err := p.Begin()
			if err != nil {
				return err
			}
			if err := b.Add(ctx, tx); err != nil {
				return err
			}
			committed, err = b.Commit(ctx, preconf.PublishOptions{})
			return err
		}, func() *types.Header { return genesis }, func() *preconf.Snapshot { return committed }, func() *types.Header { return nil }},
		{"safe set while a block is in progress", func() error {
			c.SetSafe(genesis)
			return nil
		}, func() *types.Header { return genesis }, func() *preconf.Snapshot { return committed }, func() *types.Header { return genesis }},
		{"seal", func() (err error) {
			sealed, err = p.Seal(ctx)
			return err
		}, func() *types.Header { return c.Head() }, func() *preconf.Snapshot { return nil }, func() *types.Header { return genesis }},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		v := p.View()
		if v.Latest != s.latest() || v.Pending != s.pending() || v.Safe != s.safe() {
			t.Fatalf("%s: view {latest %d, pending %v, safe %v}", s.name, v.Latest.Number, v.Pending != nil, v.Safe != nil)
		}
		if v.Pending != nil && v.Pending.Parent.Hash() != v.Latest.Hash() {
			t.Fatalf("%s: the block in progress does not build on the view's head", s.name)
		}
		if p.Current() != v.Pending {
			t.Fatalf("%s: Current is not the view's block in progress", s.name)
		}
	}
	if sealed.Hash() != committed.Block.Hash() || p.View().Latest.Hash() != sealed.Hash() {
		t.Fatalf("sealed %s, last pre-confirmation %s, view head %s", sealed.Hash(), committed.Block.Hash(), p.View().Latest.Hash())
	}
	if len(heads) != 2 { // SetSafe, then the seal
		t.Fatalf("%d publications of the chain's markers, want 2", len(heads))
	}
}
