package execute

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/exec"
	"github.com/flashrpc/flashrpc/internal/exec/simulate"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// SimulateV1 answers eth_simulateV1, on the pre-confirmed endpoint only (the standard endpoint
// answers -32601 naming it). With `pending` the simulated calls are appended to the block in
// progress: the first simulated block has its number and timestamp, its parent is the sealed
// head, and its state includes the pre-confirmed transactions (decisions.md). Where `pending`
// is the next block as forecast (a chain without pre-confirmations, serve mode), the first
// simulated block is that block: its number, timestamp, fee recipient and gas limit, on
// Latest's state.
func (a *API) SimulateV1(ctx context.Context, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 2); err != nil {
		return nil, err
	}
	var opts simulate.Opts
	if err := param.DecodeArg(p, 0, &opts); err != nil {
		return nil, err
	}
	b, err := param.DecodeBlockNumberOrHash(p, 1, false)
	if err != nil {
		return nil, err
	}
	if err := simulate.CheckOpts(&opts, a.cfg.SimLimits); err != nil {
		return nil, core.SimulateError(err)
	}
	release, err := a.EVM.Acquire(ctx) // as eth_call (call.go)
	if err != nil {
		return nil, core.RequestError(err)
	}
	defer release()
	v := a.View() // the request's one view (core's view.go)
	if a.Up != nil {
		// Fetch the upstream state the simulation reads first (call.go); the probe
		// decodes its own options, so the simulation below starts from untouched ones.
		var probeOpts simulate.Opts
		if err := param.DecodeArg(p, 0, &probeOpts); err != nil {
			return nil, err
		}
		_, err := a.Discover(ctx, v, b, false, func(env exec.Env) error {
			_, err := simulate.Run(ctx, simulate.Env{Env: env, Limits: a.cfg.SimLimits}, probeOpts)
			return err
		})
		if rerr := (*rpc.Error)(nil); errors.As(err, &rerr) {
			return nil, err
		}
	}
	h, snap, err := a.HeaderByNumberOrHash(v, b)
	if err != nil {
		return nil, err
	}
	env := simulate.Env{
		Env:       exec.Env{Config: a.ChainConfig, Chain: a.Chain.Context(), GasCap: a.GasCap, EVMTimeout: a.EVMTimeout},
		Limits:    a.cfg.SimLimits,
		JumpDests: a.jumpDests,
	}
	// Simulations start from a prepared base, one per base state (simbase.go).
	var base *simulate.Base
	switch {
	case snap != nil:
		base, err = a.simBases.Get(snap, func() (*simulate.Base, error) {
			env.Header, env.State, env.Pending = snap.Parent, snap.CopyState(), snap.Header()
			env.L1Info = l1InfoOf(snap.Block.Transactions())
			return simulate.NewBase(ctx, env), nil
		})
	case h == nil:
		return nil, core.ErrHeaderNotFound
	case core.IsForecast(v, b):
		// `pending` without a block in progress (a chain without pre-confirmations, serve
		// mode): the first simulated block is the next block as forecast (core's forecast.go),
		// on Latest's state. The forecast's header is new per request: no prepared base.
		if err := a.sealedSimEnv(&env, h); err != nil {
			return nil, err
		}
		v.Cheats.Apply(env.State)
		env.Pending = a.Forecast(v)
		base = simulate.NewBase(ctx, env)
	default:
		// By header pointer: the chain hands out one *types.Header per cached block, and a
		// header's hash costs a Keccak-256 of its encoding per request.
		a.dropStaleSimBases()
		base, err = a.simBases.Get(h, func() (*simulate.Base, error) {
			if err := a.sealedSimEnv(&env, h); err != nil {
				return nil, err
			}
			return simulate.NewBase(ctx, env), nil
		})
	}
	if err != nil {
		return nil, err
	}
	blocks, err := simulate.Run(ctx, base.Env(), opts)
	if err != nil {
		return nil, core.SimulateError(err)
	}
	return json.RawMessage(appendSimBlocks(make([]byte, 0, simResultSize(blocks)), blocks, a.ChainConfig)), nil
}

// sealedSimEnv starts env on sealed block h: its state and, on an OP Stack chain, its L1
// attributes, which the simulated blocks' L1 costs read.
func (a *API) sealedSimEnv(env *simulate.Env, h *types.Header) error {
	st, err := a.Chain.StateAt(h)
	if err != nil {
		return err
	}
	env.Header, env.State = h, st
	if a.ChainConfig.IsOptimism() {
		if block := a.Chain.BlockByHash(h.Hash()); block != nil {
			env.L1Info = l1InfoOf(block.Transactions())
		}
	}
	return nil
}

// l1InfoOf returns the L1-attributes deposit an OP Stack block opens with, nil for a block
// without one (the genesis block, or any block of another chain).
func l1InfoOf(txs types.Transactions) *types.Transaction {
	if len(txs) == 0 || !txs[0].IsDepositTx() {
		return nil
	}
	return txs[0]
}
