package exec

import (
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
	precompiles []common.Address // of the last Prepare; nil before the first
	set         map[common.Address]struct{}
}

func newWarmPrecompiles(db vm.StateDB) *warmPrecompiles {
	return &warmPrecompiles{StateDB: db}
}

// Prepare prepares the access list for a transaction, with the precompiles kept aside.
func (w *warmPrecompiles) Prepare(rules params.Rules, sender, coinbase common.Address, dst *common.Address, precompiles []common.Address, list types.AccessList) {
	if len(precompiles) != len(w.precompiles) || (len(precompiles) > 0 && &precompiles[0] != &w.precompiles[0]) {
		// vm.ActivePrecompiles hands out one slice per fork: this runs once per EVM.
		w.precompiles = precompiles
		w.set = make(map[common.Address]struct{}, len(precompiles))
		for _, addr := range precompiles {
			w.set[addr] = struct{}{}
		}
	}
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
