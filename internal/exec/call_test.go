package exec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/vm"
)

func addrPtr(a common.Address) *common.Address { return &a }
func u64Ptr(v uint64) *hexutil.Uint64          { return (*hexutil.Uint64)(&v) }
func bigPtr(v int64) *hexutil.Big              { return (*hexutil.Big)(big.NewInt(v)) }
func bytesPtr(b []byte) *hexutil.Bytes         { return (*hexutil.Bytes)(&b) }
func word(v uint64) []byte                     { return common.LeftPadBytes(new(big.Int).SetUint64(v).Bytes(), 32) }

// callCase is one Call test: the arguments and what must come back. wantErr is matched as
// the complete error text; wantIs, if set, must match with errors.Is.
type callCase struct {
	name    string
	args    Args
	so      StateOverride
	bo      *BlockOverrides
	mutate  func(*Env)
	wantRet []byte
	wantGas uint64 // checked when non-zero
	wantErr string
	wantIs  error
	check   func(t *testing.T, env Env, res *core.ExecutionResult, err error)
}

func runCallCases(t *testing.T, chain *testChain, cases []callCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := chain.env(t)
			if tc.mutate != nil {
				tc.mutate(&env)
			}
			res, err := Call(context.Background(), env, tc.args, tc.so, tc.bo)
			if tc.check != nil {
				tc.check(t, env, res, err)
			}
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
			} else if err != nil && tc.check == nil && tc.wantIs == nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Fatalf("errors.Is(%v, %v) = false", err, tc.wantIs)
			}
			if tc.wantRet != nil && (res == nil || !bytes.Equal(res.ReturnData, tc.wantRet)) {
				t.Fatalf("return = %x, want %x", res.ReturnData, tc.wantRet)
			}
			if tc.wantGas != 0 && (res == nil || res.UsedGas != tc.wantGas) {
				t.Fatalf("gas used = %v, want %d", res, tc.wantGas)
			}
		})
	}
}

