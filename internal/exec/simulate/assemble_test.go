package simulate

import (
	"bytes"
	"math/big"
	mrand "math/rand"
	"math/rand/v2"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
)

// TestBloomMemo: the memo's blooms are go-ethereum's, for random logs whose addresses and
// topics repeat (so the memo answers) and include a topic holding an address (the same bytes
// but for the padding, which must not share an entry), in requests that share a Base's
// bits and requests without one.
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
	var shared bloomCache // a Base's: requests after the first find their bits there
	for request := range 20 {
		memo := bloomMemo{shared: &shared}
		if request%4 == 3 {
			memo.shared = nil // a request without a Base
		}
		for range 20 {
			receipt := &types.Receipt{}
			for range r.IntN(4) {
				log := &types.Log{Address: addrs[r.IntN(len(addrs))]}
				for range r.IntN(5) {
					log.Topics = append(log.Topics, topics[r.IntN(len(topics))])
				}
				receipt.Logs = append(receipt.Logs, log)
			}
			if got, want := memo.bloom(receipt.Logs), types.CreateBloom(receipt); got != want {
				t.Fatalf("request %d: bloom of %d logs differs from go-ethereum's", request, len(receipt.Logs))
			}
		}
	}
	if shared.addresses.len() == 0 || shared.topics.len() == 0 {
		t.Fatal("the shared bits hold nothing")
	}
}

// TestEncodeTx: encodeTx gives each transaction type's hash, and the encoding DeriveSha
// would use; EIP-1559 transactions (encoded by hand) with random fields too.
func TestEncodeTx(t *testing.T) {
	to := common.HexToAddress("0xc100000000000000000000000000000000000001")
	datas := []types.TxData{
		&types.LegacyTx{Nonce: 1, To: &to, Gas: 21000, Data: []byte{1}},
		&types.AccessListTx{Nonce: 2, To: &to, Gas: 21000, AccessList: types.AccessList{{Address: to}}},
		&types.DynamicFeeTx{Nonce: 3, To: &to, Gas: 21000},
		&types.DynamicFeeTx{Nonce: 4, Gas: 21000, Data: []byte{0x60, 0}},
		&types.BlobTx{Nonce: 5, To: to, Gas: 21000, BlobHashes: []common.Hash{{1}}},
		&types.BlobTx{Nonce: 6, To: to, Gas: 21000, BlobHashes: []common.Hash{{1}}, Sidecar: types.NewBlobTxSidecar(types.BlobSidecarVersion0, nil, nil, nil)},
		&types.SetCodeTx{Nonce: 7, To: to, Gas: 21000, AuthList: []types.SetCodeAuthorization{{Address: to}}},
	}
	r := rand.New(rand.NewPCG(5, 8))
	for range 300 {
		datas = append(datas, randomDynamicFeeTx(r))
	}
	var txs []*types.Transaction
	var encs [][]byte
	var arena byteArena // shared, as a block's: an encoding must not overwrite another
	for _, data := range datas {
		tx := types.NewTx(data)
		enc, hash := encodeTx(&arena, tx, data)
		if hash != tx.Hash() {
			t.Fatalf("type %d: hash %s, want %s", tx.Type(), hash, tx.Hash())
		}
		var want bytes.Buffer
		types.Transactions{tx}.EncodeIndex(0, &want)
		if !bytes.Equal(enc, want.Bytes()) {
			t.Fatalf("type %d: encoding %x, EncodeIndex %x", tx.Type(), enc, want.Bytes())
		}
		txs, encs = append(txs, tx), append(encs, enc)
	}
	if got, want := types.DeriveSha(encodedTxs(encs), trie.NewStackTrie(nil)), types.DeriveSha(types.Transactions(txs), trie.NewStackTrie(nil)); got != want {
		t.Errorf("transactions root %s, want %s", got, want)
	}
}

