package exec

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/exec/internal/exectest"
)

// The differential oracle (exectest), under the names the tests use.
type wireOutcome = exectest.Outcome

var (
	gethOutcome     = exectest.GethOutcome
	checkDivergence = exectest.CheckDivergence
	renumberLogs    = exectest.RenumberLogs
)

// gethOracle is go-ethereum's own node on the test chain's genesis (exectest.NewGethOracle).
type gethOracle struct {
	rpc *rpc.Client
}

func newGethOracle(t *testing.T) *gethOracle {
	return &gethOracle{rpc: exectest.NewGethOracle(t)}
}

// callOutcome maps a Call result the way geth's eth_call answers (revert: code 3 with data).
func callOutcome(res []byte, err error) wireOutcome {
	var rev *RevertError
	switch {
	case errors.As(err, &rev):
		return wireOutcome{Code: 3, Message: err.Error(), Data: hexutil.Encode(rev.Data)}
	case err != nil:
		return wireOutcome{Code: -32000, Message: err.Error()}
	}
	b, _ := json.Marshal(hexutil.Bytes(res))
	return wireOutcome{Result: string(b)}
}

// estimateOutcome maps an EstimateGas result the way geth's eth_estimateGas answers.
func estimateOutcome(gas uint64, err error) wireOutcome {
	if err != nil {
		return callOutcome(nil, err)
	}
	b, _ := json.Marshal(hexutil.Uint64(gas))
	return wireOutcome{Result: string(b)}
}

