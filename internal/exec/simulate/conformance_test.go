package simulate

import (
	"context"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/exec"
	"github.com/flashrpc/flashrpc/internal/exec/internal/exectest"
)

// The fixture and oracle helpers (exectest), under the names the tests use.
var (
	conformanceDir  = exectest.ConformanceDir
	readIOFile      = exectest.ReadIOFile
	truncate        = exectest.Truncate
	firstDiff       = exectest.FirstDiff
	gethOutcome     = exectest.GethOutcome
	checkDivergence = exectest.CheckDivergence
	renumberLogs    = exectest.RenumberLogs
)

type (
	rpcRequest  = exectest.Request
	wireOutcome = exectest.Outcome
)

// gethOracle is go-ethereum's own node on the test chain's genesis (exectest.NewGethOracle).
type gethOracle struct {
	rpc *rpc.Client
}

func newGethOracle(t *testing.T) *gethOracle {
	return &gethOracle{rpc: exectest.NewGethOracle(t)}
}

// wireError is a test-local mapping of this package's errors to JSON-RPC codes, following
// go-ethereum (the API layer owns the real table).
func wireError(method string, err error) map[string]any {
	code := -32000
	var (
		simErr   *Error
		rev      *exec.RevertError
		decErr   *exec.DecodeError
		paramErr *exectest.ParamError
	)
	switch {
	case errors.As(err, &decErr), errors.As(err, &paramErr):
		code = -32602
	case errors.As(err, &simErr):
		code = map[ErrorKind]int{
			InvalidParams: -32602, ClientLimitExceeded: -38026, BlockNumberInvalid: -38020,
			BlockTimestampInvalid: -38021, BlockGasLimitReached: -38015, NonceTooLow: -38010,
			NonceTooHigh: -38011, BaseFeeTooLow: -38012, IntrinsicGas: -38013,
			InsufficientFunds: -38014, SenderNotEOA: -38024, MaxInitCodeSizeExceeded: -38025,
			Internal: -32603,
		}[simErr.Kind]
	case errors.As(err, &rev):
		return map[string]any{"code": 3, "message": err.Error(), "data": hexutil.Encode(rev.Data)}
	}
	return map[string]any{"code": code, "message": err.Error()}
}

// serveFixture answers one eth_simulateV1 fixture request with this package, the way geth
// would, running each simulation both with and without a prepared base (simulateBothWays).
func serveFixture(t *testing.T, bc *core.BlockChain, req rpcRequest) (any, error) {
	if req.Method != "eth_simulateV1" {
		t.Fatalf("unsupported method %s", req.Method)
	}
	var opts Opts
	if err := req.Decode(0, &opts); err != nil {
		return nil, err
	}
	if err := CheckOpts(&opts, Limits{}); err != nil {
		return nil, err
	}
	header, st, err := exectest.Resolve(bc, req, 1)
	if err != nil {
		return nil, err
	}
	env := exec.Env{Config: bc.Config(), Chain: bc, Header: header, State: st, GasCap: exec.DefaultGasCap, EVMTimeout: exec.DefaultEVMTimeout}
	return simulateBothWays(context.Background(), t, Env{Env: env}, func() Opts {
		var again Opts
		if err := req.Decode(0, &again); err != nil {
			t.Fatal(err)
		}
		return again
	})
}

func TestConformance(t *testing.T) {
	exectest.RunConformance(t, []string{"eth_simulateV1"}, serveFixture, wireError)
}
