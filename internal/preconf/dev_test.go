package preconf_test

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/holiman/uint256"

	"github.com/flashrpc/flashrpc/internal/preconf"
)

// TestDevCheat checks that a state cheat is published at once as the next pre-confirmation
// and that the sealed block carries it: its state root is the cheated snapshot's.
func TestDevCheat(t *testing.T) {
	ctx := context.Background()
	c := openChain(t)
	p := preconf.New(c)
	head := c.Head()
	if _, err := p.Open(ctx, preconf.NextAttributes(c.Config(), head, head.Time+1, common.Address{}, nil), preconf.PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	addr, want := common.Address{0xbb}, uint256.NewInt(42)
	snap, err := p.Dev().Cheat(ctx, func(st *state.StateDB) { st.SetBalance(addr, want, tracing.BalanceChangeUnspecified) })
	if err != nil {
		t.Fatal(err)
	}
	var got *uint256.Int
	snap.ReadState(func(st *state.StateDB) { got = st.GetBalance(addr) })
	if snap.Index != 1 || p.Current() != snap || got.Cmp(want) != 0 {
		t.Fatalf("after the cheat: index %d, current is it: %v, balance %v; want index 1, current, %v", snap.Index, p.Current() == snap, got, want)
	}
	sealed, err := p.Seal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sealed.Root() != snap.Block.Root() {
		t.Fatalf("sealed root %s, want the cheated snapshot's %s", sealed.Root(), snap.Block.Root())
	}
}

// TestDevRewind checks that Rewind retracts the pre-confirmed logs of the block in progress
// (a Retraction without Block), leaves no block in progress and takes the chain back.
func TestDevRewind(t *testing.T) {
	ctx := context.Background()
	c, keys := retractChain(t)
	p := preconf.New(c)
	preconfirm := func(data string, key int) {
		t.Helper()
		head := c.Head()
		if _, err := p.Open(ctx, preconf.NextAttributes(c.Config(), head, head.Time+1, common.Address{}, nil), preconf.PublishOptions{}); err != nil {
			t.Fatal(err)
		}
		b, err := p.Begin()
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Add(ctx, echoCall(t, c, keys[key], data)); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Commit(ctx, preconf.PublishOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	preconfirm("a", 0)
	if _, err := p.Seal(ctx); err != nil {
		t.Fatal(err)
	}
	preconfirm("b", 1)
	var got []*preconf.Retraction
	p.OnRetract(func(r *preconf.Retraction) { got = append(got, r) })
	if err := p.Dev().Rewind(0, nil); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Block != nil || len(got[0].Removed) != 1 || string(got[0].Removed[0].Data) != "b" || !got[0].Removed[0].Removed || len(got[0].Dropped) != 1 {
		t.Fatalf("retractions %+v, want one without Block removing the log \"b\" and dropping its transaction", got)
	}
	if n := c.Head().Number.Uint64(); n != 0 || p.Current() != nil || p.Last() != nil {
		t.Fatalf("after the rewind: head %d, current %v, last %v; want head 0 and no block in progress", n, p.Current(), p.Last())
	}
}
