package preconf_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/preconf"
)

// TestCheckedPreconfirmations checks that a refused check publishes nothing: no snapshot, no
// listener call, no View with the refused block, and that the block in progress is gone
// afterwards (pending is the sealed head until the next Open).
func TestCheckedPreconfirmations(t *testing.T) {
	refuse := errors.New("not what the sequencer published")
	accept := func(*types.Block) error { return nil }
	for _, tc := range []struct {
		name       string
		open, next func(*types.Block) error
		published  int // snapshots the listener saw
		pending    bool
	}{
		{name: "both accepted", open: accept, next: accept, published: 2, pending: true},
		{name: "index 0 refused", open: func(*types.Block) error { return refuse }, published: 0},
		{name: "index 1 refused", open: accept, next: func(*types.Block) error { return refuse }, published: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			c := openChain(t)
			p := preconf.New(c)
			var seen []*preconf.Snapshot
			p.OnSnapshot(func(s *preconf.Snapshot) { seen = append(seen, s) })
			head := c.Head()
			attrs := preconf.NextAttributes(c.Config(), head, head.Time+1, common.Address{0xfe}, nil)
			_, err := p.Open(ctx, attrs, preconf.PublishOptions{Check: tc.open})
			if tc.published == 0 {
				if !errors.Is(err, preconf.ErrCheckFailed) || !errors.Is(err, refuse) {
					t.Fatalf("open: got %v, want the refusal", err)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				b, err := p.Begin()
				if err != nil {
					t.Fatal(err)
				}
				if err := b.Add(ctx, transfer(t, c, 0, common.Address{0xaa})); err != nil {
					t.Fatal(err)
				}
				_, err = b.Commit(ctx, preconf.PublishOptions{Check: tc.next})
				if tc.pending != (err == nil) {
					t.Fatalf("commit: %v", err)
				}
			}
			if len(seen) != tc.published {
				t.Fatalf("listener saw %d snapshots, want %d", len(seen), tc.published)
			}
			v := p.View()
			if tc.pending != (v.Pending != nil) || tc.pending != (p.Last() != nil) {
				t.Fatalf("pending %v, last %v; want a block in progress: %v", v.Pending, p.Last(), tc.pending)
			}
			if tc.pending && len(v.Pending.Block.Transactions()) != 1 {
				t.Fatalf("pending has %d transactions", len(v.Pending.Block.Transactions()))
			}
			if !tc.pending {
				// A refused block leaves room for the next one.
				if _, err := p.Open(ctx, attrs, preconf.PublishOptions{Check: accept}); err != nil {
					t.Fatalf("open after a refusal: %v", err)
				}
			}
		})
	}
}
