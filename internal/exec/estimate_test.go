package exec

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/params"
)

// minGas finds, by exact binary search with Call, the lowest gas limit at which args succeed.
func minGas(t *testing.T, chain *testChain, args Args, hi uint64) uint64 {
	t.Helper()
	ok := func(gas uint64) bool {
		a := args
		a.Gas = u64Ptr(gas)
		_, err := Call(context.Background(), chain.env(t), a, nil, nil)
		return err == nil
	}
	if !ok(hi) {
		t.Fatalf("call fails at %d gas", hi)
	}
	lo := uint64(params.TxGas - 1)
	for lo+1 < hi {
		mid := lo + (hi-lo)/2
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

func TestEstimateGasTight(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t, 2)
	cases := []struct {
		name  string
		args  Args
		exact bool // the estimate must be the exact minimum
	}{
		{name: "transfer-to-eoa", args: Args{From: &richAddr, To: &emptyAddr, Value: bigPtr(1)}, exact: true},
		{name: "transfer-no-value", args: Args{To: &emptyAddr}, exact: true},
		{name: "log-and-sstore", args: Args{From: &richAddr, To: &logAddr}},
		{name: "proxy-call", args: Args{From: &richAddr, To: &proxyAddr}},
		{name: "loop-100", args: Args{From: &richAddr, To: &loopAddr, Input: bytesPtr(word(100))}},
		{name: "loop-5000", args: Args{From: &richAddr, To: &loopAddr, Input: bytesPtr(word(5000))}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			est, err := EstimateGas(context.Background(), chain.env(t), tc.args, nil, nil)
			if err != nil {
				t.Fatalf("estimate: %v", err)
			}
			least := minGas(t, chain, tc.args, params.MaxTxGas)
			if est < least {
				t.Fatalf("estimate %d below the minimum %d", est, least)
			}
			if tc.exact && est != least {
				t.Fatalf("estimate %d, want exactly %d", est, least)
			}
			if slack := float64(est-least) / float64(est); slack >= estimateErrorRatio {
				t.Fatalf("estimate %d is %.4f above the minimum %d, want < %v", est, slack, least, estimateErrorRatio)
			}
			// The estimate itself must work, and one gas less than the minimum must not.
			a := tc.args
			a.Gas = u64Ptr(est)
			if _, err := Call(context.Background(), chain.env(t), a, nil, nil); err != nil {
				t.Fatalf("call at the estimate %d: %v", est, err)
			}
			a.Gas = u64Ptr(least - 1)
			if _, err := Call(context.Background(), chain.env(t), a, nil, nil); err == nil {
				t.Fatalf("call at %d (minimum - 1) succeeded", least-1)
			}
		})
	}
}

