package chaindata

import (
	"context"
	"encoding/json"
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core/types"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// Fee suggestions (core.SuggestTip) and history.
const (
	// maxFeeHistory is the most blocks eth_feeHistory reports, go-ethereum's limit.
	maxFeeHistory = 1024
	// maxRewardPercentiles is the most percentiles one eth_feeHistory call may ask for.
	maxRewardPercentiles = 100
)

// MaxPriorityFeePerGas answers eth_maxPriorityFeePerGas.
func (a *API) MaxPriorityFeePerGas(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 0); err != nil {
		return nil, err
	}
	return json.RawMessage(ethjson.AppendBig(nil, a.SuggestTip(v.Latest))), nil
}

// GasPrice is the suggested tip plus the base fee of the next block.
func (a *API) GasPrice(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 0); err != nil {
		return nil, err
	}
	price := a.SuggestTip(v.Latest)
	if baseFee := a.nextBaseFee(v); baseFee != nil {
		price.Add(price, baseFee)
	}
	return json.RawMessage(ethjson.AppendBig(nil, price)), nil
}

// nextBaseFee is the base fee a transaction sent now pays: the block in progress's on the
// pre-confirmed endpoint, else the one after the sealed head.
func (a *API) nextBaseFee(v preconf.View) *big.Int {
	if v.Pending != nil {
		return v.Pending.Block.BaseFee()
	}
	return eip1559.CalcBaseFee(a.ChainConfig, v.Latest, v.Latest.Time+1)
}

// BlobBaseFee answers eth_blobBaseFee.
func (a *API) BlobBaseFee(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 0); err != nil {
		return nil, err
	}
	head := v.Latest
	if head.ExcessBlobGas == nil {
		return core.Quantity(0), nil
	}
	excess := eip4844.CalcExcessBlobGas(a.ChainConfig, head, head.Time+1)
	next := &types.Header{Number: new(big.Int).Add(head.Number, big.NewInt(1)), Time: head.Time + 1, ExcessBlobGas: &excess}
	return json.RawMessage(ethjson.AppendBig(nil, eip4844.CalcBlobFee(a.ChainConfig, next))), nil
}

type feeHistoryResult struct {
	OldestBlock      *hexutil.Big     `json:"oldestBlock"`
	Reward           [][]*hexutil.Big `json:"reward,omitempty"`
	BaseFee          []*hexutil.Big   `json:"baseFeePerGas,omitempty"`
	GasUsedRatio     []float64        `json:"gasUsedRatio"`
	BlobBaseFee      []*hexutil.Big   `json:"baseFeePerBlobGas,omitempty"`
	BlobGasUsedRatio []float64        `json:"blobGasUsedRatio,omitempty"`
}

// FeeHistory follows go-ethereum's eth_feeHistory: blockCount blocks ending at newestBlock,
// base fees including the one after the newest block, gas-weighted tip percentiles.
func (a *API) FeeHistory(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 3); err != nil {
		return nil, err
	}
	count, err := param.DecodeHexOrDecimal(p, 0, "blockCount")
	if err != nil {
		return nil, err
	}
	newest, err := param.DecodeBlockNumber(p, 1)
	if err != nil {
		return nil, err
	}
	var percentiles []float64
	if _, err := param.DecodeOptional(p, 2, &percentiles); err != nil {
		return nil, err
	}
	if len(percentiles) > maxRewardPercentiles {
		return nil, core.ErrTooManyPercentiles(len(percentiles), maxRewardPercentiles)
	}
	for i, pct := range percentiles {
		if pct < 0 || pct > 100 {
			return nil, core.ErrRewardPercentile(pct)
		}
		if i > 0 && pct <= percentiles[i-1] {
			return nil, core.ErrRewardPercentileOrder(i, percentiles[i-1], pct)
		}
	}
	if count == 0 {
		return feeHistoryResult{OldestBlock: (*hexutil.Big)(new(big.Int)), GasUsedRatio: []float64{}}, nil
	}
	count = min(count, maxFeeHistory)
	blocks, err := a.feeHistoryBlocks(v, newest, count)
	if err != nil {
		return nil, err
	}
	res := feeHistoryResult{OldestBlock: (*hexutil.Big)(blocks[0].block.Number())}
	for _, b := range blocks {
		h := b.block.Header()
		res.BaseFee = append(res.BaseFee, bigOrZero(h.BaseFee))
		res.GasUsedRatio = append(res.GasUsedRatio, float64(h.GasUsed)/float64(h.GasLimit))
		res.BlobBaseFee = append(res.BlobBaseFee, a.blobFee(h))
		res.BlobGasUsedRatio = append(res.BlobGasUsedRatio, a.blobGasRatio(h))
		if len(percentiles) > 0 {
			res.Reward = append(res.Reward, rewards(b.block, b.receipts, percentiles))
		}
	}
	last := blocks[len(blocks)-1].block.Header()
	var nextBase *big.Int
	if a.ChainConfig.IsLondon(new(big.Int).Add(last.Number, big.NewInt(1))) {
		nextBase = eip1559.CalcBaseFee(a.ChainConfig, last, last.Time+1)
	}
	res.BaseFee = append(res.BaseFee, bigOrZero(nextBase))
	if last.ExcessBlobGas != nil {
		excess := eip4844.CalcExcessBlobGas(a.ChainConfig, last, last.Time)
		next := &types.Header{Number: new(big.Int).Add(last.Number, big.NewInt(1)), Time: last.Time, ExcessBlobGas: &excess}
		res.BlobBaseFee = append(res.BlobBaseFee, (*hexutil.Big)(eip4844.CalcBlobFee(a.ChainConfig, next)))
	} else {
		res.BlobBaseFee = append(res.BlobBaseFee, (*hexutil.Big)(new(big.Int)))
	}
	return res, nil
}

