package preconf_test

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/flashrpc/flashrpc/internal/preconf"
)

// BenchmarkCopyState copies the state of a block's tenth pre-confirmation, each of 1,000
// transfers to new accounts, as eth_simulateV1 on `pending` does (Snapshot.CopyState):
// go-ethereum's StateDB.Copy copies every account the block touched and every trie node in
// memory, which the incremental state roots (work.updateTries) leave resolved; and opens the
// state the other calls on `pending` take (Snapshot.ExecState).
func BenchmarkCopyState(b *testing.B) {
	ctx := context.Background()
	c := openChain(b)
	p := preconf.New(c)
	head := c.Head()
	attrs := preconf.NextAttributes(c.Config(), head, head.Time+1, common.Address{0xfe}, nil)
	attrs.GasLimit = 1_000_000_000 // room for 10,000 transfers
	if _, err := p.Open(ctx, attrs, preconf.PublishOptions{}); err != nil {
		b.Fatal(err)
	}
	var snap *preconf.Snapshot
	nonce := uint64(0)
	for range 10 {
		batch, err := p.Begin()
		if err != nil {
			b.Fatal(err)
		}
		for range 1000 {
			to := common.BigToAddress(common.Big1)
			to[0], to[1], to[2] = byte(nonce>>16), byte(nonce>>8), byte(nonce)
			if err := batch.Add(ctx, transfer(b, c, nonce, to)); err != nil {
				b.Fatal(err)
			}
			nonce++
		}
		if snap, err = batch.Commit(ctx, preconf.PublishOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("copy", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = snap.CopyState()
		}
	})
	// ExecState, which eth_call and the others on `pending` take, copies nothing.
	b.Run("exec", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := snap.ExecState(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
