package api

import (
	"context"
	"encoding/json"
	"math/big"

	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/exec"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// eth_createAccessList: params (call object, block = latest, state overrides), as in
// go-ethereum v1.17.10 (exec.CreateAccessList). It answers {accessList, error (when the
// execution failed), gasUsed}. Like eth_call it runs under the node's EVM limiter and its
// limits (--rpc.gascap, --rpc.evmtimeout), and with `pending` on the pre-confirmed endpoint
// on the block in progress.

func (a *API) createAccessList(ctx context.Context, p rpc.Params) (any, error) {
	if err := checkCount(p, 3); err != nil {
		return nil, err
	}
	var args exec.Args
	if err := decodeArg(p, 0, &args); err != nil {
		return nil, err
	}
	b, err := decodeBlockNumberOrHash(p, 1, false)
	if err != nil {
		return nil, err
	}
	var so exec.StateOverride
	if _, err := decodeOptional(p, 2, &so); err != nil {
		return nil, err
	}
	release, err := a.evm.Acquire(ctx)
	if err != nil {
		return nil, requestError(err)
	}
	defer release()
	v := a.view() // the request's one view (view.go)
	if err := a.prefetchCall(ctx, v, b, args); err != nil {
		return nil, err
	}
	env, err := a.execEnvAt(v, b)
	if err != nil {
		return nil, err
	}
	tip := func() *big.Int { return a.suggestTip(v.Latest) }
	res, err := exec.CreateAccessList(ctx, env, args, so, tip)
	if err != nil {
		return nil, requestError(err)
	}
	out := append(make([]byte, 0, 256), `{"accessList":`...)
	out = ethjson.AppendAccessList(out, res.List)
	if res.Err != nil {
		out = append(out, `,"error":`...)
		enc, _ := json.Marshal(res.Err.Error())
		out = append(out, enc...)
	}
	out = append(out, `,"gasUsed":`...)
	out = ethjson.AppendQuantity(out, res.GasUsed)
	return json.RawMessage(append(out, '}')), nil
}

// execEnvAt is the environment of EVM work at block b of the view v.
func (a *API) execEnvAt(v preconf.View, b gethrpc.BlockNumberOrHash) (exec.Env, error) {
	st, h, err := a.stateAndHeader(v, b)
	if err != nil {
		return exec.Env{}, err
	}
	return exec.Env{Config: a.config, Chain: a.chain.Context(), Header: h, State: st, GasCap: a.cfg.GasCap, EVMTimeout: a.cfg.EVMTimeout}, nil
}
