package fork

import (
	"context"
	"fmt"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/recent"
	"github.com/flashrpc/flashrpc/internal/remote"
)

// The state of a fork. A forkReader reads the state of one block at or above the fork block
// N: the local trie of the block (empty at N), then the records (a slot the local chain changed
// or an account it deleted is not the upstream's any more), then the upstream's state at N. A
// stateDB is the state.Database all fork StateDBs use: go-ethereum's CachingDB, whose Reader
// is the forkReader of the root, because a StateDB asks its database for a new reader after
// Commit.

// stateDB is the state.Database of fork mode.
type stateDB struct {
	*state.CachingDB
	f *Upstream
}

// Reader returns the fork reader of a local state root.
func (d *stateDB) Reader(root common.Hash) (state.Reader, error) {
	n, ok := d.f.rootNumber(root)
	if !ok {
		return nil, fmt.Errorf("fork: state root %s belongs to no local block", root)
	}
	return d.f.forkReaderAt(root, n)
}

// forkReader is the state.Reader of one local state (a root and its block number). It is
// shared by the StateDBs of recent roots (as the chain's own readers are) and remembers what
// it read; go-ethereum's trie reader underneath is not safe for concurrent use, so local reads
// are serialised, while upstream reads run concurrently (remote.State shares concurrent reads
// of one key).
type forkReader struct {
	fork   *Upstream
	up     *remote.State // the upstream's state this reader falls back to (Upstream.StateOf)
	root   common.Hash
	number uint64

	localMu sync.Mutex   // serialises local's Account and Storage
	local   state.Reader // the local trie of root; its code reads are safe for concurrent use

	mu       sync.RWMutex // guards the maps
	accounts map[common.Address]*types.StateAccount
	slots    map[slotKey]common.Hash
}

// The shared readers' bounds, those of the chain's own shared readers: readers of the head,
// its parent (the base of the block being built) and a spare, each remembering up to
// sharedReaderEntries accounts plus slots (a few MB); reads past it still work, uncached.
const (
	sharedReaderRoots   = 3
	sharedReaderEntries = 1 << 16
)

type slotKey struct {
	addr common.Address
	slot common.Hash
}

// newForkReaders returns the list of the shared fork readers of recent roots.
func newForkReaders() *recent.List[common.Hash, *forkReader] {
	return recent.New[common.Hash, *forkReader](sharedReaderRoots)
}

// forkReaderAt returns the shared reader of a local state.
func (f *Upstream) forkReaderAt(root common.Hash, number uint64) (*forkReader, error) {
	return f.sharedForkReader(root, root, number, f.up)
}

// forkReaderOf returns the local root of the state after the block with header h and its
// shared reader. A replica's blocks all have the empty local trie: their readers are told
// apart by block hash, each with the upstream's state at its block (replica.go).
func (f *Upstream) forkReaderOf(h *types.Header) (common.Hash, *forkReader, error) {
	root, err := f.localRoot(h)
	if err != nil {
		return common.Hash{}, nil, err
	}
	if !f.info.Replica {
		r, err := f.forkReaderAt(root, h.Number.Uint64())
		return root, r, err
	}
	r, err := f.sharedForkReader(h.Hash(), root, h.Number.Uint64(), f.StateOf(h))
	return root, r, err
}

// sharedForkReader returns the shared reader under key of the local state root at block
// number, over the upstream state up.
func (f *Upstream) sharedForkReader(key, root common.Hash, number uint64, up *remote.State) (*forkReader, error) {
	return f.readers.Get(key, func() (*forkReader, error) {
		local, err := f.sdb.CachingDB.Reader(root)
		if err != nil {
			return nil, err
		}
		return &forkReader{
			fork: f, up: up, root: root, number: number, local: local,
			accounts: make(map[common.Address]*types.StateAccount),
			slots:    make(map[slotKey]common.Hash),
		}, nil
	})
}

