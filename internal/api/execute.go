package api

import (
	"context"
	"encoding/json"

	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/exec"
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

func (a *API) execEnv(b gethrpc.BlockNumberOrHash) (exec.Env, error) {
	st, h, err := a.stateAndHeader(a.view(), b) // the request's one view (view.go)
	if err != nil {
		return exec.Env{}, err
	}
	return exec.Env{Config: a.config, Chain: a.chain.Context(), Header: h, State: st, GasCap: a.cfg.GasCap, EVMTimeout: a.cfg.EVMTimeout}, nil
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
	env, err := a.execEnv(b)
	if err != nil {
		return nil, err
	}
	res, err := exec.Call(ctx, env, args, so, bo)
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
	env, err := a.execEnv(b)
	if err != nil {
		return nil, err
	}
	gas, err := exec.EstimateGas(ctx, env, args, so, bo)
	if err != nil {
		return nil, estimateError(err)
	}
	return quantity(gas), nil
}
