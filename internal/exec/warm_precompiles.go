package exec

import (
	"sync"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
)

// warmPrecompiles is a vm.StateDB whose precompiles are warm without being in the access
// list. Every transaction starts with Prepare, which in go-ethereum builds a fresh access
// list holding the sender, the recipient, the coinbase and every active precompile: some
// twenty map inserts, with the map growing twice, a seventh of a 100-call eth_simulateV1.
// Here Prepare leaves the precompiles out of the list and remembers them instead, and the
// two access-list queries answer for them. What the EVM sees is the same: a precompile is
// warm from the first Prepare on, as in go-ethereum, where it stays in the list until the
// next Prepare; nothing ever removes it (reverts undo only journaled additions, and the EVM
// adds only what it found cold).
type warmPrecompiles struct {
	vm.StateDB
	set map[common.Address]struct{} // the precompiles of the last Prepare; nil before the first
}

// precompileSets holds a set per precompile list: vm.ActivePrecompiles hands out one slice
// per fork, so the sets are built once per process. Keyed by the slice's first element; at
// most maxPrecompileSets are kept, should a caller pass lists of its own.
var (
	precompileSets      sync.Map // *common.Address -> map[common.Address]struct{}
	precompileSetsCount atomic.Int32
)

const maxPrecompileSets = 32

// precompileSet returns the set of the addresses in list.
func precompileSet(list []common.Address) map[common.Address]struct{} {
	if len(list) == 0 {
		return nil
	}
	if set, ok := precompileSets.Load(&list[0]); ok && len(set.(map[common.Address]struct{})) == len(list) {
		return set.(map[common.Address]struct{})
	}
	set := make(map[common.Address]struct{}, len(list))
	for _, addr := range list {
		set[addr] = struct{}{}
	}
	if precompileSetsCount.Add(1) <= maxPrecompileSets {
		precompileSets.Store(&list[0], set)
	}
	return set
}

// WithWarmPrecompiles returns db with the precompiles warm from the first Prepare on, kept
// out of the access list (warmPrecompiles). Every EVM that runs calls here and in
// internal/exec/simulate runs on such a state.
func WithWarmPrecompiles(db vm.StateDB) vm.StateDB {
	return &warmPrecompiles{StateDB: db}
}

// Prepare prepares the access list for a transaction, with the precompiles kept aside.
func (w *warmPrecompiles) Prepare(rules params.Rules, sender, coinbase common.Address, dst *common.Address, precompiles []common.Address, list types.AccessList) {
	w.set = precompileSet(precompiles)
	w.StateDB.Prepare(rules, sender, coinbase, dst, nil, list)
}

// AddressInAccessList reports whether addr is warm.
func (w *warmPrecompiles) AddressInAccessList(addr common.Address) bool {
	return w.StateDB.AddressInAccessList(addr) || w.precompile(addr)
}

// SlotInAccessList reports whether addr and its slot are warm.
func (w *warmPrecompiles) SlotInAccessList(addr common.Address, slot common.Hash) (addressOk bool, slotOk bool) {
	addressOk, slotOk = w.StateDB.SlotInAccessList(addr, slot)
	return addressOk || w.precompile(addr), slotOk
}

func (w *warmPrecompiles) precompile(addr common.Address) bool {
	_, ok := w.set[addr]
	return ok
}
