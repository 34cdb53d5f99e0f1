package exec

import (
	"context"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"

	"github.com/flashrpc/flashrpc/internal/exec/internal/exectest"
)

type rpcRequest = exectest.Request

// wireError is a test-local mapping of this package's errors to JSON-RPC codes, following
// go-ethereum (the API layer owns the real table).
func wireError(method string, err error) map[string]any {
	code := -32000
	var (
		rev      *RevertError
		decErr   *DecodeError
		paramErr *exectest.ParamError
	)
	switch {
	case errors.As(err, &decErr), errors.As(err, &paramErr):
		code = -32602
	case errors.As(err, &rev):
		// geth answers reverts of eth_call and eth_estimateGas with code 3 (flashrpc's API
		// uses -32000 for eth_estimateGas, decisions.md).
		return map[string]any{"code": 3, "message": err.Error(), "data": hexutil.Encode(rev.Data)}
	}
	return map[string]any{"code": code, "message": err.Error()}
}

// resolveEnv returns the Env of the block named by the i-th parameter, with geth's limits.
func resolveEnv(bc *core.BlockChain, req rpcRequest, i int) (Env, error) {
	header, st, err := exectest.Resolve(bc, req, i)
	if err != nil {
		return Env{}, err
	}
	return Env{Config: bc.Config(), Chain: bc, Header: header, State: st, GasCap: DefaultGasCap, EVMTimeout: DefaultEVMTimeout}, nil
}

// serveFixture answers one eth_call or eth_estimateGas fixture request with this package, the
// way geth would (internal/exec/simulate runs the eth_simulateV1 fixtures).
func serveFixture(t *testing.T, bc *core.BlockChain, req rpcRequest) (any, error) {
	ctx := context.Background()
	switch req.Method {
	case "eth_call", "eth_estimateGas":
		var (
			args Args
			so   StateOverride
			bo   *BlockOverrides
		)
		for i, v := range []any{&args, nil, &so, &bo} {
			if v != nil {
				if err := req.Decode(i, v); err != nil {
					return nil, err
				}
			}
		}
		env, err := resolveEnv(bc, req, 1)
		if err != nil {
			return nil, err
		}
		if req.Method == "eth_estimateGas" {
			gas, err := EstimateGas(ctx, env, args, so, bo)
			return hexutil.Uint64(gas), err
		}
		res, err := Call(ctx, env, args, so, bo)
		if err != nil {
			return nil, err
		}
		return hexutil.Bytes(res.Return()), nil
	}
	t.Fatalf("unsupported method %s", req.Method)
	return nil, nil
}

func TestConformance(t *testing.T) {
	exectest.RunConformance(t, []string{"eth_call", "eth_estimateGas"}, serveFixture, wireError)
}
