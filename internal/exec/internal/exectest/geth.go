package exectest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/rpc"
)

// NewGethOracle starts go-ethereum's own node (ethclient/simulated) on Genesis and returns
// its in-process RPC client; both stop when the test ends.
func NewGethOracle(t *testing.T) *rpc.Client {
	t.Helper()
	// The simulated client hides its rpc.Client; reach the node over an IPC socket (short
	// path: unix socket paths are limited to about 100 bytes).
	dir, err := os.MkdirTemp("", "geth")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	ipc := filepath.Join(dir, "g.ipc")
	// The whole test genesis, system contracts included: op-geth's simulated backend does not
	// add them (go-ethereum v1.17.10's did).
	backend := simulated.NewBackend(Genesis().Alloc, func(nc *node.Config, ec *ethconfig.Config) {
		nc.IPCPath = ipc
		ec.Genesis.Config = Config()
		ec.Genesis.GasLimit = Genesis().GasLimit
		// No deadline on the reference's calls: on a loaded machine (or under -race) its 5 s
		// default changed what it answered, not what the request asks.
		ec.RPCEVMTimeout = 0
	})
	t.Cleanup(func() { backend.Close() })
	client, err := rpc.Dial(ipc)
	if err != nil {
		t.Fatalf("dial geth: %v", err)
	}
	t.Cleanup(client.Close)
	return client
}

// opGethDivergences are the requests on which op-geth v1.101702.3, whose go-ethereum base is
// 1.17.2, answers differently from go-ethereum v1.17.10, whose answers flashrpc keeps. For
// these requests the tests compare flashrpc with v1.17.10's recorded answer (a result by the
// Keccak-256 of its JSON, see answerKey) and fail once op-geth agrees with it: drop the entry
// then. Differences in log numbering alone are handled by RenumberLogs instead.
var opGethDivergences = map[string]struct{ reason, want string }{
	"eth_estimateGas/block-override-gas-limit": {
		"1.17.2 bounds the search by the block's own gas limit; v1.17.10 by the overridden one",
		`error -32000 "gas required exceeds allowance (100000)" data=`,
	},
	"eth_simulateV1/fee-cap-validation": {
		"1.17.2 answers a fee cap below the base fee with -32602; v1.17.10 and execution-apis with -38012",
		`error -38012 "err: max fee per gas less than block base fee: address 0x71562b71999873DB5b286dF957af199Ec94617F7, maxFeePerGas: 1, baseFee: 875000000 (supplied gas 50000000)" data=`,
	},
	"eth_simulateV1/difficulty-after-merge": {
		"1.17.2 crashes (-32603 method handler crashed); v1.17.10 rejects the override",
		`error -32602 "block 1: difficulty override is not allowed after the merge" data=`,
	},
	"eth_simulateV1/blob-create": {
		"1.17.2 crashes (-32603 method handler crashed); v1.17.10 reports the invalid transaction",
		`error -32000 "blob transaction of type create" data=`,
	},
	"eth_simulateV1/tx-types-full": {
		"1.17.2 makes a call with gasPrice and accessList a legacy transaction, dropping the list, " +
			"and reports a legacy transaction's chainId from the chain, not from its V",
		"result keccak256 0xf2c21d011b99045fcad13788395290e6c03615213a1b94dce87e4a05440841b9",
	},
}

// answerKey identifies an outcome for opGethDivergences: an error by its code, message and
// data, a result by the Keccak-256 of its JSON.
func answerKey(o Outcome) string {
	if o.Code != 0 {
		return o.String()
	}
	return "result keccak256 " + crypto.Keccak256Hash([]byte(o.Result)).Hex()
}

// CheckDivergence reports whether key ("<method>/<case>") is a known divergence of op-geth;
// if so it checks got against go-ethereum v1.17.10's answer, and that op-geth (gethOut)
// still differs from it.
func CheckDivergence(t *testing.T, key string, got, gethOut Outcome) bool {
	t.Helper()
	d, ok := opGethDivergences[key]
	if !ok {
		return false
	}
	if k := answerKey(got); k != d.want {
		t.Errorf("%s: got %s\nwant go-ethereum v1.17.10's %s", key, k, d.want)
	}
	if answerKey(gethOut) == d.want {
		t.Errorf("%s: op-geth now answers as go-ethereum v1.17.10 (%s): drop the entry", key, d.reason)
	}
	return true
}

// RenumberLogs sets the logIndex of every log of a decoded eth_simulateV1 result to its
// position in its block. op-geth v1.101702.3 (go-ethereum 1.17.2) counts the logs of reverted
// calls and frames too and leaves gaps; go-ethereum v1.17.10 fixed that
// (internal/ethapi/logtracer.go) and flashrpc numbers as it does. Renumbering op-geth's answer
// keeps every other field compared, and still requires flashrpc's numbering to be gapless.
func RenumberLogs(result any) {
	blocks, _ := result.([]any)
	for _, b := range blocks {
		block, _ := b.(map[string]any)
		calls, _ := block["calls"].([]any)
		n := uint64(0)
		for _, c := range calls {
			call, _ := c.(map[string]any)
			logs, _ := call["logs"].([]any)
			for _, l := range logs {
				if log, ok := l.(map[string]any); ok {
					log["logIndex"] = hexutil.EncodeUint64(n)
					n++
				}
			}
		}
	}
}

// Outcome is a JSON-RPC outcome reduced to what hive compares: the result, or the error
// code, message and data.
type Outcome struct {
	Result  string
	Code    int
	Message string
	Data    string
}

// String writes the error, or the result.
func (o Outcome) String() string {
	if o.Code != 0 {
		return fmt.Sprintf("error %d %q data=%s", o.Code, o.Message, o.Data)
	}
	return "result " + o.Result
}

// GethOutcome calls method on c and reduces the answer to an Outcome.
func GethOutcome(ctx context.Context, c *rpc.Client, method string, params ...any) Outcome {
	var res json.RawMessage
	err := c.CallContext(ctx, &res, method, params...)
	if err == nil {
		return Outcome{Result: string(res)}
	}
	out := Outcome{Code: -32000, Message: err.Error()}
	var rpcErr rpc.Error
	if errors.As(err, &rpcErr) {
		out.Code = rpcErr.ErrorCode()
	}
	var dataErr rpc.DataError
	if errors.As(err, &dataErr) && dataErr.ErrorData() != nil {
		out.Data = fmt.Sprint(dataErr.ErrorData())
	}
	return out
}