// Account returns the account at addr, reading the upstream when it must.
func (r *forkReader) Account(addr common.Address) (*types.StateAccount, error) {
	return r.account(addr, nil)
}

// Storage returns the value of a slot, reading the upstream when it must.
func (r *forkReader) Storage(addr common.Address, slot common.Hash) (common.Hash, error) {
	return r.storage(addr, slot, nil)
}

// Has, Code and CodeSize read local code first, then code that came with an upstream
// account (it stays in the upstream cache; a local block that changes such an account keeps
// its code hash without storing the code again).
func (r *forkReader) Has(addr common.Address, codeHash common.Hash) bool {
	return r.local.Has(addr, codeHash) || len(r.up.Code(codeHash)) > 0
}

func (r *forkReader) Code(addr common.Address, codeHash common.Hash) []byte {
	if code := r.local.Code(addr, codeHash); len(code) > 0 {
		return code
	}
	return r.up.Code(codeHash)
}

func (r *forkReader) CodeSize(addr common.Address, codeHash common.Hash) int {
	if n := r.local.CodeSize(addr, codeHash); n > 0 {
		return n
	}
	return len(r.up.Code(codeHash))
}

// account resolves an account. With disc set an upstream read that is not cached is recorded
// there and answered as missing, and nothing is remembered.
func (r *forkReader) account(addr common.Address, disc *remote.Discovery) (*types.StateAccount, error) {
	r.mu.RLock()
	acct, ok := r.accounts[addr]
	r.mu.RUnlock()
	if ok {
		return copyAccount(acct), nil
	}
	r.localMu.Lock()
	acct, err := r.local.Account(addr)
	r.localMu.Unlock()
	switch {
	case err != nil:
		return nil, err
	case acct != nil:
		// Written locally: the local account, whose Root is its local storage root.
	case r.wiped(addr):
		// Deleted locally and not created again.
	default:
		if disc != nil {
			up, ok := r.up.PeekAccount(addr)
			if !ok {
				disc.MissAccount(addr)
				return nil, nil
			}
			acct = up
			break
		}
		if acct, err = r.up.Account(context.Background(), addr); err != nil {
			return nil, err
		}
	}
	r.mu.Lock()
	if len(r.accounts)+len(r.slots) < sharedReaderEntries {
		r.accounts[addr] = copyAccount(acct)
	}
	r.mu.Unlock()
	return acct, nil
}

// storage resolves a slot, as account resolves an account.
func (r *forkReader) storage(addr common.Address, slot common.Hash, disc *remote.Discovery) (common.Hash, error) {
	key := slotKey{addr, slot}
	r.mu.RLock()
	v, ok := r.slots[key]
	r.mu.RUnlock()
	if ok {
		return v, nil
	}
	got, err := r.resolveStorage(addr, slot, disc, false)
	if err != nil || got == nil {
		return common.Hash{}, err // a discovery miss is not remembered
	}
	r.mu.Lock()
	if len(r.accounts)+len(r.slots) < sharedReaderEntries {
		r.slots[key] = *got
	}
	r.mu.Unlock()
	return *got, nil
}

