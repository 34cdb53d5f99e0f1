package oprollup

import (
	"errors"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
)

// The forks op-geth does not run. op-geth v1.101702.3, the last release, runs the OP Stack
// through Jovian; every later fork is flashrpc's, made from go-ethereum's own Osaka code.
// internal/networks decides which fork is on when (a chain's configuration); this file holds
// what each adds to op-geth's rules:
//
//   - Azul, Base's own fork (mainnet 1779991200, 2026-05-28; Sepolia 1776708000): Osaka's
//     execution EIPs on L2. The configuration turns Osaka on at Azul's time (OsakaTime),
//     which brings go-ethereum's EIP-7939 CLZ and EIP-7825 transaction gas cap of 2^24
//     (deposits exempt: op-geth's preCheck returns for a deposit before the cap). op-geth
//     picks its Jovian precompile set before Osaka's (core/vm/contracts.go), so
//     PrecompileOverrides installs go-ethereum's Osaka MODEXP (EIP-7823 bounds, EIP-7883
//     pricing) and P256VERIFY (EIP-7951, 6,900 gas) over the Jovian ones. bn256Pairing keeps
//     Jovian's 81,984-byte input cap (Base's node has no other).
//   - Karst, the superchain registry chains' fork (their karst_time; OP Mainnet and Unichain
//     1783526401, 2026-07-08): the same as Azul (the configuration's OsakaTime is KarstTime),
//     plus the bn256Pairing input cap of 57,600 bytes, 300 pairs (OP's specs, karst
//     exec-engine.md; op-revm's bn254_pair KARST): karstPairing wraps op-geth's Jovian
//     contract. Karst's 31 upgrade deposits are executed as the activation block carries
//     them.
//   - Neither takes EIP-7934 from Osaka (the 8 MiB limit on a block's RLP size, which
//     go-ethereum checks in BlockValidator.ValidateBody under Osaka): neither fork lists it,
//     and op-reth does not check it. A chain validates OP Stack block bodies with
//     BodyRules' configuration.
//   - EIP-7910 (eth_config) is internal/api's; its precompile list is Precompiles'.
//
// Nothing here is written by hand but the pairing cap: every other contract is go-ethereum's.

var (
	modExpAddr  = common.BytesToAddress([]byte{0x05})
	pairingAddr = common.BytesToAddress([]byte{0x08})
	p256Addr    = common.BytesToAddress([]byte{0x01, 0x00})
)

// KarstPairingMaxInput is Karst's bn256Pairing input limit in bytes: 300 pairs of 192 bytes.
const KarstPairingMaxInput = 57_600

// ErrPairingInputTooLarge is the failure of a Karst bn256Pairing call with more than
// KarstPairingMaxInput bytes of input. As for any precompile failure, the call consumes all
// the gas it was given.
var ErrPairingInputTooLarge = errors.New("bn256 pairing input exceeds karst's 57600 bytes")

// karstPairing is Karst's bn256Pairing: op-geth's Jovian contract with the input capped at
// KarstPairingMaxInput bytes. Its price is the Jovian contract's.
type karstPairing struct{ jovian vm.PrecompiledContract }

// RequiredGas implements vm.PrecompiledContract: Jovian's (Istanbul's) price.
func (p karstPairing) RequiredGas(input []byte) uint64 { return p.jovian.RequiredGas(input) }

// Run implements vm.PrecompiledContract: it refuses input over KarstPairingMaxInput bytes,
// then runs Jovian's contract.
func (p karstPairing) Run(input []byte) ([]byte, error) {
	if len(input) > KarstPairingMaxInput {
		return nil, ErrPairingInputTooLarge
	}
	return p.jovian.Run(input)
}

// Name implements vm.PrecompiledContract: the Jovian contract's name (BN254_PAIRING).
func (p karstPairing) Name() string { return p.jovian.Name() }

// karstPairingContract is the one Karst pairing contract every EVM installs.
var karstPairingContract vm.PrecompiledContract = karstPairing{jovian: vm.PrecompiledContractsJovian[pairingAddr]}

// PrecompileOverrides returns the hook for vm.Config.PrecompileOverrides of every EVM of a
// chain with config (the chain's own block processing, the sequencer's, calls, simulations
// and traces), so that sealed, pre-confirmed and simulated execution agree. Under Osaka rules
// on an OP Stack chain (Azul or Karst) it replaces op-geth's Jovian MODEXP and P256VERIFY by
// go-ethereum's Osaka ones, and on a chain that schedules Karst (whose Osaka is Karst:
// networks.CheckRules refuses any other) the Jovian bn256Pairing by Karst's; every other
// contract, and every address on other chains, stays as it is. A replacement is made only
// where the Jovian contract itself is found, so a precompile moved away by a state override
// leaves nothing behind.
func PrecompileOverrides(config *params.ChainConfig) vm.PrecompileOverrides {
	karst := config != nil && config.IsOptimism() && config.KarstTime != nil
	return func(rules params.Rules, original vm.PrecompiledContract, addr common.Address) vm.PrecompiledContract {
		return override(karst, rules, original)
	}
}