func TestCall(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t, 3)
	cases := []callCase{
		{name: "transfer", args: Args{From: &richAddr, To: &emptyAddr, Value: bigPtr(1)}, wantRet: []byte{}, wantGas: 21000},
		{name: "transfer/no-from", args: Args{To: &emptyAddr}, wantGas: 21000},
		{name: "contract/log", args: Args{From: &richAddr, To: &logAddr}, wantRet: word(42)},
		{name: "contract/proxy", args: Args{From: &richAddr, To: &proxyAddr}, wantRet: []byte{}},
		{
			name: "revert/reason", args: Args{To: &revertAddr},
			wantErr: "execution reverted: nope", wantIs: vm.ErrExecutionReverted,
			check: func(t *testing.T, _ Env, res *core.ExecutionResult, err error) {
				var rev *RevertError
				if !errors.As(err, &rev) || rev.Reason != "nope" || !bytes.Equal(rev.Data, abiError("nope")) {
					t.Fatalf("revert = %#v, want reason nope and data %x", rev, abiError("nope"))
				}
				if res == nil || res.UsedGas == 0 {
					t.Fatalf("revert result missing: %v", res)
				}
			},
		},
		{
			name: "revert/panic", args: Args{To: &panicAddr}, wantErr: "execution reverted: assert(false)",
			check: func(t *testing.T, _ Env, _ *core.ExecutionResult, err error) {
				var rev *RevertError
				if !errors.As(err, &rev) || !bytes.Equal(rev.Data, abiPanic(1)) {
					t.Fatalf("revert = %#v, want data %x", rev, abiPanic(1))
				}
			},
		},
		{
			name: "revert/bare", args: Args{To: &bareRevAddr}, wantErr: "execution reverted",
			check: func(t *testing.T, _ Env, _ *core.ExecutionResult, err error) {
				var rev *RevertError
				if !errors.As(err, &rev) || len(rev.Data) != 0 || rev.Reason != "" {
					t.Fatalf("revert = %#v, want empty", rev)
				}
			},
		},
		{
			name: "vm/invalid-opcode", args: Args{To: &invalidAddr}, wantErr: "invalid opcode: INVALID",
			check: func(t *testing.T, _ Env, _ *core.ExecutionResult, err error) {
				var vmErr *VMError
				if !errors.As(err, &vmErr) {
					t.Fatalf("error %T is not a *VMError", err)
				}
			},
		},
		{
			name: "vm/out-of-gas", args: Args{To: &loopAddr, Gas: u64Ptr(30_000), Input: bytesPtr(word(100_000))},
			wantErr: "out of gas", wantIs: vm.ErrOutOfGas, wantGas: 30_000,
		},
		{
			name: "tx/insufficient-funds", args: Args{From: &poorAddr, To: &emptyAddr, Value: bigPtr(1)},
			wantErr: "err: insufficient funds for gas * price + value: address " + poorAddr.Hex() + " have 0 want 1 (supplied gas 50000000)",
			wantIs:  core.ErrInsufficientFunds,
			check: func(t *testing.T, _ Env, _ *core.ExecutionResult, err error) {
				var txErr *TxError
				if !errors.As(err, &txErr) {
					t.Fatalf("error %T is not a *TxError", err)
				}
			},
		},
		{
			name: "tx/insufficient-funds-gas-price", args: Args{From: &poorAddr, To: &emptyAddr, GasPrice: bigPtr(1e9), Gas: u64Ptr(21000)},
			wantErr: "err: insufficient funds for gas * price + value: address " + poorAddr.Hex() + " have 0 want 21000000000000 (supplied gas 21000)",
			wantIs:  core.ErrInsufficientFunds,
		},
		{
			name: "tx/intrinsic-gas", args: Args{To: &emptyAddr, Gas: u64Ptr(20_000)},
			wantErr: "err: intrinsic gas too low: have 20000, want 21000 (supplied gas 20000)", wantIs: core.ErrIntrinsicGas,
		},
		{name: "args/data-and-input-equal", args: Args{To: &logAddr, Data: bytesPtr([]byte{1}), Input: bytesPtr([]byte{1})}, wantRet: word(42)},
		{name: "args/data-only", args: Args{To: &loopAddr, Gas: u64Ptr(30_000), Data: bytesPtr(word(100_000))}, wantErr: "out of gas"},
		{
			name: "args/data-and-input-differ", args: Args{To: &logAddr, Data: bytesPtr([]byte{1}), Input: bytesPtr([]byte{2})},
			wantErr: `both "data" and "input" are set and not equal. Please use "input" to pass transaction call data`,
		},
		{
			name: "args/gas-price-and-1559", args: Args{To: &logAddr, GasPrice: bigPtr(1), MaxFeePerGas: bigPtr(1)},
			wantErr: "both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified",
		},
		{name: "args/chain-id", args: Args{To: &logAddr, ChainID: bigPtr(1)}, wantErr: "chainId does not match node's (have=1, want=1337)"},
		{name: "args/chain-id-ok", args: Args{To: &logAddr, ChainID: bigPtr(1337)}, wantRet: word(42)},
		{
			name: "args/blob-fee-without-hashes", args: Args{To: &logAddr, BlobFeeCap: bigPtr(1)},
			wantErr: "maxFeePerBlobGas specified without blobVersionedHashes",
		},
		{
			name: "args/blob-create", args: Args{BlobHashes: []common.Hash{{1}}, Input: bytesPtr([]byte{0})},
			wantErr: "blob transaction of type create",
		},
		{
			name: "fees/below-base-fee", args: Args{From: &richAddr, To: &envAddr, MaxFeePerGas: bigPtr(1), MaxPriorityFeePerGas: bigPtr(1)},
			wantIs: core.ErrFeeCapTooLow,
			check: func(t *testing.T, env Env, _ *core.ExecutionResult, err error) {
				want := "err: max fee per gas less than block base fee: address " + richAddr.Hex() + ", maxFeePerGas: 1, baseFee: " + env.Header.BaseFee.String() + " (supplied gas 50000000)"
				if err == nil || err.Error() != want {
					t.Fatalf("error = %v, want %q", err, want)
				}
			},
			wantErr: "",
		},
		{
			name: "fees/gas-price-sees-base-fee", args: Args{From: &richAddr, To: &envAddr, GasPrice: bigPtr(1e9)},
			check: func(t *testing.T, env Env, res *core.ExecutionResult, err error) {
				if err != nil {
					t.Fatal(err)
				}
				if got := new(big.Int).SetBytes(res.ReturnData[64:96]); got.Cmp(env.Header.BaseFee) != 0 {
					t.Fatalf("BASEFEE = %v, want header base fee %v", got, env.Header.BaseFee)
				}
			},
		},
		{
			name: "fees/zero-price-zero-basefee", args: Args{To: &envAddr},
			check: func(t *testing.T, _ Env, res *core.ExecutionResult, err error) {
				if err != nil || new(big.Int).SetBytes(res.ReturnData[64:96]).Sign() != 0 {
					t.Fatalf("BASEFEE with zero gas price = %x (err %v), want 0", res.ReturnData[64:96], err)
				}
			},
		},
		{
			name: "timeout", args: Args{To: &spinAddr},
			mutate:  func(env *Env) { env.GasCap, env.EVMTimeout = 0, 20*time.Millisecond },
			wantErr: "execution aborted (timeout = 20ms)",
			check: func(t *testing.T, _ Env, _ *core.ExecutionResult, err error) {
				var to *TimeoutError
				if !errors.As(err, &to) {
					t.Fatalf("error %T is not a *TimeoutError", err)
				}
			},
		},
		{
			name: "gas-cap", args: Args{To: &loopAddr, Gas: u64Ptr(100_000_000), Input: bytesPtr(word(1 << 40))},
			mutate:  func(env *Env) { env.GasCap = 100_000 },
			wantErr: "out of gas", wantGas: 100_000,
		},
	}
	runCallCases(t, chain, cases)
}

