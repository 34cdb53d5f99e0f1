package chain_test

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// echoAddr holds echoAccount's code, which emits LOG1(echoTopic) with the call data as data.
var (
	echoAddr    = common.Address{0xec}
	echoTopic   = common.Hash{0xec}
	echoAccount = types.Account{Code: append(append([]byte{0x36, 0x5f, 0x5f, 0x37, 0x7f}, echoTopic[:]...), 0x36, 0x5f, 0xa1, 0x00)}
)

// closeAtEnd closes c when t ends, and fails t if closing fails.
func closeAtEnd(t testing.TB, c *chain.Chain) {
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
}

func reorgChain(t *testing.T, keys []*ecdsa.PrivateKey) *chain.Chain {
	t.Helper()
	var funded []common.Address
	for _, k := range keys {
		funded = append(funded, crypto.PubkeyToAddress(k.PublicKey))
	}
	g := chain.DevGenesis(chain.DefaultChainID, funded)
	g.Alloc[echoAddr] = echoAccount
	c, err := chain.Open(chain.Config{DataDir: t.TempDir(), Genesis: g})
	if err != nil {
		t.Fatal(err)
	}
	closeAtEnd(t, c)
	return c
}

// buildBlock seals one block on c's head at a fixed time with one echo call per data item,
// all from key, the first with nonce.
func buildBlock(t testing.TB, c *chain.Chain, key *ecdsa.PrivateKey, nonce uint64, data ...string) *types.Block {
	t.Helper()
	head := c.Head()
	return buildBlockWith(t, c, preconf.NextAttributes(c.Config(), head, head.Time+12, common.Address{}, nil), key, nonce, data...)
}

// buildBlockWith seals one block with attrs on c's head with one echo call per data item, all
// from key, the first with nonce.
func buildBlockWith(t testing.TB, c *chain.Chain, attrs preconf.Attributes, key *ecdsa.PrivateKey, nonce uint64, data ...string) *types.Block {
	t.Helper()
	ctx := context.Background()
	p := preconf.New(c)
	if _, err := p.Open(ctx, attrs, preconf.PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	b, err := p.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range data {
		tx, err := types.SignNewTx(key, types.LatestSigner(c.Config()), &types.DynamicFeeTx{
			ChainID: c.Config().ChainID, Nonce: nonce + uint64(i), To: &echoAddr, Data: []byte(d), Gas: 100_000,
			GasFeeCap: big.NewInt(10 * params.GWei), GasTipCap: big.NewInt(params.GWei),
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Add(ctx, tx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Commit(ctx, preconf.PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	block, err := p.Seal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return block
}

// TestReorgRemovedLogs makes a side block canonical, then rewinds the chain, and checks that
// each time the dropped block's logs are announced with removed set, before the new head.
func TestReorgRemovedLogs(t *testing.T) {
	t.Parallel()
	k1, _ := crypto.HexToECDSA("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
	k2, _ := crypto.HexToECDSA("59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d")
	keys := []*ecdsa.PrivateKey{k1, k2}
	a, b := reorgChain(t, keys), reorgChain(t, keys)
	one := buildBlock(t, a, k1, 0, "one")
	if same := buildBlock(t, b, k1, 0, "one"); same.Hash() != one.Hash() {
		t.Fatalf("the two chains' block 1 differ: %s, %s", one.Hash(), same.Hash())
	}
	twoA := buildBlock(t, a, k1, 1, "a")
	twoB := buildBlock(t, b, k2, 0, "b")

	var events []string // "reorg <data>…" and "head <number>" in the order announced
	var reorgs []chain.ReorgEvent
	a.OnReorg(func(ev chain.ReorgEvent) {
		reorgs = append(reorgs, ev)
		events = append(events, "reorg")
	})
	a.OnHead(func(ev chain.HeadEvent) { events = append(events, "head "+ev.Block.Number().String()) })

	if err := a.Insert(twoB); err != nil { // a sibling of the head: it becomes canonical
		t.Fatal(err)
	}
	if a.Head().Hash() != twoB.Hash() {
		t.Fatalf("head %s, want the side block %s", a.Head().Hash(), twoB.Hash())
	}
	if err := a.SetForkchoice(one.Hash(), common.Hash{}, common.Hash{}); err != nil { // rewind
		t.Fatal(err)
	}
	if len(events) != 3 || events[0] != "reorg" || events[1] != "head 2" || events[2] != "reorg" {
		t.Fatalf("announced %v, want [reorg head 2 reorg]", events)
	}
	for i, want := range []struct {
		block *types.Block
		data  string
	}{{twoA, "a"}, {twoB, "b"}} {
		ev := reorgs[i]
		if len(ev.Dropped) != 1 || ev.Dropped[0].Hash() != want.block.Hash() || len(ev.Removed) != 1 {
			t.Fatalf("reorg %d: dropped %d blocks, %d logs; want block %s and its log", i, len(ev.Dropped), len(ev.Removed), want.block.Hash())
		}
		l := ev.Removed[0]
		if !l.Removed || string(l.Data) != want.data || l.BlockHash != want.block.Hash() || l.BlockNumber != 2 || l.TxHash != want.block.Transactions()[0].Hash() {
			t.Fatalf("reorg %d: removed log %+v", i, l)
		}
	}
}