// TestGethDifferential runs the same eth_call and eth_estimateGas requests against this
// package and against go-ethereum's node on the same genesis; results, error codes, error
// messages and revert data must be identical.
func TestGethDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an in-process geth node")
	}
	t.Parallel()
	geth := newGethOracle(t)
	chain := newTestChain(t, 0)
	ctx := context.Background()

	var gethGenesis struct{ Hash common.Hash }
	if err := geth.rpc.CallContext(ctx, &gethGenesis, "eth_getBlockByNumber", "0x0", false); err != nil {
		t.Fatalf("geth genesis: %v", err)
	}
	if want := chain.bc.Genesis().Hash(); gethGenesis.Hash != want {
		t.Fatalf("geth genesis %x, test chain genesis %x: the setups differ", gethGenesis.Hash, want)
	}
	coinbase := common.HexToAddress("0x00000000000000000000000000000000c0ffee01")
	cases := []struct {
		name string
		args Args
		so   StateOverride
		bo   *BlockOverrides
	}{
		{name: "transfer", args: Args{From: &richAddr, To: &emptyAddr, Value: bigPtr(1)}},
		{name: "transfer-priced", args: Args{From: &richAddr, To: &emptyAddr, Value: bigPtr(1), MaxFeePerGas: bigPtr(2e9), MaxPriorityFeePerGas: bigPtr(1)}},
		{name: "log", args: Args{From: &richAddr, To: &logAddr}},
		{name: "proxy", args: Args{From: &richAddr, To: &proxyAddr}},
		{name: "loop-300", args: Args{From: &richAddr, To: &loopAddr, Input: bytesPtr(word(300))}},
		{name: "loop-20000", args: Args{To: &loopAddr, Input: bytesPtr(word(20000))}},
		{name: "env", args: Args{To: &envAddr}},
		{name: "env-priced", args: Args{From: &richAddr, To: &envAddr, GasPrice: bigPtr(2e9)}},
		{name: "revert", args: Args{To: &revertAddr}},
		{name: "panic", args: Args{To: &panicAddr}},
		{name: "bare-revert", args: Args{To: &bareRevAddr}},
		{name: "invalid", args: Args{To: &invalidAddr}},
		{name: "spin", args: Args{To: &spinAddr}},
		{name: "out-of-gas", args: Args{To: &loopAddr, Gas: u64Ptr(30000), Input: bytesPtr(word(1000))}},
		{name: "intrinsic", args: Args{To: &emptyAddr, Gas: u64Ptr(20000)}},
		{name: "no-funds", args: Args{From: &poorAddr, To: &emptyAddr, Value: bigPtr(1)}},
		{name: "no-funds-priced", args: Args{From: &poorAddr, To: &emptyAddr, GasPrice: bigPtr(2e9)}},
		{name: "small-funds-priced", args: Args{From: &smallAddr, To: &spinAddr, GasPrice: bigPtr(2e9)}},
		{name: "fee-below-base", args: Args{From: &richAddr, To: &emptyAddr, MaxFeePerGas: bigPtr(1), MaxPriorityFeePerGas: bigPtr(1)}},
		{name: "tip-above-cap", args: Args{From: &richAddr, To: &emptyAddr, MaxFeePerGas: bigPtr(2e9), MaxPriorityFeePerGas: bigPtr(3e9)}},
		{name: "chain-id", args: Args{To: &emptyAddr, ChainID: bigPtr(1)}},
		{name: "both-fee-styles", args: Args{To: &emptyAddr, GasPrice: bigPtr(1), MaxFeePerGas: bigPtr(1)}},
		{name: "create", args: Args{From: &richAddr, Input: bytesPtr(append(common.FromHex("0x600a600c600039600a6000f3"), logCode()[:10]...))}},
		{name: "override-balance", args: Args{From: &poorAddr, To: &emptyAddr, Value: bigPtr(5)}, so: StateOverride{poorAddr: {Balance: bigPtr(5)}}},
		{name: "override-code", args: Args{To: &emptyAddr}, so: StateOverride{emptyAddr: {Code: bytesPtr(logCode())}}},
		{name: "override-state", args: Args{To: &logAddr}, so: StateOverride{logAddr: {State: map[common.Hash]common.Hash{slot0: {31: 9}}}}},
		{name: "override-state-diff", args: Args{To: &logAddr}, so: StateOverride{logAddr: {StateDiff: map[common.Hash]common.Hash{slot1: {31: 9}}}}},
		{name: "override-both-state", args: Args{To: &logAddr}, so: StateOverride{logAddr: {State: map[common.Hash]common.Hash{}, StateDiff: map[common.Hash]common.Hash{}}}},
		{name: "move-precompile", args: Args{To: &movedAddr, Input: bytesPtr([]byte("abc"))}, so: StateOverride{sha256Addr: {MovePrecompileTo: &movedAddr}}},
		{name: "move-non-precompile", args: Args{To: &emptyAddr}, so: StateOverride{logAddr: {MovePrecompileTo: &movedAddr}}},
		{name: "move-onto-overridden", args: Args{To: &emptyAddr}, so: StateOverride{sha256Addr: {MovePrecompileTo: &movedAddr}, movedAddr: {Nonce: u64Ptr(1)}}},
		// BALANCE of a precompile, then the gas left: 2,500 more if the precompile were cold.
		{name: "warm-precompile", args: Args{To: &emptyAddr}, so: StateOverride{emptyAddr: {Code: bytesPtr(common.FromHex("0x600231505a60005260206000f3"))}}},
		{name: "code-on-precompile", args: Args{To: &identityAddr, Input: bytesPtr([]byte{1})}, so: StateOverride{identityAddr: {Code: bytesPtr(logCode())}}},
		{name: "block-override", args: Args{From: &richAddr, To: &envAddr, GasPrice: bigPtr(10)}, bo: &BlockOverrides{
			Number: bigPtr(77), Time: u64Ptr(999), FeeRecipient: &coinbase, PrevRandao: &slot1, GasLimit: u64Ptr(1_000_000), BaseFeePerGas: bigPtr(3), BlobBaseFee: bigPtr(5),
		}},
		{name: "block-override-gas-limit", args: Args{To: &spinAddr}, bo: &BlockOverrides{GasLimit: u64Ptr(100_000)}},
		{name: "block-override-beacon-root", args: Args{To: &envAddr}, bo: &BlockOverrides{BeaconRoot: &slot1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// eth_call
			res, err := Call(ctx, chain.env(t), tc.args, tc.so, tc.bo)
			var ret []byte
			if res != nil {
				ret = res.Return()
			}
			got := callOutcome(ret, err)
			want := gethOutcome(ctx, geth.rpc, "eth_call", tc.args, "latest", tc.so, tc.bo)
			if !checkDivergence(t, "eth_call/"+tc.name, got, want) && got != want {
				t.Errorf("eth_call:\n got %v\nwant %v", got, want)
			}
			// eth_estimateGas
			gas, err := EstimateGas(ctx, chain.env(t), tc.args, tc.so, tc.bo)
			got = estimateOutcome(gas, err)
			want = gethOutcome(ctx, geth.rpc, "eth_estimateGas", tc.args, "latest", tc.so, tc.bo)
			if !checkDivergence(t, "eth_estimateGas/"+tc.name, got, want) && got != want {
				t.Errorf("eth_estimateGas:\n got %v\nwant %v", got, want)
			}
		})
	}
}
