package simulate

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"

	"github.com/flashrpc/flashrpc/internal/exec"
)

// Contracts used only through state overrides in the simulate tests.
var (
	// forwarderCode CALLs emptyAddr with CALLVALUE, then LOG0.
	forwarderCode = append(append(common.FromHex("0x600060006000600034"+"73"), emptyAddr.Bytes()...), common.FromHex("0x5af15060006000a000")...)
	// innerRevertCode sends 1 wei to emptyAddr, LOG0s, then reverts.
	innerRevertCode = append(append(common.FromHex("0x6000600060006000600173"), emptyAddr.Bytes()...), common.FromHex("0x5af15060006000a060006000fd")...)
	// blockhashCode returns BLOCKHASH(NUMBER-1) and BLOCKHASH(NUMBER-2).
	blockhashCode = common.FromHex("0x600143034060005260024303406020526040" + "6000f3")
	// selfdestructCode sends its balance to emptyAddr.
	selfdestructCode = append(append([]byte{0x73}, emptyAddr.Bytes()...), 0xff)
)

// outerCode CALLs target with CALLVALUE (ignoring failure), then LOG0.
func outerCode(target common.Address) []byte {
	code := append(common.FromHex("0x600060006000600034"+"73"), target.Bytes()...)
	return append(code, common.FromHex("0x5af15060006000a000")...)
}

func hexOf(b []byte) string { return "0x" + common.Bytes2Hex(b) }

