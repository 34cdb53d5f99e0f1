package chain_test

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/json"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// TestInsertAnnouncesReceipts inserts OP Stack blocks with logs into a second chain and
// checks that each OnHead event carries the receipts go-ethereum reads back for the block
// (every derived field: block hash and number, transaction index, gas price, the logs'
// positions, the L1 fee fields), although the announcement derives them with the block in
// hand.
func TestInsertAnnouncesReceipts(t *testing.T) {
	t.Parallel()
	key, err := crypto.HexToECDSA("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
	if err != nil {
		t.Fatal(err)
	}
	open := func() *chain.Chain {
		g := oprollup.DevGenesis(chain.DefaultChainID, []common.Address{crypto.PubkeyToAddress(key.PublicKey)}, chain.DevAccountBalance)
		g.Alloc[echoAddr] = echoAccount
		c, err := chain.Open(chain.Config{DataDir: t.TempDir(), Genesis: g})
		if err != nil {
			t.Fatal(err)
		}
		closeAtEnd(t, c)
		return c
	}
	src, dst := open(), open()
	blocks := types.Blocks{buildOPBlock(t, src, key, 0, "one", "two"), buildOPBlock(t, src, key, 2, "three")}
	announced := map[uint64]types.Receipts{}
	dst.OnHead(func(ev chain.HeadEvent) { announced[ev.Block.NumberU64()] = ev.Receipts })
	if err := dst.InsertBlocks(blocks); err != nil {
		t.Fatal(err)
	}
	bc := dst.Context().(*core.BlockChain)
	for _, b := range blocks {
		got, err := json.Marshal(announced[b.NumberU64()])
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(bc.GetReceiptsByHash(b.Hash()))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(want, []byte(`"l1Fee"`)) || !bytes.Contains(want, []byte(`"logs":[{`)) {
			t.Fatalf("block %d: want receipts with L1 fees and logs, read back %s", b.NumberU64(), want)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("block %d: announced receipts\n%s\nread back\n%s", b.NumberU64(), got, want)
		}
	}
}

// buildOPBlock seals one OP Stack block (its L1-attributes deposit first) on c's head with one
// echo call per data item, all from key, the first with nonce.
func buildOPBlock(t *testing.T, c *chain.Chain, key *ecdsa.PrivateKey, nonce uint64, data ...string) *types.Block {
	t.Helper()
	head := c.Head()
	at := head.Time + 2
	attrs := preconf.NextAttributes(c.Config(), head, at, oprollup.SequencerFeeVault, oprollup.ExtraData(c.Config(), at))
	info := (&oprollup.DevL1{GenesisTime: head.Time}).Info(nil, at)
	attrs.Transactions, attrs.PrevRandao = []*types.Transaction{info.DepositTx()}, info.Hash
	return buildBlockWith(t, c, attrs, key, nonce, data...)
}
