package preconf_test

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// echoLog is runtime code that emits LOG1(echoTopic) with the call data as data.
var (
	echoTopic = common.Hash{0xec}
	echoAddr  = common.Address{0xec}
	echoLog   = append(append([]byte{0x36, 0x5f, 0x5f, 0x37, 0x7f}, echoTopic[:]...), 0x36, 0x5f, 0xa1, 0x00)
)

// retractChain is a dev chain with three funded senders and the echo contract.
func retractChain(t *testing.T) (*chain.Chain, []*ecdsa.PrivateKey) {
	t.Helper()
	var keys []*ecdsa.PrivateKey
	var funded []common.Address
	for range 3 {
		k, _ := crypto.GenerateKey()
		keys = append(keys, k)
		funded = append(funded, crypto.PubkeyToAddress(k.PublicKey))
	}
	g := chain.DevGenesis(chain.DefaultChainID, funded)
	g.Alloc[echoAddr] = types.Account{Code: echoLog}
	c, err := chain.Open(chain.Config{DataDir: t.TempDir(), Genesis: g})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	return c, keys
}

func echoCall(t *testing.T, c *chain.Chain, key *ecdsa.PrivateKey, data string) *types.Transaction {
	t.Helper()
	tx, err := types.SignNewTx(key, types.LatestSigner(c.Config()), &types.DynamicFeeTx{
		ChainID: c.Config().ChainID, To: &echoAddr, Data: []byte(data), Gas: 100_000,
		GasFeeCap: big.NewInt(10 * params.GWei), GasTipCap: big.NewInt(params.GWei),
	})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// TestSealWith pre-confirms three transactions that each emit one log, seals the block with a
// different selection, and checks what is retracted: only logs that the sealed block does not
// carry at the same position, with the same content.
func TestSealWith(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		seal        []int    // pre-confirmed positions, in sealing order
		removed     []string // data of the retracted logs, pre-confirmed order
		added       []string // data of the sealed logs that were not pre-confirmed
		dropped     int
		sameAsPreco bool
	}{
		{name: "unchanged", seal: []int{0, 1, 2}, sameAsPreco: true},
		{name: "last dropped", seal: []int{0, 1}, removed: []string{"c"}, dropped: 1},
		{name: "middle dropped", seal: []int{0, 2}, removed: []string{"b", "c"}, added: []string{"c"}, dropped: 1},
		{name: "reordered", seal: []int{2, 0, 1}, removed: []string{"a", "b", "c"}, added: []string{"c", "a", "b"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			c, keys := retractChain(t)
			p := preconf.New(c)
			var got []*preconf.Retraction
			p.OnRetract(func(r *preconf.Retraction) {
				if p.Current() != nil {
					t.Error("retraction published while the pre-confirmed block is still current")
				}
				got = append(got, r)
			})
			head := c.Head()
			if _, err := p.Open(ctx, preconf.NextAttributes(c.Config(), head, head.Time+1, common.Address{}, nil), preconf.PublishOptions{}); err != nil {
				t.Fatal(err)
			}
			var txs []*types.Transaction
			for i, data := range []string{"a", "b", "c"} {
				txs = append(txs, echoCall(t, c, keys[i], data))
			}
			var last *preconf.Snapshot
			for _, batch := range [][]*types.Transaction{txs[:1], txs[1:]} { // two pre-confirmations
				b, err := p.Begin()
				if err != nil {
					t.Fatal(err)
				}
				for _, tx := range batch {
					if err := b.Add(ctx, tx); err != nil {
						t.Fatal(err)
					}
				}
				if last, err = b.Commit(ctx, preconf.PublishOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			var sealTxs []*types.Transaction
			for _, i := range tc.seal {
				sealTxs = append(sealTxs, txs[i])
			}
			block, err := p.Dev().SealWith(ctx, sealTxs)
			if err != nil {
				t.Fatal(err)
			}
			if c.Head().Hash() != block.Hash() || p.Current() != nil || len(block.Transactions()) != len(tc.seal) {
				t.Fatalf("after sealing: head %s, block %s with %d txs", c.Head().Hash(), block.Hash(), len(block.Transactions()))
			}
			if tc.sameAsPreco {
				if len(got) != 0 || block.Hash() != last.Block.Hash() {
					t.Fatalf("unchanged selection: %d retractions, sealed %s, pre-confirmed %s", len(got), block.Hash(), last.Block.Hash())
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("%d retractions, want 1", len(got))
			}
			r := got[0]
			if r.Block.Hash() != block.Hash() || len(r.Dropped) != tc.dropped {
				t.Fatalf("retraction of block %s, %d dropped; want %s, %d", r.Block.Hash(), len(r.Dropped), block.Hash(), tc.dropped)
			}
			for _, l := range r.Removed {
				if !l.Removed || l.BlockHash != (common.Hash{}) || l.BlockNumber != block.NumberU64() {
					t.Fatalf("removed log %+v", l)
				}
			}
			for _, l := range r.Added {
				if l.Removed || l.BlockHash != block.Hash() {
					t.Fatalf("added log %+v", l)
				}
			}
			if d := logData(r.Removed); !slices.Equal(d, tc.removed) {
				t.Fatalf("removed %q, want %q", d, tc.removed)
			}
			if d := logData(r.Added); !slices.Equal(d, tc.added) {
				t.Fatalf("added %q, want %q", d, tc.added)
			}
			// The chain holds exactly the sealed block's logs, at their sealed positions.
			var sealed []*types.Log
			for _, rc := range c.Receipts(block.Hash()) {
				sealed = append(sealed, rc.Logs...)
			}
			for i, l := range sealed {
				if l.Index != uint(i) || l.TxHash != block.Transactions()[i].Hash() {
					t.Fatalf("sealed log %d: index %d, tx %s", i, l.Index, l.TxHash)
				}
			}
		})
	}
}

func logData(logs []*types.Log) []string {
	var out []string
	for _, l := range logs {
		out = append(out, string(l.Data))
	}
	return out
}