// randomDynamicFeeTx returns an EIP-1559 transaction with fields of random sizes, nil or
// zero numbers, contract creation and access lists among them.
func randomDynamicFeeTx(r *rand.Rand) *types.DynamicFeeTx {
	num := func() *big.Int {
		switch r.IntN(4) {
		case 0:
			return nil
		case 1:
			return new(big.Int)
		}
		return new(big.Int).Rand(r2(r), new(big.Int).Lsh(big.NewInt(1), uint(1+r.IntN(256))))
	}
	d := &types.DynamicFeeTx{ChainID: num(), Nonce: r.Uint64() >> r.IntN(64), GasTipCap: num(), GasFeeCap: num(), Gas: r.Uint64() >> r.IntN(64), Value: num(), V: num(), R: num(), S: num()}
	if r.IntN(4) > 0 {
		to := common.Address{byte(r.IntN(256)), 1}
		d.To = &to
	}
	d.Data = make([]byte, []int{0, 1, 1, 55, 56, 300}[r.IntN(6)])
	for i := range d.Data {
		d.Data[i] = byte(r.IntN(256)) >> r.IntN(8) // single bytes below 0x80 too
	}
	for range r.IntN(3) {
		tuple := types.AccessTuple{Address: common.Address{byte(r.IntN(256))}}
		for range r.IntN(3) {
			tuple.StorageKeys = append(tuple.StorageKeys, common.Hash{byte(r.IntN(256))})
		}
		d.AccessList = append(d.AccessList, tuple)
	}
	return d
}

// r2 adapts a math/rand/v2 generator for big.Int.Rand.
func r2(r *rand.Rand) *mrand.Rand { return mrand.New(mrand.NewSource(int64(r.Uint64()))) }

// TestSimReceiptsEncoding: simReceipts encode as types.Receipts for DeriveSha, for every
// receipt type, status or post state, and logs of random shapes.
func TestSimReceiptsEncoding(t *testing.T) {
	receipts := randomReceipts(rand.New(rand.NewPCG(9, 4)), 300)
	for i := range receipts {
		var got, want bytes.Buffer
		simReceipts(receipts).EncodeIndex(i, &got)
		types.Receipts(receipts).EncodeIndex(i, &want)
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("receipt %d (type %d): encoding %x, want %x", i, receipts[i].Type, got.Bytes(), want.Bytes())
		}
	}
}

// randomReceipts returns n receipts of every type, status or post state, with logs of
// random shapes and their blooms.
func randomReceipts(r *rand.Rand, n int) []*types.Receipt {
	var receipts []*types.Receipt
	for i := range n {
		rc := &types.Receipt{
			Type:              []uint8{types.LegacyTxType, types.AccessListTxType, types.DynamicFeeTxType, types.BlobTxType, types.SetCodeTxType}[r.IntN(5)],
			Status:            uint64(r.IntN(2)),
			CumulativeGasUsed: r.Uint64() >> r.IntN(64),
		}
		if i%7 == 0 {
			rc.PostState = common.Hash{byte(i)}.Bytes()
		}
		for range r.IntN(4) {
			log := &types.Log{Address: common.Address{byte(r.IntN(256))}, Data: make([]byte, []int{0, 1, 32, 60}[r.IntN(4)])}
			for range r.IntN(5) {
				log.Topics = append(log.Topics, common.Hash{byte(r.IntN(256))})
			}
			rc.Logs = append(rc.Logs, log)
		}
		rc.Bloom = types.CreateBloom(rc)
		receipts = append(receipts, rc)
	}
	return receipts
}

// TestDeriveShaOneEntry: the root of a one-entry list is the StackTrie's, for values short
// enough to sit inside a node and long ones, across the sizes where the leaf's and the
// value's RLP headers grow a length byte.
func TestDeriveShaOneEntry(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 3))
	for _, size := range []int{0, 1, 1, 2, 20, 29, 30, 31, 32, 33, 50, 51, 52, 53, 55, 56, 100, 250, 251, 252, 253, 255, 256, 300, 5000, 70000} {
		value := make([]byte, size)
		for i := range value {
			value[i] = byte(r.IntN(256)) >> r.IntN(8)
		}
		list := encodedTxs{value}
		if got, want := listRoot(list), types.DeriveSha(list, trie.NewStackTrie(nil)); got != want {
			t.Fatalf("%d-byte entry: root %s, want %s", size, got, want)
		}
	}
}
