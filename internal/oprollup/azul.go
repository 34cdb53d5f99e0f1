package oprollup

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
)

// Azul is Base's own fork (mainnet 2026-05-13): Osaka's EVM changes on L2. op-geth has no
// Azul of its own; the chain turns Osaka on (ChainConfig's OsakaTime), which brings the
// EIP-7825 transaction gas cap (deposits exempt: op-geth checks it after the deposit early
// return), EIP-7939 CLZ and EIP-7934's block size cap. op-geth picks its Jovian precompile set
// before Osaka's (core/vm/contracts.go), so Osaka's MODEXP (EIP-7823 bounds, EIP-7883 pricing)
// and P256VERIFY (EIP-7951, 6,900 gas) come from PrecompileOverrides, which installs
// go-ethereum's own Osaka contracts over the Jovian ones. Nothing here is written by hand.

var (
	modExpAddr = common.BytesToAddress([]byte{0x05})
	p256Addr   = common.BytesToAddress([]byte{0x01, 0x00})
)

// PrecompileOverrides is the vm.Config hook every EVM of a flashrpc chain runs with (the
// chain's own block processing, the sequencer's, calls, simulations and traces), so that
// sealed, pre-confirmed and simulated execution agree. Under Osaka rules on an OP Stack chain
// it replaces op-geth's Jovian MODEXP and P256VERIFY by go-ethereum's Osaka ones; every other
// contract, and every address on other chains, stays as it is. A replacement is made only
// where the Jovian contract itself is found, so a precompile moved away by a state override
// leaves nothing behind.
func PrecompileOverrides(rules params.Rules, original vm.PrecompiledContract, addr common.Address) vm.PrecompiledContract {
	if original == nil || !rules.IsOsaka || !rules.IsOptimismBedrock {
		return original
	}
	switch original {
	case vm.PrecompiledContractsJovian[modExpAddr]:
		return vm.PrecompiledContractsOsaka[modExpAddr]
	case vm.PrecompiledContractsJovian[p256Addr]:
		return vm.PrecompiledContractsOsaka[p256Addr]
	}
	return original
}

// Precompiles returns the precompiled contracts an EVM of a chain runs under rules, by
// address: op-geth's active set with PrecompileOverrides applied. The map is the caller's.
func Precompiles(rules params.Rules) vm.PrecompiledContracts {
	active := vm.ActivePrecompiledContracts(rules)
	for addr, pc := range active {
		active[addr] = PrecompileOverrides(rules, pc, addr)
	}
	return active
}

// VMConfig returns cfg with PrecompileOverrides installed: the one way flashrpc builds the
// vm.Config of an EVM.
func VMConfig(cfg vm.Config) vm.Config {
	cfg.PrecompileOverrides = PrecompileOverrides
	return cfg
}
