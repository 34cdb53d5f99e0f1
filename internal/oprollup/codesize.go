package oprollup

import (
	"runtime"
	"sync"
	"weak"

	"github.com/ethereum/go-ethereum/params"
)

// Code-size limits. A dev chain may lift EIP-170's limit on deployed code (24,576 bytes) and
// EIP-3860's on initcode (49,152 bytes), as anvil's --disable-code-size-limit and Hardhat's
// allowUnlimitedContractSize do. op-geth has one switch for both, vm.Config.NoMaxCodeSize,
// which the EVM reads when it checks a CREATE's initcode and the code a creation returns; a
// chain configuration has no field for it. So the switch is carried by the chain's
// configuration value itself: LiftCodeSizeLimits marks the *params.ChainConfig a chain runs
// with (chain.Config.NoCodeSizeLimit marks its BlockChain's), and VMConfig, the one place
// flashrpc builds an EVM's vm.Config, turns the switch on for every EVM of that chain: the
// chain's own block processing, the sequencer's, calls, estimates, simulations and traces.
// A copy of the configuration is not marked.
//
// What the switch does not reach: the state transition checks a creation transaction's
// initcode against EIP-3860's 49,152 bytes whatever the vm.Config, so a creation transaction
// keeps that limit (a contract of up to about 48 KB deploys; CREATE and CREATE2 inside a
// call have none).

// liftedCodeSize holds the configurations marked by LiftCodeSizeLimits. Weak keys: a mark
// does not keep a closed chain's configuration alive, and its cleanup removes the mark.
var liftedCodeSize sync.Map // weak.Pointer[params.ChainConfig] → struct{}

// LiftCodeSizeLimits marks config so that every EVM VMConfig configures for it runs without
// EIP-170's and EIP-3860's limits. Only a dev chain's configuration may be marked: a chain
// that follows a network runs the network's rules.
func LiftCodeSizeLimits(config *params.ChainConfig) {
	key := weak.Make(config)
	if _, loaded := liftedCodeSize.LoadOrStore(key, struct{}{}); !loaded {
		runtime.AddCleanup(config, func(k weak.Pointer[params.ChainConfig]) { liftedCodeSize.Delete(k) }, key)
	}
}

// CodeSizeLimitsLifted reports whether config was marked by LiftCodeSizeLimits.
func CodeSizeLimitsLifted(config *params.ChainConfig) bool {
	if config == nil {
		return false
	}
	_, ok := liftedCodeSize.Load(weak.Make(config))
	return ok
}
