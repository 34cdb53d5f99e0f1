package exec

import (
	"context"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"

	"github.com/flashrpc/flashrpc/internal/exec/internal/exectest"
)

// The fixture helpers (exectest), under the names the tests use.
var (
	conformanceDir = exectest.ConformanceDir
	readIOFile     = exectest.ReadIOFile
	truncate       = exectest.Truncate
	firstDiff      = exectest.FirstDiff
)

type rpcRequest = exectest.Request

// wireError is a test-local mapping of this package's errors to JSON-RPC codes, following
// go-ethereum (the API layer owns the real table).
func wireError(method string, err error) map[string]any {
	code := -32000
	var (
		simErr   *SimError
		rev      *RevertError
		decErr   *DecodeError
		paramErr *exectest.ParamError
	)
	switch {
	case errors.As(err, &decErr), errors.As(err, &paramErr):
		code = -32602
	case errors.As(err, &simErr):
		code = map[SimErrorKind]int{
			SimInvalidParams: -32602, SimClientLimitExceeded: -38026, SimBlockNumberInvalid: -38020,
			SimBlockTimestampInvalid: -38021, SimBlockGasLimitReached: -38015, SimNonceTooLow: -38010,
			SimNonceTooHigh: -38011, SimBaseFeeTooLow: -38012, SimIntrinsicGas: -38013,
			SimInsufficientFunds: -38014, SimSenderNotEOA: -38024, SimMaxInitCodeSizeExceeded: -38025,
			SimInternal: -32603,
		}[simErr.Kind]
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

// serveFixture answers one fixture request with this package, the way geth would.
func serveFixture(t *testing.T, bc *core.BlockChain, req rpcRequest) (any, error) {
	ctx := context.Background()
	switch req.Method {
	case "eth_simulateV1":
		var opts SimOpts
		if err := req.Decode(0, &opts); err != nil {
			return nil, err
		}
		if err := CheckSimOpts(&opts, SimLimits{}); err != nil {
			return nil, err
		}
		env, err := resolveEnv(bc, req, 1)
		if err != nil {
			return nil, err
		}
		return simulateBothWays(ctx, t, SimEnv{Env: env}, func() SimOpts {
			var again SimOpts
			if err := req.Decode(0, &again); err != nil {
				t.Fatal(err)
			}
			return again
		})
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
	exectest.RunConformance(t, []string{"eth_simulateV1", "eth_call", "eth_estimateGas"}, serveFixture, wireError)
}