type feeBlock struct {
	block    *types.Block
	receipts types.Receipts
}

// feeHistoryBlocks returns up to count blocks ending at newest, resolved against v, oldest
// first.
func (a *API) feeHistoryBlocks(v preconf.View, newest gethrpc.BlockNumber, count uint64) ([]feeBlock, error) {
	h, snap, err := a.HeaderByNumber(v, newest)
	if err != nil {
		return nil, err
	}
	var out []feeBlock
	if snap != nil {
		out = append(out, feeBlock{snap.Block, snap.Receipts})
		h = snap.Parent
		count--
		// The block being written (core's view.go), between the block in progress and Latest.
		if s := v.Sealing; s != nil && snap != s && count > 0 && snap.Block.ParentHash() == s.Block.Hash() {
			out = append(out, feeBlock{s.Block, s.Receipts})
			h = s.Parent
			count--
		}
	}
	if h == nil {
		return nil, core.ErrFeeBlockUnavailable
	}
	for n := h.Number.Uint64(); count > 0; n-- {
		if a.Up != nil && n <= a.Up.Number() {
			break // the upstream's blocks (Upstream, internal/fork): the history starts after them
		}
		block := a.Chain.BlockByNumber(n)
		if block == nil {
			break
		}
		out = append(out, feeBlock{block, a.Chain.Receipts(block.Hash())})
		count--
		if n == 0 {
			break
		}
	}
	slices.Reverse(out)
	return out, nil
}

func (a *API) blobFee(h *types.Header) *hexutil.Big {
	if h.ExcessBlobGas == nil {
		return (*hexutil.Big)(new(big.Int))
	}
	return (*hexutil.Big)(eip4844.CalcBlobFee(a.ChainConfig, h))
}

func (a *API) blobGasRatio(h *types.Header) float64 {
	if h.BlobGasUsed == nil {
		return 0
	}
	max := eip4844.MaxBlobGasPerBlock(a.ChainConfig, h.Time)
	if max == 0 {
		return 0
	}
	return float64(*h.BlobGasUsed) / float64(max)
}

// rewards returns the gas-weighted tip percentiles of one block (go-ethereum's processBlock).
func rewards(block *types.Block, receipts types.Receipts, percentiles []float64) []*hexutil.Big {
	out := make([]*hexutil.Big, len(percentiles))
	txs := block.Transactions()
	if len(txs) == 0 || len(receipts) != len(txs) {
		for i := range out {
			out[i] = (*hexutil.Big)(new(big.Int))
		}
		return out
	}
	type txTip struct {
		gas uint64
		tip *big.Int
	}
	tips := make([]txTip, len(txs))
	for i, tx := range txs {
		tip, _ := tx.EffectiveGasTip(block.BaseFee())
		tips[i] = txTip{receipts[i].GasUsed, tip}
	}
	slices.SortStableFunc(tips, func(x, y txTip) int { return x.tip.Cmp(y.tip) })
	var txIndex int
	sum := tips[0].gas
	for i, pct := range percentiles {
		threshold := uint64(float64(block.GasUsed()) * pct / 100)
		for sum < threshold && txIndex < len(tips)-1 {
			txIndex++
			sum += tips[txIndex].gas
		}
		out[i] = (*hexutil.Big)(tips[txIndex].tip)
	}
	return out
}

func bigOrZero(b *big.Int) *hexutil.Big {
	if b == nil {
		return (*hexutil.Big)(new(big.Int))
	}
	return (*hexutil.Big)(b)
}
