package api

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/exec"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// eth_call and eth_estimateGas. With `pending` on the pre-confirmed endpoint they run in the
// context of the block in progress (its number, timestamp, base fee and fee recipient) on the
// state after the last pre-confirmed transaction (decisions.md). Like eth_simulateV1 they run
// under the node's EVM limiter once their parameters decode: beyond its running and queued
// requests they are refused at once with -32005, so a flood of them neither exhausts memory
// nor holds up the cheap methods.

// execParams decodes (args, block, stateOverrides, blockOverrides).
func execParams(p rpc.Params) (exec.Args, gethrpc.BlockNumberOrHash, exec.StateOverride, *exec.BlockOverrides, error) {
	var (
		args exec.Args
		so   exec.StateOverride
		bo   *exec.BlockOverrides
	)
	if err := checkCount(p, 4); err != nil {
		return args, gethrpc.BlockNumberOrHash{}, nil, nil, err
	}
	if err := decodeArg(p, 0, &args); err != nil {
		return args, gethrpc.BlockNumberOrHash{}, nil, nil, err
	}
	b, err := decodeBlockNumberOrHash(p, 1, false)
	if err != nil {
		return args, b, nil, nil, err
	}
	if _, err := decodeOptional(p, 2, &so); err != nil {
		return args, b, nil, nil, err
	}
	if present(p, 3) {
		bo = new(exec.BlockOverrides)
		if _, err := decodeOptional(p, 3, bo); err != nil {
			return args, b, nil, nil, err
		}
	}
	return args, b, so, bo, nil
}

func (a *API) execEnv(v preconf.View, b gethrpc.BlockNumberOrHash) (exec.Env, error) {
	st, h, err := a.stateAndHeader(v, b)
	if err != nil {
		return exec.Env{}, err
	}
	return exec.Env{Config: a.config, Chain: a.chain.Context(), Header: h, State: st, GasCap: a.cfg.GasCap, EVMTimeout: a.cfg.EVMTimeout}, nil
}

// execute runs run on the execution environment of block b, resolved against the request's
// one view (view.go). In fork mode the state it needs from the upstream is fetched first
// (discover) by passes of probe, or of run when probe is nil; when such a pass ran run on b's
// own state (a sealed block) and missed nothing, it is the answer.
func (a *API) execute(ctx context.Context, b gethrpc.BlockNumberOrHash, run, probe func(exec.Env) error) error {
	v := a.view() // the request's one view (view.go)
	if a.up != nil {
		exact := probe == nil
		if probe == nil {
			probe = run
		}
		done, err := a.discover(ctx, v, b, exact, probe)
		if done {
			return err
		}
		if err != nil {
			return err
		}
	}
	env, err := a.execEnv(v, b)
	if err != nil {
		return err
	}
	return run(env)
}

// discover finds the upstream state an execution on block b needs (fork mode) by discovery
// passes (Upstream.Discover): probe runs on a state of the sealed block under b whose upstream
// misses read as zero and are collected; what a pass missed is fetched in one go,
// concurrently in batches, and the pass runs again, until one misses nothing or
// maxDiscoveryPasses ran (the execution then reads what it still misses one read at a time).
// A pass that missed nothing read only real values: when exact is set and b is a sealed block,
// its outcome is the answer, and discover reports done with probe's error. An upstream failure
// while fetching is done with that failure.
func (a *API) discover(ctx context.Context, v preconf.View, b gethrpc.BlockNumberOrHash, exact bool, probe func(exec.Env) error) (done bool, err error) {
	h, snap, err := a.headerByNumberOrHash(v, b)
	if err != nil {
		return true, err
	}
	base, header := h, h
	if snap != nil {
		base, header = snap.Parent, snap.Header() // the block in progress reads its parent
	}
	if base == nil {
		return true, errHeaderNotFound
	}
	clean, probeErr, err := a.up.Discover(ctx, base, maxDiscoveryPasses, func(st *state.StateDB) error {
		return probe(exec.Env{Config: a.config, Chain: a.chain.Context(), Header: header, State: st, GasCap: a.cfg.GasCap, EVMTimeout: a.cfg.EVMTimeout})
	})
	if err != nil {
		return true, err
	}
	if clean {
		return exact && snap == nil, probeErr
	}
	return false, nil
}

func (a *API) call(ctx context.Context, p rpc.Params) (any, error) {
	args, b, so, bo, err := execParams(p)
	if err != nil {
		return nil, err
	}
	release, err := a.evm.Acquire(ctx)
	if err != nil {
		return nil, requestError(err)
	}
	defer release()
	var res *core.ExecutionResult
	err = a.execute(ctx, b, func(env exec.Env) (err error) {
		res, err = exec.Call(ctx, env, args, so, bo)
		return err
	}, nil)
	var rerr *rpc.Error
	if errors.As(err, &rerr) {
		return nil, err
	}
	if err != nil {
		return nil, callError(err)
	}
	return json.RawMessage(ethjson.AppendHexBytes(nil, res.Return())), nil
}

func (a *API) estimateGas(ctx context.Context, p rpc.Params) (any, error) {
	args, b, so, bo, err := execParams(p)
	if err != nil {
		return nil, err
	}
	release, err := a.evm.Acquire(ctx)
	if err != nil {
		return nil, requestError(err)
	}
	defer release()
	var gas uint64
	err = a.execute(ctx, b, func(env exec.Env) (err error) {
		gas, err = exec.EstimateGas(ctx, env, args, so, bo)
		return err
	}, func(env exec.Env) error {
		// The search's trials read what one call at the cap reads.
		_, err := exec.Call(ctx, env, args, so, bo)
		return err
	})
	var rerr *rpc.Error
	if errors.As(err, &rerr) {
		return nil, err
	}
	if err != nil {
		return nil, estimateError(err)
	}
	return quantity(gas), nil
}

// prefetchCall fetches, in fork mode, the upstream state a call of args on block b reads
// (discover), for the methods that execute a call their own way (eth_createAccessList,
// debug_traceCall). Only an upstream failure is an error here.
func (a *API) prefetchCall(ctx context.Context, v preconf.View, b gethrpc.BlockNumberOrHash, args exec.Args) error {
	if a.up == nil {
		return nil
	}
	_, err := a.discover(ctx, v, b, false, func(env exec.Env) error {
		_, err := exec.Call(ctx, env, args, nil, nil)
		return err
	})
	var rerr *rpc.Error
	if errors.As(err, &rerr) {
		return err
	}
	return nil
}
