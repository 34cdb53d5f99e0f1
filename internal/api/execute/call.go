package execute

import (
	"context"
	"encoding/json"
	"errors"

	gethcore "github.com/ethereum/go-ethereum/core"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/api/param"
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
	if err := param.CheckCount(p, 4); err != nil {
		return args, gethrpc.BlockNumberOrHash{}, nil, nil, err
	}
	if err := param.DecodeArg(p, 0, &args); err != nil {
		return args, gethrpc.BlockNumberOrHash{}, nil, nil, err
	}
	b, err := param.DecodeBlockNumberOrHash(p, 1, false)
	if err != nil {
		return args, b, nil, nil, err
	}
	if _, err := param.DecodeOptional(p, 2, &so); err != nil {
		return args, b, nil, nil, err
	}
	if param.Present(p, 3) {
		bo = new(exec.BlockOverrides)
		if _, err := param.DecodeOptional(p, 3, bo); err != nil {
			return args, b, nil, nil, err
		}
	}
	return args, b, so, bo, nil
}

// execute runs run on the execution environment of block b, resolved against the request's
// one view (core's view.go). In fork mode the state it needs from the upstream is fetched first
// (core.Core.Discover) by passes of probe, or of run when probe is nil; when such a pass ran run on b's
// own state (a sealed block) and missed nothing, it is the answer.
func (a *API) execute(ctx context.Context, b gethrpc.BlockNumberOrHash, run, probe func(exec.Env) error) error {
	v := a.View() // the request's one view (core's view.go)
	if a.Up != nil {
		exact := probe == nil
		if probe == nil {
			probe = run
		}
		done, err := a.Discover(ctx, v, b, exact, probe)
		if done {
			return err
		}
		if err != nil {
			return err
		}
	}
	env, err := a.ExecEnv(v, b)
	if err != nil {
		return err
	}
	return run(env)
}

// Call answers eth_call.
func (a *API) Call(ctx context.Context, p rpc.Params) (any, error) {
	args, b, so, bo, err := execParams(p)
	if err != nil {
		return nil, err
	}
	release, err := a.EVM.Acquire(ctx)
	if err != nil {
		return nil, core.RequestError(err)
	}
	defer release()
	var res *gethcore.ExecutionResult
	err = a.execute(ctx, b, func(env exec.Env) (err error) {
		res, err = exec.Call(ctx, env, args, so, bo)
		return err
	}, nil)
	var rerr *rpc.Error
	if errors.As(err, &rerr) {
		return nil, err
	}
	if err != nil {
		return nil, core.CallError(err)
	}
	return json.RawMessage(ethjson.AppendHexBytes(nil, res.Return())), nil
}

// EstimateGas answers eth_estimateGas.
func (a *API) EstimateGas(ctx context.Context, p rpc.Params) (any, error) {
	args, b, so, bo, err := execParams(p)
	if err != nil {
		return nil, err
	}
	release, err := a.EVM.Acquire(ctx)
	if err != nil {
		return nil, core.RequestError(err)
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
		return nil, core.EstimateError(err)
	}
	return core.Quantity(gas), nil
}

// prefetchCall fetches, in fork mode, the upstream state a call of args on block b reads
// (core.Core.Discover), for the methods that execute a call their own way (eth_createAccessList,
// debug_traceCall). Only an upstream failure is an error here.
func (a *API) prefetchCall(ctx context.Context, v preconf.View, b gethrpc.BlockNumberOrHash, args exec.Args) error {
	if a.Up == nil {
		return nil
	}
	_, err := a.Discover(ctx, v, b, false, func(env exec.Env) error {
		_, err := exec.Call(ctx, env, args, nil, nil)
		return err
	})
	var rerr *rpc.Error
	if errors.As(err, &rerr) {
		return err
	}
	return nil
}
