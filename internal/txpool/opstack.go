package txpool

import (
	"fmt"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// checkType refuses the transaction types no pool may hold, with op-geth's error
// (core.ErrTxTypeNotSupported, "transaction type not supported") and a reason: deposits
// (0x7e), which only L1 makes (on the dev chain: dev_deposit), op-geth's post-execution
// transactions (0x7d), which only a block builder makes, and blob transactions on an OP Stack
// chain, which has no blobs.
func checkType(config *params.ChainConfig, tx *types.Transaction) error {
	switch {
	case tx.Type() == types.DepositTxType:
		return fmt.Errorf("%w: deposit transactions (type 0x7e) come only from L1 (on the dev chain: dev_deposit), not eth_sendRawTransaction", core.ErrTxTypeNotSupported)
	case tx.Type() == types.PostExecTxType:
		return fmt.Errorf("%w: post-execution transactions (type 0x7d) are made by the block builder only", core.ErrTxTypeNotSupported)
	case tx.Type() == types.BlobTxType && config.IsOptimism():
		return fmt.Errorf("%w: blob transactions (type 0x3) do not exist on an OP Stack chain", core.ErrTxTypeNotSupported)
	}
	return nil
}
