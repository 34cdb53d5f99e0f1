package core

import (
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// The tip suggestion of eth_maxPriorityFeePerGas, eth_gasPrice and eth_createAccessList.
const (
	// tipSampleBlocks is how many recent blocks the tip suggestion looks at.
	tipSampleBlocks = 20
	// tipPercentile picks the suggestion among the samples, as go-ethereum's oracle does.
	tipPercentile = 60
)

// defaultTip is suggested when recent blocks carry no transactions: 1 gwei, so a transaction
// priced from the suggestion is included promptly on a dev chain.
var defaultTip = big.NewInt(params.GWei)

// SuggestTip returns the 60th percentile of the smallest effective tip in each of the last 20
// sealed blocks up to head (go-ethereum's oracle takes the few smallest tips per block), or
// 1 gwei. Deposits are not sampled.
func (c *Core) SuggestTip(head *types.Header) *big.Int {
	var samples []*big.Int
	for n := head.Number.Uint64(); len(samples) < tipSampleBlocks && head.Number.Uint64()-n < tipSampleBlocks; n-- {
		if block := c.Chain.BlockByNumber(n); block != nil {
			var lowest *big.Int
			for _, tx := range block.Transactions() {
				if tx.IsDepositTx() { // an OP Stack block's deposits pay no tip
					continue
				}
				tip, err := tx.EffectiveGasTip(block.BaseFee())
				if err == nil && (lowest == nil || tip.Cmp(lowest) < 0) {
					lowest = tip
				}
			}
			if lowest != nil {
				samples = append(samples, lowest)
			}
		}
		if n == 0 {
			break
		}
	}
	if len(samples) == 0 {
		return new(big.Int).Set(defaultTip)
	}
	slices.SortFunc(samples, func(x, y *big.Int) int { return x.Cmp(y) })
	return samples[(len(samples)-1)*tipPercentile/100]
}
