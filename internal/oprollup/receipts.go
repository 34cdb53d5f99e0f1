package oprollup

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// DeriveL1Fields sets on receipts the OP Stack fields op-geth derives when it reads a sealed
// block's receipts back (l1GasPrice, l1BlobBaseFee, l1GasUsed, l1Fee, the fee scalars, the
// operator fee parameters when non-zero, and since Jovian daFootprintGasScalar and the DA
// footprint in BlobGasUsed), so that a pre-confirmed receipt carries exactly what its sealed
// receipt will. receipts are those of txs, which follow l1Info, the L1-attributes deposit of
// block number at time blockTime, in that block. Deposits get no fields.
//
// The fields come from op-geth's own derivation (types.Receipts.DeriveFields), run on
// stand-in receipts so that only these fields of receipts change and the cost does not grow
// with the transactions before them.
func DeriveL1Fields(config *params.ChainConfig, number, blockTime uint64, l1Info *types.Transaction, receipts []*types.Receipt, txs []*types.Transaction) error {
	if len(receipts) != len(txs) {
		return fmt.Errorf("derive L1 fields: %d receipts for %d transactions", len(receipts), len(txs))
	}
	if len(txs) == 0 {
		return nil
	}
	// The stand-in receipts are allocated together: one allocation, not one per transaction.
	standIns := make([]types.Receipt, len(txs)+1)
	stand := make(types.Receipts, len(txs)+1)
	all := make([]*types.Transaction, 0, len(txs)+1)
	stand[0], all = &standIns[0], append(all, l1Info)
	for i, tx := range txs {
		standIns[i+1].DepositNonce = receipts[i].DepositNonce
		stand[i+1] = &standIns[i+1]
		all = append(all, tx)
	}
	if err := stand.DeriveFields(config, common.Hash{}, number, blockTime, nil, nil, all); err != nil {
		return fmt.Errorf("derive L1 fields: %w", err)
	}
	for i, r := range receipts {
		if txs[i].IsDepositTx() {
			continue
		}
		s := stand[i+1]
		r.L1GasPrice, r.L1BlobBaseFee, r.L1GasUsed, r.L1Fee = s.L1GasPrice, s.L1BlobBaseFee, s.L1GasUsed, s.L1Fee
		r.FeeScalar, r.L1BaseFeeScalar, r.L1BlobBaseFeeScalar = s.FeeScalar, s.L1BaseFeeScalar, s.L1BlobBaseFeeScalar
		r.OperatorFeeScalar, r.OperatorFeeConstant = s.OperatorFeeScalar, s.OperatorFeeConstant
		if s.DAFootprintGasScalar != nil {
			r.DAFootprintGasScalar, r.BlobGasUsed = s.DAFootprintGasScalar, s.BlobGasUsed
		}
	}
	return nil
}
