package chain

import (
	"fmt"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/recent"
)

// Shared state readers. Every eth_call, eth_estimateGas and eth_simulateV1 opens a StateDB of
// the head (or the block being built on it) and reads the same few accounts and slots again:
// the sender, the called contract, the system contracts the block's pre- and post-execution
// calls touch. A StateDB remembers what it read, but only for itself, and each cold read goes
// through the snapshot's diff layers and a Keccak-256 of the key: about a quarter of an
// eth_estimateGas. The readers here are shared by all StateDBs opened on one state root and
// remember every account and slot they read, so that only the first request after a new head
// pays for them. A state root names immutable state, so nothing cached can go stale; readers
// of older roots are dropped as new heads arrive.
const (
	// sharedReaderRoots is how many state roots keep a shared reader: the head, its parent (the
	// base of the block being built) and a spare for requests that began before a new head.
	sharedReaderRoots = 3
	// sharedReaderEntries bounds the accounts plus slots one shared reader remembers (a few
	// MB); reads past it still work, uncached.
	sharedReaderEntries = 1 << 16
)

// sharedReader is a state.Reader of one state root that is safe for concurrent use and
// remembers the accounts and slots it read. Code reads go straight to go-ethereum's code
// reader, which has its own cache and is safe for concurrent use.
type sharedReader struct {
	state.Reader // code reads (by code hash: no state layer is involved)
	root         common.Hash

	// inner answers the account and slot reads the reader has not cached; missMu guards it.
	// Under the path scheme a cheated block's write merges the memory layers it reads through
	// into the disk layer (persist.go), after which they answer "layer stale": reopen then
	// opens the root's state again, from the disk layer or the state history, and the read
	// is tried once more. Without it a StateDB would take the failed read for an empty account.
	inner  state.StateReader
	reopen func() (state.Reader, error)

	mu       sync.RWMutex // guards accounts, slots
	accounts map[common.Address]*types.StateAccount
	slots    map[slotKey]common.Hash

	// missMu serialises reads that reach the inner reader: go-ethereum's trie reader, the
	// fallback when the snapshot cannot answer, is not safe for concurrent use.
	missMu sync.Mutex
}

// staleLayer reports whether err is pathdb's "layer stale": the layer a reader read through
// was merged into the disk layer. pathdb does not export the error.
func staleLayer(err error) bool {
	return err != nil && strings.Contains(err.Error(), "layer stale")
}

// innerAccount reads addr from the inner reader, opening it again once when its layer went
// stale. r.missMu must be held.
func (r *sharedReader) innerAccount(addr common.Address) (*types.StateAccount, error) {
	acct, err := r.inner.Account(addr)
	if staleLayer(err) && r.reopen != nil {
		if err = r.reopenLocked(); err != nil {
			return nil, err
		}
		return r.inner.Account(addr)
	}
	return acct, err
}

// innerStorage is innerAccount for a storage slot.
func (r *sharedReader) innerStorage(addr common.Address, slot common.Hash) (common.Hash, error) {
	value, err := r.inner.Storage(addr, slot)
	if staleLayer(err) && r.reopen != nil {
		if err = r.reopenLocked(); err != nil {
			return common.Hash{}, err
		}
		return r.inner.Storage(addr, slot)
	}
	return value, err
}

// reopenLocked replaces the inner reader with a new one of the same root. r.missMu must be held.
func (r *sharedReader) reopenLocked() error {
	fresh, err := r.reopen()
	if err != nil {
		return fmt.Errorf("state %s after its layers were written to disk: %w", r.root.TerminalString(), err)
	}
	r.inner = fresh
	return nil
}

type slotKey struct {
	addr common.Address
	slot common.Hash
}

// newSharedReaders returns the list of the shared readers of recent roots.
func newSharedReaders() *recent.List[common.Hash, *sharedReader] {
	return recent.New[common.Hash, *sharedReader](sharedReaderRoots)
}

// newSharedReader returns the shared reader of root over inner; reopen, when not nil, opens
// root's state again (sharedReader.inner).
func newSharedReader(root common.Hash, inner state.Reader, reopen func() (state.Reader, error)) *sharedReader {
	return &sharedReader{
		Reader:   inner,
		root:     root,
		inner:    inner,
		reopen:   reopen,
		accounts: make(map[common.Address]*types.StateAccount),
		slots:    make(map[slotKey]common.Hash),
	}
}

// Account returns the account at addr, nil when it does not exist. The result is the
// caller's to modify, as state.StateReader requires.
func (r *sharedReader) Account(addr common.Address) (*types.StateAccount, error) {
	r.mu.RLock()
	acct, ok := r.accounts[addr]
	r.mu.RUnlock()
	if !ok {
		r.missMu.Lock()
		read, err := r.innerAccount(addr)
		r.missMu.Unlock()
		if err != nil {
			return nil, err
		}
		acct = read
		r.mu.Lock()
		if r.full() {
			r.mu.Unlock()
			return read, nil // not kept, so the caller may have it
		}
		r.accounts[addr] = acct
		r.mu.Unlock()
	}
	if acct == nil {
		return nil, nil
	}
	return acct.Copy(), nil
}

// Storage returns the value of a storage slot, zero when it is empty.
func (r *sharedReader) Storage(addr common.Address, slot common.Hash) (common.Hash, error) {
	key := slotKey{addr, slot}
	r.mu.RLock()
	value, ok := r.slots[key]
	r.mu.RUnlock()
	if ok {
		return value, nil
	}
	r.missMu.Lock()
	value, err := r.innerStorage(addr, slot)
	r.missMu.Unlock()
	if err != nil {
		return common.Hash{}, err
	}
	r.mu.Lock()
	if !r.full() {
		r.slots[key] = value
	}
	r.mu.Unlock()
	return value, nil
}

// full reports whether the reader holds as many entries as it may. r.mu must be held.
func (r *sharedReader) full() bool {
	return len(r.accounts)+len(r.slots) >= sharedReaderEntries
}