func TestEstimateGas(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t, 2)
	cases := []struct {
		name    string
		args    Args
		so      StateOverride
		bo      *BlockOverrides
		want    uint64
		wantErr string
		wantAs  func(error) bool
	}{
		{name: "transfer", args: Args{From: &richAddr, To: &emptyAddr, Value: bigPtr(1)}, want: 21000},
		{name: "transfer-with-price", args: Args{From: &richAddr, To: &emptyAddr, GasPrice: bigPtr(1e9)}, want: 21000},
		{
			name: "revert", args: Args{To: &revertAddr}, wantErr: "execution reverted: nope",
			wantAs: func(err error) bool {
				var rev *RevertError
				return errors.As(err, &rev) && string(rev.Data) == string(abiError("nope"))
			},
		},
		{name: "revert-panic", args: Args{To: &panicAddr}, wantErr: "execution reverted: assert(false)"},
		{
			name: "invalid-opcode", args: Args{To: &invalidAddr}, wantErr: "invalid opcode: INVALID",
			wantAs: func(err error) bool { var v *VMError; return errors.As(err, &v) },
		},
		{
			name: "allowance-osaka-cap", args: Args{To: &spinAddr}, wantErr: "gas required exceeds allowance (16777216)",
			wantAs: func(err error) bool { var a *AllowanceError; return errors.As(err, &a) && a.Gas == params.MaxTxGas },
		},
		{name: "allowance-user-gas", args: Args{To: &loopAddr, Gas: u64Ptr(30_000), Input: bytesPtr(word(1000))}, wantErr: "gas required exceeds allowance (30000)"},
		{
			name: "allowance-balance", args: Args{From: &smallAddr, To: &spinAddr, GasPrice: bigPtr(1e9)},
			wantErr: "gas required exceeds allowance (1000000)", // 0.001 ether / 1 gwei
		},
		{
			name: "allowance-block-gas-limit", args: Args{To: &spinAddr}, bo: &BlockOverrides{GasLimit: u64Ptr(100_000)},
			wantErr: "gas required exceeds allowance (100000)",
		},
		{
			name: "insufficient-funds-for-transfer", args: Args{From: &smallAddr, To: &emptyAddr, GasPrice: bigPtr(1), Value: (*hexutil.Big)(smallBalance)},
			wantErr: "insufficient funds for transfer",
			wantAs: func(err error) bool {
				var e *TxError
				return errors.As(err, &e) && errors.Is(err, core.ErrInsufficientFundsForTransfer)
			},
		},
		{
			name: "insufficient-funds-no-price", args: Args{From: &poorAddr, To: &emptyAddr, Value: bigPtr(1)},
			wantErr: "failed with 16777216 gas: insufficient funds for gas * price + value: address " + poorAddr.Hex() + " have 0 want 1",
			wantAs:  func(err error) bool { return errors.Is(err, core.ErrInsufficientFunds) },
		},
		{name: "balance-override", args: Args{From: &poorAddr, To: &emptyAddr, Value: bigPtr(1)}, so: StateOverride{poorAddr: {Balance: bigPtr(1)}}, want: 21000},
		{name: "code-override", args: Args{To: &emptyAddr}, so: StateOverride{emptyAddr: {Code: bytesPtr(invalidCode)}}, wantErr: "invalid opcode: INVALID"},
		{name: "state-override-error", args: Args{To: &emptyAddr}, so: StateOverride{logAddr: {MovePrecompileTo: &movedAddr}}, wantErr: "account " + logAddr.Hex() + " is not a precompile"},
		{name: "beacon-root", args: Args{To: &emptyAddr}, bo: &BlockOverrides{BeaconRoot: &slot1}, wantErr: `block override "beaconRoot" is not supported for this RPC method`},
		{name: "chain-id", args: Args{To: &emptyAddr, ChainID: bigPtr(5)}, wantErr: "chainId does not match node's (have=5, want=1337)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := EstimateGas(context.Background(), chain.env(t), tc.args, tc.so, tc.bo)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v (estimate %d), want %q", err, got, tc.wantErr)
				}
				if tc.wantAs != nil && !tc.wantAs(err) {
					t.Fatalf("error %T %v has the wrong type", err, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("estimate = %d, %v; want %d", got, err, tc.want)
			}
		})
	}
}

func TestEstimateGasCancelled(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := EstimateGas(ctx, chain.env(t), Args{To: &logAddr}, nil, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
}

// TestEstimateGasTimeout: Env.EVMTimeout bounds the whole search, as it bounds eth_call. A
// timeout of 1ns has passed before the first trial starts, whatever the machine's speed.
func TestEstimateGasTimeout(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t, 1)
	env := chain.env(t)
	env.GasCap, env.EVMTimeout = 0, time.Nanosecond
	_, err := EstimateGas(context.Background(), env, Args{To: &spinAddr}, nil, nil)
	var timeout *TimeoutError
	if !errors.As(err, &timeout) || err.Error() != "execution aborted (timeout = 1ns)" {
		t.Fatalf("error = %v (%T), want execution aborted (timeout = 1ns)", err, err)
	}
}
