package preconf_test

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"

	"github.com/flashrpc/flashrpc/internal/preconf"
)

// TestHiddenBlock builds a block opened hidden through every writer path (a batch, a cheat, a
// rebuild that retracts a log, an asynchronous seal) and checks that no listener hears of it,
// that every View says it is hidden while still carrying the block for the writer's
// readers, that Current shows nothing, and that the next block opened without Hidden is
// published again as usual.
func TestHiddenBlock(t *testing.T) {
	ctx := context.Background()
	c, keys := retractChain(t)
	p := preconf.New(c)
	var published, retracted int
	p.OnSnapshot(func(*preconf.Snapshot) { published++ })
	p.OnRetract(func(*preconf.Retraction) { retracted++ })
	hidden := func(what string) *preconf.View {
		t.Helper()
		v := p.View()
		if !v.Hidden || p.Current() != nil {
			t.Fatalf("%s: View.Hidden %v, Current %v; want hidden and nil", what, v.Hidden, p.Current())
		}
		if published != 0 || retracted != 0 {
			t.Fatalf("%s: %d snapshots and %d retractions reached the listeners, want none", what, published, retracted)
		}
		return v
	}

	head := c.Head()
	attrs := preconf.NextAttributes(c.Config(), head, head.Time+1, common.Address{}, nil)
	if _, err := p.Open(ctx, attrs, preconf.PublishOptions{Hidden: true}); err != nil {
		t.Fatal(err)
	}
	hidden("opened")
	tx := echoCall(t, c, keys[0], "one")
	preconfirm(t, p, tx) // a Commit without Hidden: the block stays hidden as it was opened
	if v := hidden("after a batch"); v.Pending == nil || len(v.Pending.Logs()) != 1 {
		t.Fatal("after a batch: the View does not carry the block in progress and its log for the writer")
	}
	if _, err := p.Dev().Cheat(ctx, func(st *state.StateDB) { st.SetNonce(common.Address{0xc0}, 7, 0) }); err != nil {
		t.Fatal(err)
	}
	hidden("after a cheat")
	attrs.Time++
	if _, _, err := p.Dev().Rebuild(ctx, attrs); err != nil { // retracts the log, to nobody
		t.Fatal(err)
	}
	hidden("after a rebuild")
	if _, err := p.Seal(ctx); err != nil { // cheated: written as executed, at once
		t.Fatal(err)
	}
	hidden("block 1 sealed")

	// Block 2, sealed off the writer's path: hidden while the chain writes it too.
	head = c.Head()
	if _, err := p.Open(ctx, preconf.NextAttributes(c.Config(), head, head.Time+1, common.Address{}, nil), preconf.PublishOptions{Hidden: true}); err != nil {
		t.Fatal(err)
	}
	tx2 := echoCall(t, c, keys[1], "two")
	preconfirm(t, p, tx2)
	writes := newHoldWrites(t, 2)
	block, err := p.SealAsync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	<-writes.started
	// Until the next block opens, the block being written stays the View's Pending.
	if v := hidden("while block 2 is written"); v.Latest.Number.Uint64() != 1 || v.Pending == nil || v.Pending.Block.Hash() != block.Hash() {
		t.Fatalf("while written: Latest is block %d; want 1 and block 2 in progress for the writer", v.Latest.Number)
	}
	writes.release(2)
	if err := p.WaitWritten(); err != nil {
		t.Fatal(err)
	}
	if v := hidden("once written"); v.Latest.Hash() != block.Hash() || v.Pending != nil {
		t.Fatalf("once written: Latest %v, block in progress %v; want the sealed block and none", v.Latest.Number, v.Pending != nil)
	}
	for _, h := range []common.Hash{tx.Hash(), tx2.Hash()} {
		if _, _, ok := c.Transaction(h); !ok {
			t.Fatalf("transaction %s is not in the chain", h)
		}
	}

	openNext(t, p, c) // without Hidden
	if v := p.View(); v.Hidden || p.Current() == nil || published != 1 {
		t.Fatalf("a block opened without Hidden: View.Hidden %v, Current %v, %d published; want shown, once", v.Hidden, p.Current(), published)
	}
}

// TestHide checks that Hide marks the Views hidden without a block in progress and keeps them
// so while the chain seals blocks that another writer built (a replica's sealed blocks,
// inserted into its chain), and that the next Open decides again.
func TestHide(t *testing.T) {
	ctx := context.Background()
	c := openChain(t)
	p := preconf.New(c)
	if p.View().Hidden {
		t.Fatal("a new Preconf's View is hidden")
	}
	p.Hide()
	if v := p.View(); !v.Hidden || v.Pending != nil || p.Current() != nil {
		t.Fatalf("after Hide: View.Hidden %v, Pending %v, Current %v; want hidden, nil, nil", v.Hidden, v.Pending != nil, p.Current() != nil)
	}

	// Another writer builds and seals block 1; p publishes the new head, still hidden.
	builder := preconf.New(c)
	openNext(t, builder, c)
	preconfirm(t, builder, transfer(t, c, 0, common.Address{0xaa}))
	block, err := builder.Seal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v := p.View(); !v.Hidden || v.Latest.Hash() != block.Hash() {
		t.Fatalf("after block 1 sealed: View.Hidden %v, Latest %d; want hidden at block 1", v.Hidden, v.Latest.Number)
	}

	openNext(t, p, c) // without Hidden
	if v := p.View(); v.Hidden || p.Current() == nil {
		t.Fatalf("a block opened without Hidden after Hide: View.Hidden %v, Current %v; want shown", v.Hidden, p.Current() != nil)
	}
}
