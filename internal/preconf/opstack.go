package preconf

import (
	"context"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// What OP Stack blocks need beyond Ethereum's: transactions that open the block (the
// L1-attributes deposit and user deposits), the data-availability footprint budget of Jovian,
// and the L1 fee fields of receipts. On other chains these do nothing.

// ErrDAFootprintLimit refuses a transaction whose data-availability footprint (Jovian) does
// not fit in what the block has left: an OP Stack block's footprint, stored in its
// blobGasUsed, may not exceed its gas limit.
var ErrDAFootprintLimit = errors.New("block data-availability footprint limit reached")

// applyOpening executes the block's opening transactions (Attributes.Transactions).
func (w *work) applyOpening(ctx context.Context) error {
	for i, tx := range w.attrs.Transactions {
		if err := w.apply(ctx, tx); err != nil {
			return fmt.Errorf("opening transaction %d (%s): %w", i, tx.Hash().TerminalString(), err)
		}
	}
	return nil
}

// daBudget tracks a Jovian block's data-availability footprint: the sum over its non-deposit
// transactions of their estimated compressed size times the block's DA footprint gas scalar
// (op-geth's types.CalcDAFootprint, which the block header must equal).
type daBudget struct {
	on     bool   // Jovian: the block has a budget
	scalar uint64 // from the block's L1-attributes deposit
	limit  uint64 // the block's gas limit
	used   uint64
}

// newDABudget returns the budget of a block with this header and opening transactions.
func newDABudget(w *work) (daBudget, error) {
	if !w.config.IsJovian(w.header.Time) {
		return daBudget{}, nil
	}
	if len(w.attrs.Transactions) == 0 || !w.attrs.Transactions[0].IsDepositTx() {
		return daBudget{}, errors.New("an OP Stack block must open with its L1-attributes deposit")
	}
	scalar, err := types.ExtractDAFootprintGasScalar(w.attrs.Transactions[0].Data())
	if err != nil {
		return daBudget{}, err
	}
	return daBudget{on: true, scalar: uint64(scalar), limit: w.header.GasLimit}, nil
}

// fits returns tx's footprint, or ErrDAFootprintLimit when the block has not that much left.
func (d *daBudget) fits(tx *types.Transaction) (uint64, error) {
	if !d.on || tx.IsDepositTx() {
		return 0, nil
	}
	da := tx.RollupCostData().EstimatedDASize().Uint64() * d.scalar
	if d.used+da > d.limit {
		return 0, fmt.Errorf("%w: have %d, want %d", ErrDAFootprintLimit, d.limit-d.used, da)
	}
	return da, nil
}

// startL1Fields derives the L1 fee fields of the receipts from position first on
// (deriveL1Fields) on a goroutine of its own, and returns the wait for it: they depend on the
// transactions and their receipts alone, so a publication derives them while it assembles
// the block (the state root). Neither may change until the wait returns.
func (w *work) startL1Fields(first int) (wait func() error) {
	if !w.config.IsOptimism() || len(w.txs) == 0 || first >= len(w.txs) {
		return func() error { return nil }
	}
	done := make(chan error, 1)
	go func() { done <- w.deriveL1Fields(first) }()
	return func() error { return <-done }
}

// deriveL1Fields fills the OP Stack fee fields of the receipts from position first on, as
// op-geth derives them for sealed receipts (oprollup.DeriveL1Fields).
func (w *work) deriveL1Fields(first int) error {
	if !w.config.IsOptimism() || len(w.txs) == 0 || first >= len(w.txs) {
		return nil
	}
	return oprollup.DeriveL1Fields(w.config, w.header.Number.Uint64(), w.header.Time, w.txs[0], w.receipts[first:], w.txs[first:])
}
