package simulate

import (
	"errors"
	"math"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// What op-geth's FinalizeAndAssemble does beyond Ethereum's for a simulated OP Stack block,
// and the extraData its base fee needs. eth_call and eth_estimateGas need nothing here: the
// EVM's block context brings the L1 cost functions, and like op-geth they never charge the L1
// fee (their messages skip the nonce checks).

// opExtra returns the extraData of a simulated block after prev: prev's on an OP Stack chain
// from Holocene on (the EIP-1559 parameters the next base fee is computed from), none
// otherwise.
func opExtra(cfg *params.ChainConfig, prev *types.Header) []byte {
	if !cfg.IsOptimismHolocene(prev.Time) {
		return nil
	}
	return common.CopyBytes(prev.Extra)
}

// opFinalize sets a simulated OP Stack block's DA footprint (Jovian: blobGasUsed, computed
// with the base block's L1-attributes deposit in front of the block's transactions, as
// op-geth's simulator does) and returns its withdrawals root (Isthmus: L2ToL1MessagePasser's
// storage root, read after the state root was computed), nil before Isthmus.
func (sim *simulator) opFinalize(run *blockRun) (*common.Hash, error) {
	cfg, header, txs := sim.env.Config, run.header, run.txEncodings
	if cfg.IsJovian(header.Time) {
		var footprint uint64
		if info := sim.env.L1Info; info != nil {
			var err error
			footprint, err = daFootprint(info, txs)
			if err != nil {
				return nil, simErrorf(Internal, "DA footprint: %v", err)
			}
		}
		header.BlobGasUsed = &footprint
	}
	if !cfg.IsOptimismIsthmus(header.Time) {
		return nil, nil
	}
	// On a prepared base the passer's storage is the base's unless the block went near it:
	// reading its account again was a fiftieth of a one-call request.
	if b := sim.env.Base; run.prepared && run.passerUntouched && b.passerRoot != nil {
		root := *b.passerRoot // the header's own: the Base is shared
		return &root, nil
	}
	root := sim.env.State.GetStorageRoot(params.OptimismL2ToL1MessagePasser)
	return &root, nil
}

// daFootprint is types.CalcDAFootprint of a block that opens with the L1-attributes deposit
// info, followed by transactions that are not deposits (a simulated block's), given as their
// encodings. CalcDAFootprint encodes every transaction again (MarshalBinary, the encoding the
// transaction trie holds) through reflection: a twentieth of a one-call request. The FastLZ
// sizes are fastLZLen's, op-geth's without its per-transaction table.
func daFootprint(info *types.Transaction, txs encodedTxs) (uint64, error) {
	data := info.Data()
	if len(data) == types.IsthmusL1AttributesLen {
		// The first Jovian block has no DA footprint scalar yet, and no user transactions.
		if len(txs) > 0 {
			return 0, errors.New("unexpected non-deposit transactions in Jovian activation block")
		}
		return 0, nil
	}
	scalar, err := types.ExtractDAFootprintGasScalar(data)
	if err != nil {
		return 0, err
	}
	var footprint uint64
	for _, enc := range txs {
		footprint += estimatedDASize(uint64(fastLZLen(enc))) * uint64(scalar)
	}
	return footprint, nil
}

// Fjord's DA size model, op-geth's figures, scaled by 1e6.
var (
	daIntercept  = types.L1CostIntercept.Int64()
	daFastlzCoef = types.L1CostFastlzCoef.Int64()
	daMinScaled  = types.MinTransactionSizeScaled.Int64()
)

// estimatedDASize is op-geth's RollupCostData.EstimatedDASize of a transaction whose FastLZ
// size is fastLzSize, max(minimum, intercept + coefficient × size) / 1e6, in int64 instead of
// four big.Int allocations: a fortieth of a 100-call request. The product fits for any size
// under 2^32 bytes; larger ones take op-geth's path.
func estimatedDASize(fastLzSize uint64) uint64 {
	if fastLzSize > math.MaxUint32 {
		return types.RollupCostData{FastLzSize: fastLzSize}.EstimatedDASize().Uint64()
	}
	scaled := max(daIntercept+daFastlzCoef*int64(fastLzSize), daMinScaled)
	return uint64(scaled / 1e6)
}
