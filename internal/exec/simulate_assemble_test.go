package exec

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
)

// TestBloomMemo: the memo's blooms are go-ethereum's, for random logs whose addresses and
// topics repeat (so the memo answers) and include a topic holding an address (the same bytes
// but for the padding, which must not share an entry).
func TestBloomMemo(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var addrs []common.Address
	var topics []common.Hash
	for range 8 {
		var a common.Address
		var h common.Hash
		for i := range a {
			a[i] = byte(r.UintN(256))
		}
		for i := range h {
			h[i] = byte(r.UintN(256))
		}
		addrs = append(addrs, a)
		topics = append(topics, h, common.BytesToHash(a.Bytes()))
	}
	var memo bloomMemo
	for range 200 {
		receipt := &types.Receipt{}
		for range r.IntN(4) {
			log := &types.Log{Address: addrs[r.IntN(len(addrs))]}
			for range r.IntN(5) {
				log.Topics = append(log.Topics, topics[r.IntN(len(topics))])
			}
			receipt.Logs = append(receipt.Logs, log)
		}
		if got, want := memo.bloom(receipt.Logs), types.CreateBloom(receipt); got != want {
			t.Fatalf("bloom of %d logs differs from go-ethereum's", len(receipt.Logs))
		}
	}
}

// TestEncodeTx: encodeTx gives each transaction type's hash, and the encoding DeriveSha
// would use.
func TestEncodeTx(t *testing.T) {
	to := common.HexToAddress("0xc100000000000000000000000000000000000001")
	txs := []*types.Transaction{
		types.NewTx(&types.LegacyTx{Nonce: 1, To: &to, Gas: 21000, Data: []byte{1}}),
		types.NewTx(&types.AccessListTx{Nonce: 2, To: &to, Gas: 21000, AccessList: types.AccessList{{Address: to}}}),
		types.NewTx(&types.DynamicFeeTx{Nonce: 3, To: &to, Gas: 21000}),
		types.NewTx(&types.DynamicFeeTx{Nonce: 4, Gas: 21000, Data: []byte{0x60, 0}}),
		types.NewTx(&types.BlobTx{Nonce: 5, To: to, Gas: 21000, BlobHashes: []common.Hash{{1}}}),
		types.NewTx(&types.BlobTx{Nonce: 6, To: to, Gas: 21000, BlobHashes: []common.Hash{{1}}, Sidecar: types.NewBlobTxSidecar(types.BlobSidecarVersion0, nil, nil, nil)}),
		types.NewTx(&types.SetCodeTx{Nonce: 7, To: to, Gas: 21000, AuthList: []types.SetCodeAuthorization{{Address: to}}}),
	}
	for _, tx := range txs {
		enc, hash := encodeTx(tx)
		if hash != tx.Hash() {
			t.Errorf("type %d: hash %s, want %s", tx.Type(), hash, tx.Hash())
		}
		var want bytes.Buffer
		types.Transactions{tx}.EncodeIndex(0, &want)
		if !bytes.Equal(enc, want.Bytes()) {
			t.Errorf("type %d: encoding differs from EncodeIndex", tx.Type())
		}
	}
	if got, want := types.DeriveSha(encodedTxs(encodeAll(txs)), trie.NewStackTrie(nil)), types.DeriveSha(types.Transactions(txs), trie.NewStackTrie(nil)); got != want {
		t.Errorf("transactions root %s, want %s", got, want)
	}
}

func encodeAll(txs []*types.Transaction) [][]byte {
	var out [][]byte
	for _, tx := range txs {
		enc, _ := encodeTx(tx)
		out = append(out, enc)
	}
	return out
}
