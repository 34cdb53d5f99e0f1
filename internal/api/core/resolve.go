package core

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/preconf"
)

// Block resolution: every block parameter becomes, against the request's view (view.go),
// either a sealed header or the preconf snapshot of the block in progress (only on the
// pre-confirmed endpoint, only for `pending`) or of the sealed block being written (only on
// the pre-confirmed endpoint, by its number or hash: View.Sealing).

// HeaderByNumber resolves a number or tag against v to a sealed header, or to the snapshot
// of the block in progress (then the header is nil: Snapshot.Header copies it, and few callers
// need it). `pending` without a block in progress resolves to Latest, whose state the
// forecast of the next block reads; the methods that answer with the next block's context
// ask for it (IsForecast, Forecast). A block that is missing, or sealed after v, gives (nil, nil, nil), except for safe
// and finalized, which are errors as in go-ethereum.
func (c *Core) HeaderByNumber(v preconf.View, n gethrpc.BlockNumber) (*types.Header, *preconf.Snapshot, error) {
	switch n {
	case gethrpc.PendingBlockNumber:
		if v.Pending != nil {
			return nil, v.Pending, nil
		}
		return v.Latest, nil, nil
	case gethrpc.LatestBlockNumber:
		return v.Latest, nil, nil
	case gethrpc.EarliestBlockNumber:
		return c.Chain.HeaderByNumber(0), nil, nil
	case gethrpc.SafeBlockNumber:
		if v.Safe != nil {
			return v.Safe, nil, nil
		}
		return nil, nil, ErrSafeNotFound
	case gethrpc.FinalizedBlockNumber:
		if v.Finalized != nil {
			return v.Finalized, nil, nil
		}
		return nil, nil, ErrFinalizedNotFound
	}
	if n < 0 {
		return nil, nil, ErrInvalidBlockNumber(n)
	}
	if v.Sealing != nil && uint64(n) == v.Sealing.Number() {
		return nil, v.Sealing, nil // being written: answered as pre-confirmed (view.go)
	}
	if uint64(n) > v.Latest.Number.Uint64() {
		return nil, nil, nil
	}
	return c.Chain.HeaderByNumber(uint64(n)), nil, nil
}

// HeaderByNumberOrHash resolves an EIP-1898 block parameter against v. A hash names its block
// whatever the view: a client that has the hash of a block newer than v got it from a newer
// answer.
func (c *Core) HeaderByNumberOrHash(v preconf.View, b gethrpc.BlockNumberOrHash) (*types.Header, *preconf.Snapshot, error) {
	if n, ok := b.Number(); ok {
		return c.HeaderByNumber(v, n)
	}
	hash, _ := b.Hash()
	if snap := v.SealingByHash(hash); snap != nil {
		return nil, snap, nil
	}
	h := c.Chain.HeaderByHash(hash)
	if h == nil {
		return nil, nil, ErrHashNotFound
	}
	if b.RequireCanonical && c.Chain.CanonicalHash(h.Number.Uint64()) != hash {
		return nil, nil, ErrHashNotCanonical
	}
	return h, nil, nil
}

// BlockByNumber resolves a block parameter against v to a sealed block, or the snapshot of the
// block in progress.
func (c *Core) BlockByNumber(v preconf.View, n gethrpc.BlockNumber) (*types.Block, *preconf.Snapshot, error) {
	h, snap, err := c.HeaderByNumber(v, n)
	if err != nil || snap != nil || h == nil {
		return nil, snap, err
	}
	return c.Chain.BlockByHash(h.Hash()), nil, nil
}

// BlockByHash returns the block hash names, whatever the view (as HeaderByNumberOrHash): the
// snapshot of the sealed block being written (view.go), or a sealed block; both nil for a
// hash no block has.
func (c *Core) BlockByHash(v preconf.View, hash common.Hash) (*types.Block, *preconf.Snapshot) {
	if snap := v.SealingByHash(hash); snap != nil {
		return nil, snap
	}
	return c.Chain.BlockByHash(hash), nil
}

