package txpool

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
)

// validate applies go-ethereum's pool rules (core/txpool/validation.go) and returns the sender
// and its nonce in view's state.
func (p *Pool) validate(tx *types.Transaction, view View) (common.Address, uint64, error) {
	if err := checkType(p.config, tx); err != nil {
		return common.Address{}, 0, err
	}
	head := view.Header
	limit := uint64(MaxTxSize)
	if tx.Type() == types.BlobTxType {
		limit = maxBlobTxSize
	}
	if tx.Size() > limit {
		return common.Address{}, 0, fmt.Errorf("%w: transaction size %v, limit %v", txpool.ErrOversizedData, tx.Size(), limit)
	}
	if p.config.IsOsaka(head.Number, head.Time) && tx.Gas() > params.MaxTxGas {
		return common.Address{}, 0, &gasCapError{gas: tx.Gas(), limit: params.MaxTxGas, what: "cap (EIP-7825)", geth: core.ErrGasLimitTooHigh}
	}
	if tx.Gas() > head.GasLimit {
		return common.Address{}, 0, &gasCapError{gas: tx.Gas(), limit: head.GasLimit, what: "block gas limit", geth: txpool.ErrGasLimit}
	}
	if tx.Value().Sign() < 0 {
		return common.Address{}, 0, txpool.ErrNegativeValue
	}
	if tx.GasFeeCapIntCmp(tx.GasTipCap()) < 0 {
		return common.Address{}, 0, core.ErrTipAboveFeeCap
	}
	from, err := types.Sender(p.signer, tx)
	if err != nil {
		return common.Address{}, 0, fmt.Errorf("%w: %v", txpool.ErrInvalidSender, err)
	}
	if tx.Nonce()+1 < tx.Nonce() {
		return common.Address{}, 0, core.ErrNonceMax
	}
	if _, overflow := uint256.FromBig(tx.Value()); overflow {
		return common.Address{}, 0, core.ErrInsufficientFunds
	}
	rules := p.config.Rules(head.Number, true, head.Time)
	intrinsic, err := core.IntrinsicGas(tx.Data(), tx.AccessList(), tx.SetCodeAuthorizations(), tx.To() == nil, true, rules.IsIstanbul, rules.IsShanghai)
	if err != nil {
		return common.Address{}, 0, err
	}
	if tx.Gas() < intrinsic {
		return common.Address{}, 0, fmt.Errorf("%w: gas %v, minimum needed %v", core.ErrIntrinsicGas, tx.Gas(), intrinsic)
	}
	if rules.IsPrague {
		floor, err := core.FloorDataGas(tx.Data())
		if err != nil {
			return common.Address{}, 0, err
		}
		if tx.Gas() < floor {
			return common.Address{}, 0, fmt.Errorf("%w: gas %v, minimum needed %v", core.ErrFloorDataGas, tx.Gas(), floor)
		}
	}
	if tx.Type() == types.SetCodeTxType && len(tx.SetCodeAuthorizations()) == 0 {
		return common.Address{}, 0, fmt.Errorf("set code tx must have at least one authorization tuple")
	}
	if head.BaseFee != nil && tx.GasFeeCapIntCmp(head.BaseFee) < 0 {
		return common.Address{}, 0, fmt.Errorf("%w: address %v, maxFeePerGas: %s, baseFee: %s", core.ErrFeeCapTooLow, from.Hex(), tx.GasFeeCap(), head.BaseFee)
	}
	next := view.Nonce(from)
	if tx.Nonce() < next {
		return common.Address{}, 0, fmt.Errorf("%w: next nonce %v, tx nonce %v", core.ErrNonceTooLow, next, tx.Nonce())
	}
	total, overflow := txpool.TotalTxCost(tx, view.RollupCost)
	if overflow {
		return common.Address{}, 0, fmt.Errorf("%w: total tx cost overflow", core.ErrInsufficientFunds)
	}
	balance, cost := view.Balance(from).ToBig(), total.ToBig()
	if balance.Cmp(cost) < 0 {
		return common.Address{}, 0, fmt.Errorf("%w: balance %v, tx cost %v, overshot %v", core.ErrInsufficientFunds, balance, cost, new(big.Int).Sub(cost, balance))
	}
	return from, next, nil
}
