package api

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/preconf"
)

// Block resolution: every block parameter becomes either a sealed header or the preconf snapshot
// of the block in progress (only on the pre-confirmed endpoint, only for `pending`).

var (
	errSafeNotFound      = errors.New("safe block not found")
	errFinalizedNotFound = errors.New("finalized block not found")
	errHeaderNotFound    = errors.New("header not found")
	errBlockNotFound     = errors.New("block not found")
)

// pending returns the block in progress, or nil when `pending` means the sealed head: on the
// standard endpoint, and between sealing and the next pre-confirmation.
func (a *API) pending() *preconf.Snapshot {
	if !a.cfg.Pending || a.pre == nil {
		return nil
	}
	return a.pre.Current()
}

// headerByNumber resolves a number or tag to a sealed header, or to the snapshot of the block in
// progress. A missing block gives (nil, nil, nil), except for safe and finalized, which are
// errors as in go-ethereum.
func (a *API) headerByNumber(n gethrpc.BlockNumber) (*types.Header, *preconf.Snapshot, error) {
	switch n {
	case gethrpc.PendingBlockNumber:
		if snap := a.pending(); snap != nil {
			return snap.Header(), snap, nil
		}
		return a.chain.Head(), nil, nil
	case gethrpc.LatestBlockNumber:
		return a.chain.Head(), nil, nil
	case gethrpc.EarliestBlockNumber:
		return a.chain.HeaderByNumber(0), nil, nil
	case gethrpc.SafeBlockNumber:
		if h := a.chain.Safe(); h != nil {
			return h, nil, nil
		}
		return nil, nil, errSafeNotFound
	case gethrpc.FinalizedBlockNumber:
		if h := a.chain.Finalized(); h != nil {
			return h, nil, nil
		}
		return nil, nil, errFinalizedNotFound
	}
	if n < 0 {
		return nil, nil, fmt.Errorf("invalid block number %d", n)
	}
	return a.chain.HeaderByNumber(uint64(n)), nil, nil
}

// headerByNumberOrHash resolves an EIP-1898 block parameter.
func (a *API) headerByNumberOrHash(b gethrpc.BlockNumberOrHash) (*types.Header, *preconf.Snapshot, error) {
	if n, ok := b.Number(); ok {
		return a.headerByNumber(n)
	}
	hash, _ := b.Hash()
	h := a.chain.HeaderByHash(hash)
	if h == nil {
		return nil, nil, errors.New("header for hash not found")
	}
	if b.RequireCanonical && a.chain.CanonicalHash(h.Number.Uint64()) != hash {
		return nil, nil, errors.New("hash is not currently canonical")
	}
	return h, nil, nil
}

// readState runs fn on the state of a block parameter: the pre-confirmed state for `pending`
// on the pre-confirmed endpoint, otherwise a sealed block's state. fn must only read.
func (a *API) readState(b gethrpc.BlockNumberOrHash, fn func(*state.StateDB)) error {
	h, snap, err := a.headerByNumberOrHash(b)
	if err != nil {
		return err
	}
	if snap != nil {
		snap.ReadState(fn)
		return nil
	}
	if h == nil {
		return errHeaderNotFound
	}
	if h == a.chain.Head() {
		return a.headState.read(a.chain, h, fn)
	}
	st, err := a.chain.StateAt(h)
	if err != nil {
		return err
	}
	fn(st)
	return nil
}

// stateAndHeader returns a private state copy and the header to execute on, for eth_call,
// eth_estimateGas and eth_simulateV1.
func (a *API) stateAndHeader(b gethrpc.BlockNumberOrHash) (*state.StateDB, *types.Header, error) {
	h, snap, err := a.headerByNumberOrHash(b)
	if err != nil {
		return nil, nil, err
	}
	if snap != nil {
		return snap.CopyState(), snap.Header(), nil
	}
	if h == nil {
		return nil, nil, errHeaderNotFound
	}
	st, err := a.chain.StateAt(h)
	if err != nil {
		return nil, nil, err
	}
	return st, h, nil
}
