package simulate

import (
	"fmt"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
)

// postExecution makes the system calls that close a block with this header and collects its
// execution layer requests (EIP-7685), as op-geth's StateProcessor does: from Prague on, the
// deposit requests in allLogs (EIP-6110), then the withdrawal (EIP-7002) and consolidation
// (EIP-7251) queues; an OP Stack chain from Isthmus on has none. nil means the block has no
// requests hash (before Prague). Withdrawals are the consensus engine's (Finalize).
func postExecution(cfg *params.ChainConfig, header *types.Header, allLogs []*types.Log, evm *vm.EVM) ([][]byte, error) {
	if cfg.IsIsthmus(header.Time) {
		return [][]byte{}, nil
	}
	if !cfg.IsPrague(header.Number, header.Time) {
		return nil, nil
	}
	requests := [][]byte{}
	if err := core.ParseDepositLogs(&requests, allLogs, cfg); err != nil {
		return nil, fmt.Errorf("failed to parse deposit logs: %w", err)
	}
	if err := core.ProcessWithdrawalQueue(&requests, evm); err != nil {
		return nil, fmt.Errorf("failed to process withdrawal queue: %w", err)
	}
	if err := core.ProcessConsolidationQueue(&requests, evm); err != nil {
		return nil, fmt.Errorf("failed to process consolidation queue: %w", err)
	}
	return requests, nil
}
