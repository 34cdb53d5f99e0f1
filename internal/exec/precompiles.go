package exec

import (
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
)

// Precompiles returns the precompiled contracts the EVM runs under rules on a chain with
// config, by address: go-ethereum's set for the rules (on an OP Stack chain, op-geth's set of
// the newest OP fork). It is where a chain's own replacements of precompiles belong, so that
// what eth_config reports is what executes. The map is the caller's.
func Precompiles(config *params.ChainConfig, rules params.Rules) vm.PrecompiledContracts {
	return vm.ActivePrecompiledContracts(rules)
}
