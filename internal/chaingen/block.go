package chaingen

import (
	"crypto/ecdsa"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/flashrpc/flashrpc/internal/chain"
)

// Function selectors of the generated calls.
var (
	selTransfer = []byte{0xa9, 0x05, 0x9c, 0xbb} // transfer(address,uint256)
	selApprove  = []byte{0x09, 0x5e, 0xa7, 0xb3} // approve(address,uint256)
	selSwap     = []byte{0x12, 0x8a, 0xcb, 0x08} // swap(address,bool,int256,uint160,bytes)
	selPause    = []byte{0x13, 0x6d, 0x6c, 0x96} // pause(uint256)
)

// Gas each kind of call is said to use.
const (
	gasTransfer = 51_000
	gasApprove  = 46_000
	gasSwap     = 128_000
	gasPause    = 31_000
)

// blockPlan is a block's content decided by the planner, before signing.
type blockPlan struct {
	number uint64
	txs    []txPlan
}

type txPlan struct {
	sender int
	nonce  uint64
	to     common.Address
	gas    uint64
	data   []byte
	logs   []*types.Log
}

// planBlock draws the transactions of block number. It runs on one goroutine, in block order:
// nonces and the random stream are sequential.
func (p *population) planBlock(number uint64, txsPerBlock int) blockPlan {
	n := p.rng.Intn(2*txsPerBlock + 1)
	plan := blockPlan{number: number, txs: make([]txPlan, 0, n+1)}
	for range n {
		plan.txs = append(plan.txs, p.planTx())
	}
	if p.rng.Intn(p.rareEvery) == 0 {
		plan.txs = append(plan.txs, p.planRare())
	}
	return plan
}

func (p *population) newTx(to common.Address, gas uint64) txPlan {
	s := int(p.sender.Uint64())
	tx := txPlan{sender: s, nonce: p.nonces[s], to: to, gas: gas}
	p.nonces[s]++
	return tx
}

func (p *population) planTx() txPlan {
	switch r := p.rng.Intn(100); {
	case r < 60: // a token transfer
		token := p.tokens[p.token.Uint64()]
		to, amount := p.accounts[p.receiver.Uint64()], p.word()
		tx := p.newTx(token, gasTransfer)
		from := p.accounts[tx.sender]
		tx.data = call(selTransfer, to.Bytes(), amount)
		tx.logs = []*types.Log{event(token, amount, TransferTopic, from, to)}
		return tx
	case r < 75: // an approval
		token := p.tokens[p.token.Uint64()]
		spender, amount := p.spenders[p.spender.Uint64()], p.word()
		tx := p.newTx(token, gasApprove)
		owner := p.accounts[tx.sender]
		tx.data = call(selApprove, spender.Bytes(), amount)
		tx.logs = []*types.Log{event(token, amount, ApprovalTopic, owner, spender)}
		return tx
	default: // a swap: token0 in, token1 out, the pool's Swap event
		pl := p.pools[p.poolPick.Uint64()]
		tx := p.newTx(pl.addr, gasSwap)
		trader := p.accounts[tx.sender]
		in, out := p.word(), p.word()
		tx.data = call(selSwap, trader.Bytes(), in, out, p.word())
		swapData := append(append(append(append(append([]byte{}, in...), out...), p.word()...), p.word()...), p.word()...)
		tx.logs = []*types.Log{
			event(p.tokens[pl.token0], in, TransferTopic, trader, pl.addr),
			event(p.tokens[pl.tok1], out, TransferTopic, pl.addr, trader),
			event(pl.addr, swapData, SwapTopic, trader, trader),
		}
		return tx
	}
}

func (p *population) planRare() txPlan {
	tx := p.newTx(RareContract, gasPause)
	amount := p.word()
	tx.data = call(selPause, amount)
	tx.logs = []*types.Log{event(RareContract, amount, RareTopic, p.accounts[tx.sender])}
	return tx
}

// word returns 32 random bytes with the look of an amount: mostly leading zeros.
func (p *population) word() []byte {
	w := make([]byte, 32)
	n := 4 + p.rng.Intn(12)
	for i := 32 - n; i < 32; i++ {
		w[i] = byte(p.rng.Intn(256))
	}
	return w
}

// call encodes calldata: a selector and 32-byte words (addresses left-padded).
func call(selector []byte, args ...[]byte) []byte {
	data := append(make([]byte, 0, 4+32*len(args)), selector...)
	for _, a := range args {
		data = append(data, common.LeftPadBytes(a, 32)...)
	}
	return data
}

// event makes a log of address with topic0 and the addresses in indexed as the next topics.
func event(address common.Address, data []byte, topic0 common.Hash, indexed ...common.Address) *types.Log {
	topics := make([]common.Hash, 1+len(indexed))
	topics[0] = topic0
	for i, a := range indexed {
		topics[i+1] = common.BytesToHash(a.Bytes())
	}
	return &types.Log{Address: address, Topics: topics, Data: data}
}

// builder signs planned transactions and assembles blocks. It is safe for concurrent use.
type builder struct {
	config  *params.ChainConfig
	signer  types.Signer
	chainID *big.Int
	keys    []*ecdsa.PrivateKey
}

// build signs the block's transactions, makes their receipts and assembles the block with
// real transaction and receipt roots and bloom. Parent hash, base fee and time are set when it
// is appended.
func (b *builder) build(plan *blockPlan) built {
	txs := make([]*types.Transaction, len(plan.txs))
	receipts := make(types.Receipts, len(plan.txs))
	var cumulative uint64
	for i, tp := range plan.txs {
		to := tp.to
		tx := types.MustSignNewTx(b.keys[tp.sender], b.signer, &types.DynamicFeeTx{
			ChainID: b.chainID, Nonce: tp.nonce, GasTipCap: tip, GasFeeCap: feeCap,
			Gas: tp.gas + tp.gas/4, To: &to, Data: tp.data,
		})
		cumulative += tp.gas
		r := &types.Receipt{
			Type: types.DynamicFeeTxType, Status: types.ReceiptStatusSuccessful,
			CumulativeGasUsed: cumulative, Logs: tp.logs, TxHash: tx.Hash(), GasUsed: tp.gas,
			TransactionIndex: uint(i),
		}
		r.Bloom = types.CreateBloom(r)
		txs[i], receipts[i] = tx, r
	}
	zero := uint64(0)
	header := &types.Header{
		Number:           new(big.Int).SetUint64(plan.number),
		Difficulty:       new(big.Int),
		GasLimit:         chain.DefaultGasLimit,
		GasUsed:          cumulative,
		Extra:            []byte("flashrpc-chaingen"),
		BlobGasUsed:      &zero,
		ExcessBlobGas:    &zero,
		ParentBeaconRoot: &common.Hash{},
		RequestsHash:     &types.EmptyRequestsHash,
	}
	body := &types.Body{Transactions: txs, Withdrawals: []*types.Withdrawal{}}
	return built{block: types.NewBlock(header, body, receipts, trie.NewStackTrie(nil), b.config), receipts: receipts}
}