func TestCallContextCancelled(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t, 1)
	env := chain.env(t)
	env.GasCap = 0
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err := Call(ctx, env, Args{To: &spinAddr}, nil, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "execution aborted (timeout = ") {
		t.Fatalf("error = %v, want execution aborted", err)
	}
}

func TestArgsDecode(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		input   string
		wantErr string // substring; empty means success
		check   func(t *testing.T, a Args)
	}{
		{
			name:  "all-fields",
			input: `{"from":"0x00000000000000000000000000000000000b0b01","to":"0x000000000000000000000000000000000000c003","gas":"0x5208","gasPrice":"0x1","value":"0x2","nonce":"0x3","data":"0x01","input":"0x01","chainId":"0x539","accessList":[],"maxFeePerBlobGas":"0x1","blobVersionedHashes":[]}`,
			check: func(t *testing.T, a Args) {
				if *a.From != poorAddr || *a.To != logAddr || uint64(*a.Gas) != 21000 || a.Value.ToInt().Int64() != 2 || uint64(*a.Nonce) != 3 {
					t.Fatalf("decoded %+v", a)
				}
			},
		},
		{name: "case-insensitive", input: `{"MAXFEEPERGAS":"0x7"}`, check: func(t *testing.T, a Args) {
			if a.MaxFeePerGas == nil || a.MaxFeePerGas.ToInt().Int64() != 7 {
				t.Fatalf("maxFeePerGas = %v", a.MaxFeePerGas)
			}
		}},
		{name: "gas-number", input: `{"gas":21000}`, wantErr: `field "gas"`},
		{name: "from-bad-hex", input: `{"from":"0xzz"}`, wantErr: `field "from"`},
		{name: "value-no-prefix", input: `{"value":"10"}`, wantErr: `field "value"`},
		{name: "input-odd", input: `{"input":"0x123"}`, wantErr: `field "input"`},
		{name: "not-object", input: `[1]`, wantErr: "invalid transaction arguments"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var a Args
			err := json.Unmarshal([]byte(tc.input), &a)
			if tc.wantErr != "" {
				var de *DecodeError
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.As(err, &de) {
					t.Fatalf("error = %v, want *DecodeError containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, a)
		})
	}
}

func BenchmarkCall(b *testing.B) {
	chain := newTestChain(b, 1)
	base := chain.env(b)
	cases := []struct {
		name string
		args Args
	}{
		{"kind=transfer", Args{From: &richAddr, To: &emptyAddr, Value: bigPtr(1)}},
		{"kind=contract", Args{From: &richAddr, To: &logAddr}},
		{"kind=loop1000", Args{From: &richAddr, To: &loopAddr, Input: bytesPtr(word(1000))}},
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			for b.Loop() {
				env := base
				env.State = base.State.Copy()
				res, err := Call(ctx, env, bc.args, nil, nil)
				if err != nil || res.Failed() {
					b.Fatalf("call failed: %v", err)
				}
			}
		})
	}
}