// resolveStorage returns a slot's value; nil (with no error) is a discovery miss. With
// noUpstream a value that would be the upstream's is zero instead (blockReader).
func (r *forkReader) resolveStorage(addr common.Address, slot common.Hash, disc *remote.Discovery, noUpstream bool) (*common.Hash, error) {
	r.localMu.Lock()
	v, err := r.local.Storage(addr, slot)
	r.localMu.Unlock()
	if err != nil {
		return nil, err
	}
	if v != (common.Hash{}) || r.wiped(addr) {
		return &v, nil
	}
	if n, ok := r.fork.rec.firstWrite(addr, crypto.Keccak256Hash(slot[:])); ok && n <= r.number {
		return &v, nil // the local chain set it to zero: it shadows the upstream's value
	}
	if noUpstream {
		return &v, nil
	}
	// An account the upstream does not have (no balance, nonce or code: created locally, or an
	// untouched address) has no storage there: no request. Any account it has is asked,
	// whatever its code and nonce: a genesis allocation or a state override can give storage
	// to a codeless account that never sent a transaction.
	up, known := r.up.PeekAccount(addr)
	if !known {
		if disc != nil {
			disc.MissAccount(addr)
			disc.MissStorage(addr, slot)
			return nil, nil
		}
		if up, err = r.up.Account(context.Background(), addr); err != nil {
			return nil, err
		}
	}
	if up == nil {
		return &v, nil
	}
	if disc != nil {
		if uv, ok := r.up.PeekStorage(addr, slot); ok {
			return &uv, nil
		}
		disc.MissStorage(addr, slot)
		return nil, nil
	}
	uv, err := r.up.Storage(context.Background(), addr, slot)
	if err != nil {
		return nil, err
	}
	return &uv, nil
}

// wiped reports whether the local chain deleted addr at or before the reader's block.
func (r *forkReader) wiped(addr common.Address) bool {
	n, ok := r.fork.rec.firstWipe(addr)
	return ok && n <= r.number
}

func copyAccount(a *types.StateAccount) *types.StateAccount {
	if a == nil {
		return nil
	}
	return a.Copy()
}

// discoveryReader is a forkReader seen by one discovery pass: upstream reads that are not
// cached are recorded in disc and answered as zero, and nothing it answers is remembered.
type discoveryReader struct {
	*forkReader
	disc *remote.Discovery
}

func (r discoveryReader) Account(addr common.Address) (*types.StateAccount, error) {
	return r.account(addr, r.disc)
}

func (r discoveryReader) Storage(addr common.Address, slot common.Hash) (common.Hash, error) {
	return r.storage(addr, slot, r.disc)
}

// blockReader is the reader of the state a block is built or executed on: a forkReader that
// does not ask the upstream for the slots the block's pre-execution system calls overwrite
// (the EIP-4788 beacon roots and EIP-2935 block hashes ring buffers: a slot keyed by the
// block's timestamp or number, new every block). Their values before the block only set the
// gas of those system calls, which no one pays and no receipt shows, and only the system
// address may write them, so no transaction can observe them either; reading them would make
// every new block wait for the upstream. Such a slot reads as the local chain has it, or zero,
// and is not remembered.
type blockReader struct {
	*forkReader
	overwritten [3]slotKey
	n           int
}

func (r *blockReader) Storage(addr common.Address, slot common.Hash) (common.Hash, error) {
	for _, k := range r.overwritten[:r.n] {
		if k.addr == addr && k.slot == slot {
			v, err := r.resolveStorage(addr, slot, nil, true)
			if err != nil {
				return common.Hash{}, err
			}
			return *v, nil
		}
	}
	return r.forkReader.Storage(addr, slot)
}

// systemSlots returns the reader of the state a block at number and time executes on, over
// r: the slots its pre-execution system calls overwrite (see blockReader).
func systemSlots(r *forkReader, config *params.ChainConfig, number, time uint64) *blockReader {
	br := &blockReader{forkReader: r}
	n := new(big.Int).SetUint64(number)
	if config.IsCancun(n, time) {
		i := common.BigToHash(new(big.Int).SetUint64(time % params.HistoryServeWindow))
		j := common.BigToHash(new(big.Int).SetUint64(time%params.HistoryServeWindow + params.HistoryServeWindow))
		br.overwritten[0], br.overwritten[1] = slotKey{params.BeaconRootsAddress, i}, slotKey{params.BeaconRootsAddress, j}
		br.n = 2
	}
	if config.IsPrague(n, time) && number > 0 {
		br.overwritten[br.n] = slotKey{params.HistoryStorageAddress, common.BigToHash(new(big.Int).SetUint64((number - 1) % params.HistoryServeWindow))}
		br.n++
	}
	return br
}

