package exec

import (
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// Precompiles returns the precompiled contracts the EVM runs under rules on a chain with
// config, by address: go-ethereum's set for the rules (on an OP Stack chain, op-geth's set of
// the newest OP fork) with the chain's own replacements (oprollup.Precompiles: Azul's and
// Karst's Osaka MODEXP and P256VERIFY, Karst's bn256Pairing cap), so that what eth_config reports is what executes. The map is the
// caller's.
func Precompiles(config *params.ChainConfig, rules params.Rules) vm.PrecompiledContracts {
	return oprollup.Precompiles(config, rules)
}
