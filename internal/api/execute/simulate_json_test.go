package execute

import (
	"bytes"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/flashrpc/flashrpc/internal/exec/simulate"
)

// TestSimResultSize: the size simResultSize gives an eth_simulateV1 result is at least the
// length of its encoding, so that encoding it never grows the buffer, and at most twice it,
// for results shaped like the benchmark bodies and a few others.
func TestSimResultSize(t *testing.T) {
	transfer := func(i int) *types.Log { // an ERC-20 Transfer: three topics, 32 bytes of data
		return &types.Log{Address: common.Address{0xaa}, Topics: []common.Hash{{1}, {2}, {byte(i)}}, Data: make([]byte, 32)}
	}
	log1 := &types.Log{Address: common.Address{0xbb}, Topics: []common.Hash{{3}}, Data: []byte{1}}
	for _, tc := range []struct {
		name        string
		blocks      int
		calls       int
		logsPerCall []*types.Log
		data        int // bytes of each transaction's data
		fullTx      bool
	}{
		{name: "blocks=1/calls=1/LOG1", blocks: 1, calls: 1, logsPerCall: []*types.Log{log1}, data: 1},
		{name: "blocks=1/calls=100/LOG1", blocks: 1, calls: 100, logsPerCall: []*types.Log{log1}, data: 1},
		{name: "blocks=3/calls=10/swap-like", blocks: 3, calls: 10, logsPerCall: []*types.Log{transfer(1), transfer(2), transfer(3), transfer(4)}, data: 100},
		{name: "blocks=2/calls=0", blocks: 2},
		{name: "blocks=1/calls=5/no logs", blocks: 1, calls: 5, data: 68},
		{name: "blocks=1/calls=5/full transactions", blocks: 1, calls: 5, logsPerCall: []*types.Log{transfer(1)}, data: 1000, fullTx: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			blocks := make([]simulate.Block, tc.blocks)
			for i := range blocks {
				blocks[i] = simBlockForSize(uint64(i+1), tc.calls, tc.logsPerCall, tc.data, tc.fullTx)
			}
			enc := appendSimBlocks(nil, blocks, params.MergedTestChainConfig)
			size := simResultSize(blocks)
			if size < len(enc) || size > 2*len(enc) {
				t.Errorf("simResultSize = %d for an encoding of %d bytes, want between %d and %d", size, len(enc), len(enc), 2*len(enc))
			}
		})
	}
}

// simBlockForSize is a simulated block of calls transactions with data bytes each, each call
// with logs and 32 bytes of return data.
func simBlockForSize(number uint64, calls int, logs []*types.Log, data int, fullTx bool) simulate.Block {
	header := &types.Header{
		Number: new(big.Int).SetUint64(number), Difficulty: new(big.Int), BaseFee: big.NewInt(params.GWei),
		GasLimit: 30_000_000, Time: 1_700_000_000 + number*12, Extra: bytes.Repeat([]byte{0x11}, 9),
	}
	var (
		txs     []*types.Transaction
		results []simulate.CallResult
		hashes  []common.Hash
		senders []common.Address
	)
	for i := range calls {
		to := common.Address{0xcc}
		tx := types.NewTx(&types.DynamicFeeTx{ChainID: big.NewInt(1), Nonce: uint64(i), Gas: 50_000, GasFeeCap: big.NewInt(params.GWei), GasTipCap: big.NewInt(1), To: &to, Data: bytes.Repeat([]byte{0x42}, data)})
		txs = append(txs, tx)
		hashes = append(hashes, tx.Hash())
		senders = append(senders, common.Address{0xdd})
		var callLogs []*types.Log
		for _, l := range logs {
			l := *l
			l.BlockNumber, l.TxIndex, l.Index = number, uint(i), uint(len(callLogs))
			callLogs = append(callLogs, &l)
		}
		results = append(results, simulate.CallResult{ReturnData: make([]byte, 32), Logs: callLogs, GasUsed: 51_234, MaxUsedGas: 52_345, Status: types.ReceiptStatusSuccessful})
	}
	block := types.NewBlock(header, &types.Body{Transactions: txs}, nil, trie.NewStackTrie(nil), params.MergedTestChainConfig)
	return simulate.Block{Header: block.Header(), Body: *block.Body(), Calls: results, Senders: senders, TxHashes: hashes, Hash: block.Hash(), Size: block.Size(), FullTx: fullTx}
}