// BlockStateAt implements chain.Upstream: the state after parent for building a block at
// number and time on it, without reading from the upstream the slots the block's system calls
// overwrite (blockReader), so that opening a block does not wait for it.
func (f *Upstream) BlockStateAt(parent *types.Header, number, time uint64) (*state.StateDB, error) {
	return f.forkBlockState(parent, f.bc.Config(), number, time)
}

// forkBlockState is BlockStateAt's fork state with config's rules.
func (f *Upstream) forkBlockState(parent *types.Header, config *params.ChainConfig, number, time uint64) (*state.StateDB, error) {
	root, r, err := f.forkReaderOf(parent)
	if err != nil {
		return nil, err
	}
	return state.NewWithReader(root, f.sdb, systemSlots(r, config, number, time))
}

// localRoot returns the root of a block's state in the local trie: the empty trie at the fork
// block (and at every block of a replica), the header's root above it.
func (f *Upstream) localRoot(h *types.Header) (common.Hash, error) {
	n := h.Number.Uint64()
	switch {
	case n < f.info.Number:
		return common.Hash{}, fmt.Errorf("%w: the state of block %d is the upstream's (the fork is at block %d)", chain.ErrBeforeFork, n, f.info.Number)
	case n == f.info.Number, f.info.Replica: // a replica writes no state
		return types.EmptyRootHash, nil
	}
	return h.Root, nil
}

// StateAt implements chain.Upstream: it opens the fork state after the block with header h.
func (f *Upstream) StateAt(h *types.Header) (*state.StateDB, error) {
	return f.forkStateAt(h, nil)
}

// forkStateAt opens the fork state after the block with header h.
func (f *Upstream) forkStateAt(h *types.Header, disc *remote.Discovery) (*state.StateDB, error) {
	root, r, err := f.forkReaderOf(h)
	if err != nil {
		return nil, err
	}
	if disc != nil {
		return state.NewWithReader(root, f.sdb, discoveryReader{r, disc})
	}
	return state.NewWithReader(root, f.sdb, r)
}

// StateAtDiscover opens the state after the block with header h for one discovery pass: an
// upstream read that is not cached is recorded in disc and read as zero (see
// remote.Discovery).
func (f *Upstream) StateAtDiscover(h *types.Header, disc *remote.Discovery) (*state.StateDB, error) {
	st, err := f.forkStateAt(h, disc)
	if err != nil {
		return nil, fmt.Errorf("state of block %d: %w", h.Number.Uint64(), err)
	}
	return st, nil
}

// FetchDiscovered fetches what disc, filled by executions on StateAtDiscover(h, disc), found
// missing, into the upstream reader that h's state reads through: the next StateAtDiscover of
// h then finds it.
func (f *Upstream) FetchDiscovered(ctx context.Context, h *types.Header, disc *remote.Discovery) error {
	if disc.Missed() == 0 {
		return nil
	}
	_, r, err := f.forkReaderOf(h)
	if err != nil {
		return err
	}
	return disc.Fetch(ctx, r.up)
}

// PrefetchState makes the accounts and slots readable at the state after h without waiting
// for the upstream: what the local chain never wrote is read from the upstream now, in one
// go, with ctx's deadline, and an upstream failure is returned here instead of surfacing as a
// zero in a shared state.
func (f *Upstream) PrefetchState(ctx context.Context, h *types.Header, accounts []common.Address, slots []remote.SlotKey) error {
	_, r, err := f.forkReaderOf(h)
	if err != nil {
		return err
	}
	disc := remote.NewDiscovery()
	for _, a := range accounts {
		if _, err := r.account(a, disc); err != nil {
			return err
		}
	}
	for _, k := range slots {
		if _, err := r.storage(k.Addr, k.Slot, disc); err != nil {
			return err
		}
	}
	if disc.Missed() == 0 {
		return nil
	}
	return disc.Fetch(ctx, r.up)
}