// override returns the contract an OP Stack chain runs in place of original under rules;
// karst says whether the chain's Osaka is Karst.
func override(karst bool, rules params.Rules, original vm.PrecompiledContract) vm.PrecompiledContract {
	if original == nil || !rules.IsOsaka || !rules.IsOptimismBedrock {
		return original
	}
	switch original {
	case vm.PrecompiledContractsJovian[modExpAddr]:
		return vm.PrecompiledContractsOsaka[modExpAddr]
	case vm.PrecompiledContractsJovian[p256Addr]:
		return vm.PrecompiledContractsOsaka[p256Addr]
	case vm.PrecompiledContractsJovian[pairingAddr]:
		if karst {
			return karstPairingContract
		}
	}
	return original
}

// Precompiles returns the precompiled contracts an EVM of a chain with config runs under
// rules, by address: op-geth's active set with PrecompileOverrides applied. The map is the
// caller's.
func Precompiles(config *params.ChainConfig, rules params.Rules) vm.PrecompiledContracts {
	active := vm.ActivePrecompiledContracts(rules)
	hook := PrecompileOverrides(config)
	for addr, pc := range active {
		active[addr] = hook(rules, pc, addr)
	}
	return active
}

// VMConfig returns cfg with the precompile overrides of a chain with config installed, and
// without the code-size limits when config is marked by LiftCodeSizeLimits (codesize.go):
// the one way flashrpc builds the vm.Config of an EVM.
func VMConfig(config *params.ChainConfig, cfg vm.Config) vm.Config {
	cfg.PrecompileOverrides = PrecompileOverrides(config)
	if CodeSizeLimitsLifted(config) {
		cfg.NoMaxCodeSize = true
	}
	return cfg
}

// BodyRules returns the configuration a chain with config validates block bodies with
// (core.NewBlockValidator's): on an OP Stack chain a copy without Osaka, since the only
// Osaka rule of go-ethereum's ValidateBody is EIP-7934's block size limit, which neither
// Azul nor Karst has; config itself on any other chain.
func BodyRules(config *params.ChainConfig) *params.ChainConfig {
	if !IsOP(config) || config.OsakaTime == nil {
		return config
	}
	cp := *config
	cp.OsakaTime = nil
	return &cp
}

// HeaderRules returns engine with Denim's header rule on a chain whose Denim activation is
// denim (nil: engine itself). go-ethereum's beacon engine refuses a header whose timestamp is
// not after its parent's; from Denim on, up to five blocks share a second, so a header at
// or after the activation may carry its parent's timestamp. Before Denim the beacon rule
// stands. Every other check is the engine's: a header with its parent's timestamp is
// verified against a copy of the parent one second earlier, which changes nothing else
// after Jovian (the forks a Denim chain runs by then are active at both times).
func HeaderRules(engine consensus.Engine, denim *uint64) consensus.Engine {
	if denim == nil {
		return engine
	}
	return denimEngine{Engine: engine, denim: *denim}
}

// denimEngine is a consensus engine with Denim's header rule (HeaderRules).
type denimEngine struct {
	consensus.Engine
	denim uint64
}

// VerifyHeader implements consensus.Engine.
func (e denimEngine) VerifyHeader(chain consensus.ChainHeaderReader, header *types.Header) error {
	return e.verify(chain, header, nil)
}

// VerifyHeaders implements consensus.Engine: the headers are verified in order, each against
// the one before it (the first against its parent in chain).
func (e denimEngine) VerifyHeaders(chain consensus.ChainHeaderReader, headers []*types.Header) (chan<- struct{}, <-chan error) {
	abort := make(chan struct{})
	results := make(chan error, len(headers))
	go func() {
		for i, h := range headers {
			var parent *types.Header
			if i > 0 {
				parent = headers[i-1]
			}
			select {
			case <-abort:
				return
			case results <- e.verify(chain, h, parent):
			}
		}
	}()
	return abort, results
}

// verify verifies header with its parent (read from chain when nil).
func (e denimEngine) verify(chain consensus.ChainHeaderReader, header, parent *types.Header) error {
	if header.Number.Sign() == 0 {
		return e.Engine.VerifyHeader(chain, header)
	}
	if parent == nil {
		parent = chain.GetHeader(header.ParentHash, header.Number.Uint64()-1)
		if parent == nil {
			return consensus.ErrUnknownAncestor
		}
	}
	if header.Time == parent.Time && header.Time >= e.denim && parent.Time > 0 {
		earlier := types.CopyHeader(parent)
		earlier.Time--
		parent = earlier
	}
	return e.Engine.VerifyHeader(parentReader{ChainHeaderReader: chain, hash: header.ParentHash, parent: parent}, header)
}

// parentReader is a chain reader that answers for one header's parent with parent.
type parentReader struct {
	consensus.ChainHeaderReader
	hash   common.Hash
	parent *types.Header
}

// GetHeader implements consensus.ChainHeaderReader.
func (r parentReader) GetHeader(hash common.Hash, number uint64) *types.Header {
	if hash == r.hash && number == r.parent.Number.Uint64() {
		return r.parent
	}
	return r.ChainHeaderReader.GetHeader(hash, number)
}
