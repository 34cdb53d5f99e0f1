package execute

import (
	"context"
	"encoding/json"
	"math/big"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/exec"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// eth_createAccessList: params (call object, block = latest, state overrides), as in
// go-ethereum v1.17.10 (exec.CreateAccessList). It answers {accessList, error (when the
// execution failed), gasUsed}. Like eth_call it runs under the node's EVM limiter and its
// limits (--rpc.gascap, --rpc.evmtimeout), and with `pending` on the pre-confirmed endpoint
// on the block in progress.

// CreateAccessList answers eth_createAccessList.
func (a *API) CreateAccessList(ctx context.Context, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 3); err != nil {
		return nil, err
	}
	var args exec.Args
	if err := param.DecodeArg(p, 0, &args); err != nil {
		return nil, err
	}
	b, err := param.DecodeBlockNumberOrHash(p, 1, false)
	if err != nil {
		return nil, err
	}
	var so exec.StateOverride
	if _, err := param.DecodeOptional(p, 2, &so); err != nil {
		return nil, err
	}
	release, err := a.EVM.Acquire(ctx)
	if err != nil {
		return nil, core.RequestError(err)
	}
	defer release()
	v := a.View() // the request's one view (core's view.go)
	if err := a.prefetchCall(ctx, v, b, args); err != nil {
		return nil, err
	}
	env, err := a.ExecEnv(v, b)
	if err != nil {
		return nil, err
	}
	tip := func() *big.Int { return a.SuggestTip(v.Latest) }
	res, err := exec.CreateAccessList(ctx, env, args, so, tip)
	if err != nil {
		return nil, core.RequestError(err)
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
