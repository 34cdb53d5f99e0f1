package simulate

import (
	"bytes"
	"context"
	"slices"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/exec"
	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// A Base is the base of many simulations, prepared once. Every eth_simulateV1 block
// starts with the EIP-4788 and EIP-2935 system calls, and for the first simulated block on a
// given base they do the same thing in every request that leaves the block's number, time
// and beacon root alone: write the same slots of the same two contracts. Running them, and
// opening and hashing those contracts' storage tries for the state root, was a fifth of a
// one-call eth_simulateV1. A Base runs them once, on a copy of the base state, computes
// the state root there (so the tries are open and hashed), and hands each request that state:
// on a sealed base a fresh StateDB on a memory layer holding it (layer.go), on a
// pre-confirmed one a copy.
//
// A request gets the prepared state only when nothing it does could make the system calls
// differ (fits): the first block has the prepared number, time, parent and beacon root, and
// its state overrides touch neither the system contracts nor the system address and move no
// precompile. Its state overrides then apply after the system calls instead of before;
// touching other accounts, they commute with them, and the Finalise the system calls end
// with is done after the overrides instead. The results are the same, byte for byte; the
// tests run every simulation both ways.
//
// The post-block system calls (the EIP-7002 and EIP-7251 queues) are skipped the same way when
// they provably do nothing: on the prepared state they change nothing and return no requests
// (empty queues), the contracts run go-ethereum's code (which reads only its own storage, the
// caller and the call data), and the block's calls (their transactions' access lists), fees
// and withdrawals leave those accounts and the system address alone. Another sixth of a
// one-call request.
//
// A Base is safe for concurrent use. It must not outlive the state it was made from being
// the one a request at its base should see: the API keeps one per sealed head and one per
// pre-confirmation.
type Base struct {
	env   Env           // the base; env.State is the untouched base state
	hash  common.Hash   // env.Header's hash, the first block's parent hash
	first *types.Header // the first block's header as the prepared state assumes it; nil: nothing prepared

	mu   sync.Mutex     // serialises Copy of the states below
	warm *state.StateDB // the base state after the first block's system calls and a state root
	// layer, when not nil, holds warm's state in memory on top of the base state (a sealed
	// block's): requests open a fresh StateDB on it instead of copying warm
	// (layer.go).
	layer *memLayer

	// postNoop: on warm, the post-block system calls (EIP-7002, EIP-7251) change nothing and
	// return no requests, and the queue contracts hold the code of go-ethereum's params, which
	// reads nothing but its own storage, the caller and the call data. A first block whose
	// calls do not touch those accounts then gets the same from them, and skips them.
	postNoop bool

	// passerRoot is, on an OP Stack chain from Isthmus on, the L2-to-L1 message passer's
	// storage root on warm: a first block that neither accessed the passer nor overrode it
	// has it as its withdrawals root. nil otherwise.
	passerRoot *common.Hash

	// blooms holds the bloom bits of the addresses and topics the requests' logs hold: the
	// requests on a head log the same contracts' events.
	blooms bloomCache

	// vmConfig is the chain's EVM configuration (its precompile overrides, its code size
	// limit), the same for every block on this base: oprollup.VMConfig looks the chain up
	// in a table of weak pointers, a percent of a one-call request when done per block.
	vmConfig vm.Config
}

// NewBase prepares env for simulations; env.State becomes the Base's and must not be
// used by the caller afterwards. A base whose first block has nothing to prepare (no system
// calls before Prague, a block-level access list from Amsterdam on) still works: every
// request then gets a copy of the base state.
func NewBase(ctx context.Context, env Env) *Base {
	b := &Base{env: env, hash: env.Header.Hash(), vmConfig: oprollup.VMConfig(env.Config, vm.Config{})}
	sim := &simulator{env: env, limits: env.Limits.withDefaults()}
	blocks, err := sim.sanitizeChain([]BlockCalls{{}})
	if err != nil {
		return b
	}
	headers, err := sim.makeHeaders(blocks)
	if err != nil {
		return b
	}
	header, cfg := headers[0], env.Config
	sim.finishHeader(header, env.Header)
	if !cfg.IsPrague(header.Number, header.Time) || cfg.IsAmsterdam(header.Number, header.Time) {
		return b
	}
	warm := env.State.Copy()
	evm := vm.NewEVM(core.NewEVMBlockContext(header, env.Chain, nil, cfg, warm), warm, cfg, oprollup.VMConfig(cfg, vm.Config{NoBaseFee: true}))
	exec.PreExecution(cfg, header, env.Header, evm)
	warm.IntermediateRoot(cfg.IsEIP158(header.Number))
	if warm.Error() != nil {
		return b
	}
	b.first, b.warm = header, warm
	if cfg.IsOptimismIsthmus(header.Time) {
		root := warm.GetStorageRoot(params.OptimismL2ToL1MessagePasser)
		b.passerRoot = &root
	}
	b.postNoop = postExecutionNoop(ctx, env, header, warm)
	b.layer = prepareLayer(ctx, env, header)
	return b
}

// prepareLayer runs the first block's system calls again, on a StateDB whose database is a
// memory layer over the base, and commits them there. The base must be a committed state,
// unchanged: a sealed block's (a pre-confirmed state is the sealed parent plus transactions
// held only in a StateDB). nil when it is not, or the layer refuses the transition.
func prepareLayer(ctx context.Context, env Env, header *types.Header) *memLayer {
	rules := env.Config.Rules(header.Number, true, header.Time)
	if env.Pending != nil || env.State.IntermediateRoot(rules.IsEIP158) != env.Header.Root {
		return nil
	}
	layer, err := buildMemLayer(env.State, env.Header.Root, rules, header.Number.Uint64(), func(st *state.StateDB) error {
		evm := vm.NewEVM(core.NewEVMBlockContext(header, env.Chain, nil, env.Config, st), st, env.Config, oprollup.VMConfig(env.Config, vm.Config{NoBaseFee: true}))
		exec.PreExecution(env.Config, header, env.Header, evm)
		return st.Error()
	})
	if err != nil {
		return nil
	}
	return layer
}

// postExecutionNoop reports whether the post-block system calls of a block with this header
// leave st as it is and return no requests (the queues are empty), and the queue contracts run
// go-ethereum's code.
func postExecutionNoop(ctx context.Context, env Env, header *types.Header, st *state.StateDB) bool {
	probe := st.Copy()
	if !bytes.Equal(probe.GetCode(params.WithdrawalQueueAddress), params.WithdrawalQueueCode) ||
		!bytes.Equal(probe.GetCode(params.ConsolidationQueueAddress), params.ConsolidationQueueCode) {
		return false
	}
	deleteEmpty := env.Config.IsEIP158(header.Number)
	before := probe.IntermediateRoot(deleteEmpty)
	evm := vm.NewEVM(core.NewEVMBlockContext(header, env.Chain, nil, env.Config, probe), probe, env.Config, oprollup.VMConfig(env.Config, vm.Config{NoBaseFee: true}))
	requests, err := postExecution(env.Config, header, nil, evm)
	return err == nil && requests != nil && len(requests) == 0 && probe.IntermediateRoot(deleteEmpty) == before && probe.Error() == nil
}

// skipsPostExecution reports whether a first block on the prepared state may skip the
// post-block system calls: they change nothing on the base, and the block neither touched the
// system accounts (calls from or to them, fees to them) nor has withdrawals.
func (b *Base) skipsPostExecution(header *types.Header, touched bool, withdrawals types.Withdrawals) bool {
	return b.postNoop && !touched && len(withdrawals) == 0 && !systemCallAccount(header.Coinbase)
}

// Env returns the environment of a simulation on this base. Its State is nil: Run takes
// the state from the base when it starts the first block.
func (b *Base) Env() Env {
	env := b.env
	env.State = nil
	env.Base = b
	return env
}

// vmConfig returns the EVM configuration of env's chain, without tracer, base fee rule or
// anything else that depends on the request.
func (env *Env) vmConfig() vm.Config {
	if env.Base != nil {
		return env.Base.vmConfig
	}
	return oprollup.VMConfig(env.Config, vm.Config{})
}

// firstState returns the state the first simulated block starts from, and whether its
// system calls have already run on it.
func (b *Base) firstState(header *types.Header, overrides exec.StateOverride) (*state.StateDB, bool) {
	fits := b.fits(header, overrides)
	if fits && b.layer != nil {
		if st, err := b.layer.newState(); err == nil {
			return st, true
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if fits {
		return b.warm.Copy(), true
	}
	return b.env.State.Copy(), false
}

// fits reports whether the prepared state serves a first block with this header and these
// state overrides.
func (b *Base) fits(header *types.Header, overrides exec.StateOverride) bool {
	f := b.first
	if f == nil || header.Number.Cmp(f.Number) != 0 || header.Time != f.Time || header.ParentHash != f.ParentHash {
		return false
	}
	if (header.ParentBeaconRoot == nil) != (f.ParentBeaconRoot == nil) ||
		(f.ParentBeaconRoot != nil && *header.ParentBeaconRoot != *f.ParentBeaconRoot) {
		return false
	}
	for addr, account := range overrides {
		if account.MovePrecompileTo != nil || systemCallAccount(addr) {
			return false
		}
	}
	return true
}

// systemCallAccounts are the accounts the pre- and post-block system calls read or write.
var systemCallAccounts = [...]common.Address{
	params.SystemAddress, params.BeaconRootsAddress, params.HistoryStorageAddress,
	params.WithdrawalQueueAddress, params.ConsolidationQueueAddress,
}

// systemCallAccount reports whether the pre- or post-block system calls read or write addr.
func systemCallAccount(addr common.Address) bool {
	return slices.Contains(systemCallAccounts[:], addr)
}
