package preconf

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
)

// ExecState returns a state the caller may modify, on top of the pre-confirmed state, for
// EVM work that needs no state root (eth_call, eth_estimateGas, eth_createAccessList,
// debug_traceCall): a new StateDB whose reads go to the snapshot's state (snapshotReader).
// CopyState's go-ethereum StateDB.Copy copies every account the block touched and every trie
// node its roots resolved, 5-10 ms at the end of a block of 10,000 transactions
// (BenchmarkCopyState); this copies nothing. Its root is the partial block's, which no
// database holds (but a sealing pre-confirmation's, committed with its block): computing a
// root on it (IntermediateRoot, Commit, a proof) fails with a missing trie node instead of
// answering; eth_simulateV1, which computes roots, takes CopyState. What it reads is kept in the snapshot's state, as ReadState's reads are, and a
// read the snapshot's state fails stays failed there (a StateDB keeps its first error): a
// chain whose reads may fail (a fork's) takes CopyState.
func (s *Snapshot) ExecState() (*state.StateDB, error) {
	s.stateMu.Lock()
	db := s.state.Database()
	s.stateMu.Unlock()
	return state.NewWithReader(s.Block.Root(), db, snapshotReader{s})
}

// snapshotReader is a state.Reader over a snapshot's state, safe for concurrent use: each
// read takes the state's lock (a StateDB caches what it reads). Accounts carry the storage
// root the last assembly computed (the state roots are written into the block's own tries
// before the readers' copy is made, work.updateTries, or committed with the block a sealing
// pre-confirmation seals). A failed read of the snapshot's state
// (a fork's upstream) is returned as an error, not as an empty account.
type snapshotReader struct{ s *Snapshot }

var _ state.Reader = snapshotReader{}

// Account implements state.Reader.
func (r snapshotReader) Account(addr common.Address) (*types.StateAccount, error) {
	r.s.stateMu.Lock()
	defer r.s.stateMu.Unlock()
	st := r.s.state
	if !st.Exist(addr) {
		return nil, st.Error()
	}
	acc := &types.StateAccount{
		Nonce:    st.GetNonce(addr),
		Balance:  st.GetBalance(addr).Clone(),
		Root:     st.GetStorageRoot(addr),
		CodeHash: st.GetCodeHash(addr).Bytes(),
	}
	return acc, st.Error()
}

// Storage implements state.Reader.
func (r snapshotReader) Storage(addr common.Address, slot common.Hash) (common.Hash, error) {
	r.s.stateMu.Lock()
	defer r.s.stateMu.Unlock()
	v := r.s.state.GetState(addr, slot)
	return v, r.s.state.Error()
}

// Code implements state.ContractCodeReader: nil when addr's code is not codeHash.
func (r snapshotReader) Code(addr common.Address, codeHash common.Hash) []byte {
	r.s.stateMu.Lock()
	defer r.s.stateMu.Unlock()
	if r.s.state.GetCodeHash(addr) != codeHash {
		return nil
	}
	return r.s.state.GetCode(addr)
}

// CodeSize implements state.ContractCodeReader: 0 when addr's code is not codeHash.
func (r snapshotReader) CodeSize(addr common.Address, codeHash common.Hash) int {
	r.s.stateMu.Lock()
	defer r.s.stateMu.Unlock()
	if r.s.state.GetCodeHash(addr) != codeHash {
		return 0
	}
	return r.s.state.GetCodeSize(addr)
}

// Has implements state.ContractCodeReader.
func (r snapshotReader) Has(addr common.Address, codeHash common.Hash) bool {
	r.s.stateMu.Lock()
	defer r.s.stateMu.Unlock()
	return r.s.state.GetCodeHash(addr) == codeHash && r.s.state.GetCodeSize(addr) > 0
}
