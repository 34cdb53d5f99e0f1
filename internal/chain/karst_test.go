package chain_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/networks"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// TestKarstBlockInsert seals, on a local chain with OP Mainnet's rules after Karst, a block
// whose transaction calls bn256Pairing with 301 pairs (over Karst's 57,600-byte cap: the call
// fails and takes all its gas), and inserts it into a second chain, which executes it again
// with go-ethereum's block processing: the chain's own EVM must run Karst's precompiles for
// the gas used and state root to agree.
func TestKarstBlockInsert(t *testing.T) {
	op, ok := networks.Lookup(10)
	if !ok {
		t.Fatal("op mainnet unknown")
	}
	config, err := op.RulesAsOf(chain.DefaultChainID, 1790000000)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := crypto.GenerateKey()
	open := func() *chain.Chain {
		g := oprollup.DevGenesis(chain.DefaultChainID, []common.Address{crypto.PubkeyToAddress(key.PublicKey)}, chain.DevAccountBalance)
		g.Config = config
		c, err := chain.Open(chain.Config{DataDir: t.TempDir(), Genesis: g})
		if err != nil {
			t.Fatal(err)
		}
		closeAtEnd(t, c)
		return c
	}
	src, dst := open(), open()

	ctx := context.Background()
	p := preconf.New(src)
	head := src.Head()
	at := head.Time + 2
	attrs := preconf.NextAttributes(src.Config(), head, at, oprollup.SequencerFeeVault, oprollup.ExtraData(src.Config(), at))
	info := (&oprollup.DevL1{GenesisTime: head.Time}).Info(nil, at)
	attrs.Transactions, attrs.PrevRandao = []*types.Transaction{info.DepositTx()}, info.Hash
	if _, err := p.Open(ctx, attrs, preconf.PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	b, err := p.Begin()
	if err != nil {
		t.Fatal(err)
	}
	pairing := common.BytesToAddress([]byte{8})
	const gas = 12_000_000
	tx, err := types.SignNewTx(key, types.LatestSigner(src.Config()), &types.DynamicFeeTx{
		ChainID: src.Config().ChainID, To: &pairing, Data: make([]byte, 301*192), Gas: gas,
		GasFeeCap: big.NewInt(10 * params.GWei), GasTipCap: big.NewInt(params.GWei),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Add(ctx, tx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Commit(ctx, preconf.PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	block, err := p.Seal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	receipts := src.Receipts(block.Hash())
	if len(receipts) != 2 || receipts[1].Status != types.ReceiptStatusFailed || receipts[1].GasUsed != gas {
		t.Fatalf("receipts %d, pairing call status %d gas %d: want it failed, using all %d gas", len(receipts), receipts[1].Status, receipts[1].GasUsed, gas)
	}
	if err := dst.Insert(block); err != nil {
		t.Fatalf("insert the Karst block into a second chain: %v", err)
	}
	if dst.Head().Root != block.Root() {
		t.Fatalf("root %s, want %s", dst.Head().Root, block.Root())
	}
}
