package core

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/exec"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// Fork mode: what the API does on a chain that continues an upstream (Backend.Upstream,
// internal/fork), besides the routing of methods, which the Upstream does.

// maxDiscoveryPasses bounds the discovery passes of one execution (Discover);
// after them the execution reads what it still misses one read at a time.
const maxDiscoveryPasses = 8

// Prefetch makes accounts and slots of the state a request reads readable without waiting
// for the upstream (Upstream.Prefetch); nothing in a chain that is not a fork.
func (c *Core) Prefetch(ctx context.Context, h *types.Header, accounts []common.Address, slots []StorageKey) error {
	if c.Up == nil || h == nil {
		return nil
	}
	return c.Up.Prefetch(ctx, h, accounts, slots)
}

// LocalAbove reports whether hash names a local block above the fork block n.
func (c *Core) LocalAbove(hash common.Hash, n uint64) bool {
	h := c.Chain.HeaderByHash(hash)
	return h != nil && h.Number.Uint64() > n
}

// TxLocal reports whether the node knows a transaction as its own: sealed in a local block,
// pre-confirmed (or in the hidden block in progress, or the block being written), or in the
// pool. Clients poll for the receipts of their own transactions;
// those polls never go upstream (Upstream.Route).
func (c *Core) TxLocal(hash common.Hash) bool {
	if _, _, ok := c.Chain.Transaction(hash); ok {
		return true
	}
	if c.Pool != nil && c.Pool.Get(hash) != nil {
		return true
	}
	if c.Pre != nil {
		// The writer's View, hidden or not: the block being built or written holds it.
		if _, _, ok := c.Pre.View().Preconfirmed(hash); ok {
			return true
		}
	}
	return false
}

// Discover finds the upstream state an execution on block b needs (fork mode) by discovery
// passes (Upstream.Discover): probe runs on a state of the sealed block under b whose upstream
// misses read as zero and are collected; what a pass missed is fetched in one go,
// concurrently in batches, and the pass runs again, until one misses nothing or
// maxDiscoveryPasses ran (the execution then reads what it still misses one read at a time).
// A pass that missed nothing read only real values: when exact is set and b is a sealed block,
// its outcome is the answer, and Discover reports done with probe's error. An upstream failure
// while fetching is done with that failure.
func (c *Core) Discover(ctx context.Context, v preconf.View, b gethrpc.BlockNumberOrHash, exact bool, probe func(exec.Env) error) (done bool, err error) {
	h, snap, err := c.HeaderByNumberOrHash(v, b)
	if err != nil {
		return true, err
	}
	base, header := h, h
	switch {
	case snap != nil:
		base, header = snap.Parent, snap.Header() // the block in progress reads its parent
	case base != nil && IsForecast(v, b):
		header = c.Forecast(v) // the next block as forecast reads Latest (forecast.go)
	}
	if base == nil {
		return true, ErrHeaderNotFound
	}
	clean, probeErr, err := c.Up.Discover(ctx, base, maxDiscoveryPasses, func(st *state.StateDB) error {
		return probe(exec.Env{Config: c.ChainConfig, Chain: c.Chain.Context(), Header: header, State: st, GasCap: c.GasCap, EVMTimeout: c.EVMTimeout})
	})
	if err != nil {
		return true, err
	}
	if clean {
		return exact && snap == nil, probeErr
	}
	return false, nil
}

// ExecEnv is the environment of EVM work at block b of the view v: a private state
// (StateAndHeader), its header, and the endpoint's limits.
func (c *Core) ExecEnv(v preconf.View, b gethrpc.BlockNumberOrHash) (exec.Env, error) {
	st, h, err := c.StateAndHeader(v, b)
	if err != nil {
		return exec.Env{}, err
	}
	return exec.Env{Config: c.ChainConfig, Chain: c.Chain.Context(), Header: h, State: st, GasCap: c.GasCap, EVMTimeout: c.EVMTimeout}, nil
}
