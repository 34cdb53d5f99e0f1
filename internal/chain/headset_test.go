package chain_test

import (
	"bytes"
	"crypto/ecdsa"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/flashrpc/flashrpc/internal/chain"
)

// TestSetHeadAsInsertChain writes blocks through WriteExecuted, whose head is set by
// go-ethereum's writeHeadBlock without the receipts' read-back (headset.go), and inserts the
// same blocks into a second chain through go-ethereum's own InsertChain. After each block
// both databases must hold the same head markers, canonical hashes and transaction lookup
// entries, byte for byte, and both BlockChains the same in-memory markers; after a restart
// the written chain must open at the same head.
func TestSetHeadAsInsertChain(t *testing.T) {
	t.Parallel()
	key, _ := crypto.HexToECDSA("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
	dir := t.TempDir()
	g := chain.DevGenesis(chain.DefaultChainID, []common.Address{crypto.PubkeyToAddress(key.PublicKey)})
	g.Alloc[echoAddr] = echoAccount
	written, err := chain.Open(chain.Config{DataDir: dir, Genesis: g})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			written.Close()
		}
	})
	inserted := reorgChain(t, []*ecdsa.PrivateKey{key})

	var blocks []*types.Block
	for i := range 3 {
		b := buildBlock(t, written, key, uint64(2*i), "a", "b")
		if err := inserted.Insert(b); err != nil {
			t.Fatalf("insert block %d: %v", b.NumberU64(), err)
		}
		blocks = append(blocks, b)
		sameHeadRecords(t, written, inserted, blocks)
	}
	closed = true
	if err := written.Close(); err != nil {
		t.Fatal(err)
	}
	reopened, err := chain.Open(chain.Config{DataDir: dir, Genesis: g})
	if err != nil {
		t.Fatal(err)
	}
	closeAtEnd(t, reopened)
	if reopened.Head().Hash() != blocks[2].Hash() {
		t.Fatalf("reopened at %d (%s), wrote up to %d", reopened.Head().Number, reopened.Head().Hash(), blocks[2].NumberU64())
	}
	sameHeadRecords(t, reopened, inserted, blocks)
}

// sameHeadRecords compares what setting the head writes in a and b's databases and markers.
func sameHeadRecords(t *testing.T, a, b *chain.Chain, blocks []*types.Block) {
	t.Helper()
	keys := map[string][]byte{
		"head block":  []byte("LastBlock"),
		"head header": []byte("LastHeader"),
		"head fast":   []byte("LastFast"),
	}
	for _, blk := range blocks {
		num := blk.NumberU64()
		keys["canonical hash of "+blk.Number().String()] = canonicalHashKey(num)
		for _, tx := range blk.Transactions() {
			keys["lookup of "+tx.Hash().Hex()] = append([]byte("l"), tx.Hash().Bytes()...)
		}
	}
	for what, key := range keys {
		va, erra := a.Database().Get(key)
		vb, errb := b.Database().Get(key)
		if erra != nil || errb != nil {
			t.Fatalf("%s: written %v, inserted %v", what, erra, errb)
		}
		if !bytes.Equal(va, vb) {
			t.Fatalf("%s: written %x, inserted %x", what, va, vb)
		}
	}
	head := blocks[len(blocks)-1]
	if got := rawdb.ReadHeadBlockHash(a.Database()); got != head.Hash() {
		t.Fatalf("head block marker %s, want %s", got, head.Hash())
	}
	bca, bcb := a.Context().(*core.BlockChain), b.Context().(*core.BlockChain)
	for _, m := range []struct {
		what string
		a, b *types.Header
	}{
		{"current block", bca.CurrentBlock(), bcb.CurrentBlock()},
		{"current header", bca.CurrentHeader(), bcb.CurrentHeader()},
		{"current snap block", bca.CurrentSnapBlock(), bcb.CurrentSnapBlock()},
	} {
		if m.a.Hash() != head.Hash() || m.b.Hash() != head.Hash() {
			t.Fatalf("%s: written %d, inserted %d, want %d", m.what, m.a.Number, m.b.Number, head.NumberU64())
		}
	}
}

// canonicalHashKey is rawdb's key of the canonical hash of block number: "h" + number + "n".
func canonicalHashKey(number uint64) []byte {
	key := []byte("h")
	key = append(key, common.BigToHash(new(big.Int).SetUint64(number)).Bytes()[24:]...)
	return append(key, 'n')
}
