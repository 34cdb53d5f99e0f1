package exec

import (
	"context"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
)

// A SimBase is the base of many simulations, prepared once. Every eth_simulateV1 block
// starts with the EIP-4788 and EIP-2935 system calls, and for the first simulated block on a
// given base they do the same thing in every request that leaves the block's number, time
// and beacon root alone: write the same slots of the same two contracts. Running them, and
// opening and hashing those contracts' storage tries for the state root, was a fifth of a
// one-call eth_simulateV1. A SimBase runs them once, on a copy of the base state, computes
// the state root there (so the tries are open and hashed), and hands each request a copy of
// that state instead.
//
// A request gets the prepared state only when nothing it does could make the system calls
// differ (fits): the first block has the prepared number, time, parent and beacon root, and
// its state overrides touch neither the system contracts nor the system address and move no
// precompile. Its state overrides then apply after the system calls instead of before;
// touching other accounts, they commute with them, and the Finalise the system calls end
// with is done after the overrides instead. The results are the same, byte for byte; the
// tests run every simulation both ways.
//
// A SimBase is safe for concurrent use. It must not outlive the state it was made from being
// the one a request at its base should see: the API keeps one per sealed head and one per
// pre-confirmation.
type SimBase struct {
	env   SimEnv        // the base; env.State is the untouched base state
	hash  common.Hash   // env.Header's hash, the first block's parent hash
	first *types.Header // the first block's header as the prepared state assumes it; nil: nothing prepared

	mu   sync.Mutex     // serialises Copy of the states below
	warm *state.StateDB // the base state after the first block's system calls and a state root
}

// NewSimBase prepares env for simulations; env.State becomes the SimBase's and must not be
// used by the caller afterwards. A base whose first block has nothing to prepare (no system
// calls before Prague, a block-level access list from Amsterdam on) still works: every
// request then gets a copy of the base state.
func NewSimBase(ctx context.Context, env SimEnv) *SimBase {
	b := &SimBase{env: env, hash: env.Header.Hash()}
	sim := &simulator{env: env, limits: env.Limits.withDefaults()}
	blocks, err := sim.sanitizeChain([]SimBlockCalls{{}})
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
	evm := vm.NewEVM(core.NewEVMBlockContext(header, env.Chain, nil), warm, cfg, vm.Config{NoBaseFee: true})
	core.PreExecution(ctx, header.ParentBeaconRoot, env.Header, cfg, evm, header.Number, header.Time)
	evm.Release()
	warm.IntermediateRoot(cfg.Rules(header.Number, true, header.Time))
	if warm.Error() != nil {
		return b
	}
	b.first, b.warm = header, warm
	return b
}

// Env returns the environment of a simulation on this base. Its State is nil: Simulate takes
// the state from the base when it starts the first block.
func (b *SimBase) Env() SimEnv {
	env := b.env
	env.State = nil
	env.Base = b
	return env
}

// firstState returns the state the first simulated block starts from, and whether its
// system calls have already run on it.
func (b *SimBase) firstState(header *types.Header, overrides StateOverride) (*state.StateDB, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fits(header, overrides) {
		return b.warm.Copy(), true
	}
	return b.env.State.Copy(), false
}

// fits reports whether the prepared state serves a first block with this header and these
// state overrides.
func (b *SimBase) fits(header *types.Header, overrides StateOverride) bool {
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

// systemCallAccount reports whether the pre- or post-block system calls read or write addr.
func systemCallAccount(addr common.Address) bool {
	switch addr {
	case params.SystemAddress, params.BeaconRootsAddress, params.HistoryStorageAddress,
		params.WithdrawalQueueAddress, params.ConsolidationQueueAddress:
		return true
	}
	return false
}
