package exec

import (
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
)

// PreExecution makes the system calls that open a block with this header on top of parent,
// as op-geth's StateProcessor does: EIP-4788 (the parent beacon root) and, from Prague on,
// EIP-2935 (the parent hash).
func PreExecution(cfg *params.ChainConfig, header, parent *types.Header, evm *vm.EVM) {
	if header.ParentBeaconRoot != nil {
		core.ProcessBeaconBlockRoot(*header.ParentBeaconRoot, evm)
	}
	if cfg.IsPrague(header.Number, header.Time) {
		core.ProcessParentBlockHash(parent.Hash(), evm)
	}
}