// StateKeys name what a state read reads: accounts and storage slots.
type StateKeys struct {
	Accounts []common.Address
	Slots    []StorageKey
}

// AccountKeys names one account.
func AccountKeys(addr common.Address) StateKeys {
	return StateKeys{Accounts: []common.Address{addr}}
}

// ReadState runs fn on the state of a block parameter resolved against v: the pre-confirmed
// state for `pending` on the pre-confirmed endpoint, otherwise a sealed block's state. fn must
// only read, and only what keys names: in fork mode they are read from the upstream first
// (Prefetch), so that a shared state never meets an upstream failure. A read the state's
// database failed (a StateDB then answers an empty account) is the error instead.
func (c *Core) ReadState(ctx context.Context, v preconf.View, b gethrpc.BlockNumberOrHash, keys StateKeys, fn func(*state.StateDB)) error {
	var readErr error
	if err := c.readState(ctx, v, b, keys, func(st *state.StateDB) { fn(st); readErr = st.Error() }); err != nil {
		return err
	}
	return readErr
}

func (c *Core) readState(ctx context.Context, v preconf.View, b gethrpc.BlockNumberOrHash, keys StateKeys, fn func(*state.StateDB)) error {
	h, snap, err := c.HeaderByNumberOrHash(v, b)
	if err != nil {
		return err
	}
	if c.Up != nil {
		base := h
		if snap != nil {
			base = snap.Parent // what the block in progress did not write is its parent's
		}
		if err := c.Prefetch(ctx, base, keys.Accounts, keys.Slots); err != nil {
			return err
		}
	}
	if snap != nil {
		snap.ReadState(fn)
		return nil
	}
	if h == nil {
		return ErrHeaderNotFound
	}
	if h == v.Latest {
		if v.Cheats != nil { // a dev chain's cheats no block carries yet
			st, err := c.Chain.StateAt(h)
			if err != nil {
				return err
			}
			v.Cheats.Apply(st)
			fn(st)
			return nil
		}
		return c.headState.read(c.Chain, h, fn)
	}
	st, err := c.Chain.StateAt(h)
	if err != nil {
		return err
	}
	fn(st)
	return nil
}

// StateAndHeader returns a private state and the header to execute on, for eth_call,
// eth_estimateGas, eth_createAccessList and debug_traceCall, resolved against v: for
// `pending` without a block in progress, Latest's state and the forecast header
// (forecast.go). A pre-confirmation's state reads through to the snapshot's
// (preconf.Snapshot.ExecState): it computes no state root. On a chain with an upstream it is
// a copy (CopyState).
func (c *Core) StateAndHeader(v preconf.View, b gethrpc.BlockNumberOrHash) (*state.StateDB, *types.Header, error) {
	h, snap, err := c.HeaderByNumberOrHash(v, b)
	if err != nil {
		return nil, nil, err
	}
	if snap != nil {
		if c.Chain.Upstream() != nil {
			// A fork's or a remote-state replica's reads may fail (the upstream), and a
			// StateDB keeps a failure: through ExecState it would stay in the shared state
			// and fail every later read of pending, not only this call's.
			return snap.CopyState(), snap.Header(), nil
		}
		st, err := snap.ExecState() // reads through to the pre-confirmed state: no copy
		if err != nil {
			return nil, nil, err
		}
		return st, snap.Header(), nil
	}
	if h == nil {
		return nil, nil, ErrHeaderNotFound
	}
	st, err := c.Chain.StateAt(h)
	if err != nil {
		return nil, nil, err
	}
	if h == v.Latest {
		v.Cheats.Apply(st) // a dev chain's cheats no block carries yet
	}
	if IsForecast(v, b) {
		return st, c.Forecast(v), nil
	}
	return st, h, nil
}