// simRequests are eth_simulateV1 option objects run against both this package and geth.
// They cover what the execution-apis fixtures in shared/ do not.
func simRequests(t *testing.T) map[string]string {
	t.Helper()
	auth, err := types.SignSetCode(richKey, types.SetCodeAuthorization{
		ChainID: *uint256.NewInt(1337), Address: logAddr, Nonce: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	authJSON, _ := json.Marshal([]types.SetCodeAuthorization{auth})
	c1, c2, c3 := "0xc100000000000000000000000000000000000001", "0xc100000000000000000000000000000000000002", "0xc100000000000000000000000000000000000003"
	rich, empty := strings.ToLower(richAddr.Hex()), strings.ToLower(emptyAddr.Hex())
	return map[string]string{
		"trace-transfers-nested": `{"traceTransfers":true,"blockStateCalls":[{"stateOverrides":{
			"` + c1 + `":{"code":"` + hexOf(outerCode(common.HexToAddress(c2))) + `"},
			"` + c2 + `":{"code":"` + hexOf(innerRevertCode) + `","balance":"0x10"},
			"` + c3 + `":{"code":"` + hexOf(forwarderCode) + `"}},
			"calls":[{"from":"` + rich + `","to":"` + c1 + `","value":"0x5"},{"from":"` + rich + `","to":"` + c3 + `","value":"0x7"},{"from":"` + rich + `","to":"` + empty + `","value":"0x9"}]}]}`,
		"trace-transfers-selfdestruct-create": `{"traceTransfers":true,"blockStateCalls":[{"stateOverrides":{"` + c1 + `":{"code":"` + hexOf(selfdestructCode) + `","balance":"0x64"}},
			"calls":[{"from":"` + rich + `","to":"` + c1 + `","value":"0x1"},{"from":"` + rich + `","value":"0x3","input":"0x600a600c600039600a6000f3602a60005260206000f3"}]}]}`,
		"logs-and-revert": `{"blockStateCalls":[{"calls":[{"to":"` + strings.ToLower(logAddr.Hex()) + `"},{"to":"` + strings.ToLower(revertAddr.Hex()) + `"},{"to":"` + strings.ToLower(invalidAddr.Hex()) + `","gas":"0x10000"},{"to":"` + strings.ToLower(logAddr.Hex()) + `"}]}]}`,
		"blockhash-gaps": `{"blockStateCalls":[{"stateOverrides":{"` + c1 + `":{"code":"` + hexOf(blockhashCode) + `"}},"calls":[{"to":"` + c1 + `"}]},
			{"blockOverrides":{"number":"0x5"},"calls":[{"to":"` + c1 + `"}]},{"calls":[{"to":"` + c1 + `"}]}]}`,
		"block-overrides-all": `{"blockStateCalls":[{"blockOverrides":{"number":"0x3","time":"0x100","gasLimit":"0x1000000","feeRecipient":"` + c3 + `","prevRandao":"0x0000000000000000000000000000000000000000000000000000000000000007","baseFeePerGas":"0x9","blobBaseFee":"0x5","beaconRoot":"0x00000000000000000000000000000000000000000000000000000000000000bb","withdrawals":[{"index":"0x0","validatorIndex":"0x1","address":"` + c2 + `","amount":"0x64"}]},
			"calls":[{"from":"` + rich + `","to":"` + strings.ToLower(envAddr.Hex()) + `","maxFeePerGas":"0x20","maxPriorityFeePerGas":"0x2"}]},{"calls":[{"to":"` + strings.ToLower(envAddr.Hex()) + `"}]}]}`,
		"difficulty-after-merge": `{"blockStateCalls":[{"blockOverrides":{"difficulty":"0x1"}}]}`,
		"state-diff-and-state": `{"blockStateCalls":[{"stateOverrides":{"` + strings.ToLower(logAddr.Hex()) + `":{"stateDiff":{"0x0000000000000000000000000000000000000000000000000000000000000000":"0x0000000000000000000000000000000000000000000000000000000000000005"}}},"calls":[{"to":"` + strings.ToLower(logAddr.Hex()) + `"}]},
			{"stateOverrides":{"` + strings.ToLower(logAddr.Hex()) + `":{"state":{}}},"calls":[{"to":"` + strings.ToLower(logAddr.Hex()) + `"}]}]}`,
		"tx-types-full": `{"returnFullTransactions":true,"blockStateCalls":[{"calls":[
			{"from":"` + rich + `","to":"` + empty + `","gasPrice":"0x3b9aca00","value":"0x1"},
			{"from":"` + rich + `","to":"` + empty + `","gasPrice":"0x3b9aca00","accessList":[{"address":"` + c1 + `","storageKeys":["0x0000000000000000000000000000000000000000000000000000000000000001"]}]},
			{"from":"` + rich + `","to":"` + empty + `","maxFeePerGas":"0x3b9aca00","maxPriorityFeePerGas":"0x1","accessList":[]},
			{"from":"` + rich + `","to":"` + empty + `","maxFeePerBlobGas":"0x10","blobVersionedHashes":["0x0100000000000000000000000000000000000000000000000000000000000001"]},
			{"from":"` + rich + `","to":"` + rich + `","authorizationList":` + string(authJSON) + `},
			{"from":"` + rich + `","to":"` + rich + `"}]}]}`,
		"validation-nonce":     `{"validation":true,"blockStateCalls":[{"calls":[{"from":"` + rich + `","to":"` + empty + `","nonce":"0x5","maxFeePerGas":"0x3b9aca00"}]}]}`,
		"validation-ok":        `{"validation":true,"blockStateCalls":[{"calls":[{"from":"` + rich + `","to":"` + empty + `","maxFeePerGas":"0x3b9aca00"},{"from":"` + rich + `","to":"` + empty + `","maxFeePerGas":"0x3b9aca00"}]},{"calls":[{"from":"` + rich + `","to":"` + empty + `","maxFeePerGas":"0x3b9aca00"}]}]}`,
		"validation-intrinsic": `{"validation":true,"blockStateCalls":[{"calls":[{"from":"` + rich + `","to":"` + empty + `","gas":"0x100","maxFeePerGas":"0x3b9aca00"}]}]}`,
		"block-gas-limit":      `{"blockStateCalls":[{"blockOverrides":{"gasLimit":"0x10000"},"calls":[{"to":"` + empty + `","gas":"0x8000"},{"to":"` + empty + `","gas":"0x8001"}]}]}`,
		"out-of-gas-capped":    `{"blockStateCalls":[{"calls":[{"to":"` + strings.ToLower(spinAddr.Hex()) + `","gas":"0x100000"},{"to":"` + strings.ToLower(spinAddr.Hex()) + `"}]}]}`,
		"precompile-move-per-block": `{"blockStateCalls":[{"stateOverrides":{"0x0000000000000000000000000000000000000002":{"movePrecompileToAddress":"` + c1 + `"}},"calls":[{"to":"` + c1 + `","input":"0x616263"},{"to":"0x0000000000000000000000000000000000000002","input":"0x616263"}]},
			{"calls":[{"to":"` + c1 + `","input":"0x616263"},{"to":"0x0000000000000000000000000000000000000002","input":"0x616263"}]}]}`,
		"chain-id-mismatch":   `{"blockStateCalls":[{"calls":[{"to":"` + empty + `","chainId":"0x1"}]}]}`,
		"both-fee-styles":     `{"blockStateCalls":[{"calls":[{"to":"` + empty + `","gasPrice":"0x1","maxFeePerGas":"0x1"}]}]}`,
		"timestamps":          `{"blockStateCalls":[{"blockOverrides":{"time":"0x50"}},{},{"blockOverrides":{"number":"0x6"}}]}`,
		"timestamp-order":     `{"blockStateCalls":[{"blockOverrides":{"time":"0x50"}},{"blockOverrides":{"time":"0x50"}}]}`,
		"number-order":        `{"blockStateCalls":[{"blockOverrides":{"number":"0x5"}},{"blockOverrides":{"number":"0x4"}}]}`,
		"too-far":             `{"blockStateCalls":[{"blockOverrides":{"number":"0x101"}}]}`,
		"not-too-far":         `{"blockStateCalls":[{"blockOverrides":{"number":"0x100"}}]}`,
		"empty":               `{"blockStateCalls":[]}`,
		"move-non-precompile": `{"blockStateCalls":[{"stateOverrides":{"` + c1 + `":{"movePrecompileToAddress":"` + c2 + `"}}}]}`,
		"insufficient-funds":  `{"blockStateCalls":[{"calls":[{"from":"` + strings.ToLower(poorAddr.Hex()) + `","to":"` + empty + `","value":"0x1"}]}]}`,
		"fee-cap-validation":  `{"validation":true,"blockStateCalls":[{"calls":[{"from":"` + rich + `","to":"` + empty + `","maxFeePerGas":"0x1"}]}]}`,
		"tip-above-cap":       `{"blockStateCalls":[{"calls":[{"from":"` + rich + `","to":"` + empty + `","maxFeePerGas":"0x1","maxPriorityFeePerGas":"0x2"}]}]}`,
		"create-no-data":      `{"blockStateCalls":[{"calls":[{"from":"` + rich + `"}]}]}`,
		"blob-create":         `{"blockStateCalls":[{"calls":[{"from":"` + rich + `","blobVersionedHashes":["0x0100000000000000000000000000000000000000000000000000000000000001"]}]}]}`,
	}
}

// TestGethSimulateDifferential runs eth_simulateV1 requests against this package and
// go-ethereum's node on the same genesis; the JSON results, or error codes and messages,
// must be identical.
func TestGethSimulateDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an in-process geth node")
	}
	t.Parallel()
	geth := newGethOracle(t)
	chain := newTestChain(t, 0)
	ctx := context.Background()
	for name, req := range simRequests(t) {
		t.Run(name, func(t *testing.T) {
			want := gethOutcome(ctx, geth.rpc, "eth_simulateV1", json.RawMessage(req), "latest")
			got := simOutcome(ctx, t, chain.env(t), req)
			if checkDivergence(t, "eth_simulateV1/"+name, got, want) {
				return
			}
			if got.Code != want.Code || got.Message != want.Message {
				t.Fatalf("error:\n got %v\nwant %v", got, want)
			}
			if want.Code != 0 {
				return
			}
			var g, w any
			if err := json.Unmarshal([]byte(got.Result), &g); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(want.Result), &w); err != nil {
				t.Fatal(err)
			}
			renumberLogs(w)
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("result differs at %s\n got %s\nwant %s", firstDiff(g, w, "$"), truncate([]byte(got.Result)), truncate([]byte(want.Result)))
			}
		})
	}
}

// simOutcome runs a simulate request with this package and maps errors like geth.
func simOutcome(ctx context.Context, t *testing.T, env exec.Env, req string) wireOutcome {
	t.Helper()
	decode := func() Opts {
		var opts Opts
		if err := json.Unmarshal([]byte(req), &opts); err != nil {
			t.Fatalf("decode request: %v", err)
		}
		return opts
	}
	blocks, err := simulateBothWays(ctx, t, Env{Env: env}, decode)
	if err != nil {
		e := wireError("eth_simulateV1", err)
		return wireOutcome{Code: e["code"].(int), Message: e["message"].(string)}
	}
	out, err := json.Marshal(blocks)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return wireOutcome{Result: string(out)}
}
