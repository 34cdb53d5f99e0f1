package simulate

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	"github.com/flashrpc/flashrpc/internal/exec"
)

func decodeSimOpts(t *testing.T, s string) Opts {
	t.Helper()
	var opts Opts
	if err := json.Unmarshal([]byte(s), &opts); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return opts
}

// pendingEnv is a Env for `pending`: the block in progress on top of the head, with a
// pre-confirmed change in the state (poorAddr received 1 ether).
func pendingEnv(t *testing.T, chain *testChain) (Env, *types.Header) {
	t.Helper()
	env := chain.env(t)
	head := env.Header
	pending := &types.Header{
		ParentHash: head.Hash(),
		Number:     new(big.Int).Add(head.Number, common.Big1),
		Time:       head.Time + 2,
		Coinbase:   common.HexToAddress("0x00000000000000000000000000000000000c0b01"),
		GasLimit:   30_000_000,
		BaseFee:    eip1559.CalcBaseFee(env.Config, head, head.Time+2),
		Difficulty: new(big.Int),
	}
	env.State.SetBalance(poorAddr, uint256.NewInt(params.Ether), tracing.BalanceChangeUnspecified)
	env.State.Finalise(false)
	return Env{Env: env, Pending: pending}, pending
}

// envWords decodes the env contract's return: NUMBER, TIMESTAMP, BASEFEE, COINBASE,
// PREVRANDAO, GASLIMIT, BLOBBASEFEE.
func envWords(t *testing.T, ret []byte) (number, ts uint64, coinbase common.Address, gasLimit uint64) {
	t.Helper()
	if len(ret) != 7*32 {
		t.Fatalf("env return has %d bytes", len(ret))
	}
	w := func(i int) []byte { return ret[i*32 : (i+1)*32] }
	return new(big.Int).SetBytes(w(0)).Uint64(), new(big.Int).SetBytes(w(1)).Uint64(),
		common.BytesToAddress(w(3)), new(big.Int).SetBytes(w(5)).Uint64()
}

func TestSimulatePending(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t, 3)
	envCall := `{"to":"` + envAddr.Hex() + `"}`
	transfer := `{"from":"` + poorAddr.Hex() + `","to":"` + emptyAddr.Hex() + `","value":"0x1"}`

	t.Run("defaults", func(t *testing.T) {
		t.Parallel()
		env, pending := pendingEnv(t, chain)
		head := env.Header
		opts := decodeSimOpts(t, `{"blockStateCalls":[{"calls":[`+envCall+`,`+transfer+`]},{"calls":[`+envCall+`]}]}`)
		blocks, err := Run(context.Background(), env, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(blocks) != 2 {
			t.Fatalf("got %d blocks, want 2", len(blocks))
		}
		b0, b1 := blocks[0].TypesBlock(), blocks[1].TypesBlock()
		if b0.NumberU64() != pending.Number.Uint64() || b0.Time() != pending.Time || b0.ParentHash() != head.Hash() {
			t.Fatalf("first block number %d time %d parent %x; want %d, %d, %x", b0.NumberU64(), b0.Time(), b0.ParentHash(), pending.Number, pending.Time, head.Hash())
		}
		if b0.Coinbase() != pending.Coinbase || b0.GasLimit() != pending.GasLimit {
			t.Fatalf("first block coinbase %x gas limit %d; want %x, %d", b0.Coinbase(), b0.GasLimit(), pending.Coinbase, pending.GasLimit)
		}
		number, ts, coinbase, gasLimit := envWords(t, blocks[0].Calls[0].ReturnData)
		if number != pending.Number.Uint64() || ts != pending.Time || coinbase != pending.Coinbase || gasLimit != pending.GasLimit {
			t.Fatalf("EVM saw number %d time %d coinbase %x gas limit %d", number, ts, coinbase, gasLimit)
		}
		if c := blocks[0].Calls[1]; c.Status != types.ReceiptStatusSuccessful || c.Err != nil {
			t.Fatalf("transfer from pre-confirmed balance failed: %+v", c)
		}
		if b1.NumberU64() != pending.Number.Uint64()+1 || b1.Time() != pending.Time+simTimestampIncrement || b1.ParentHash() != b0.Hash() || b1.Coinbase() != pending.Coinbase {
			t.Fatalf("second block number %d time %d parent %x coinbase %x", b1.NumberU64(), b1.Time(), b1.ParentHash(), b1.Coinbase())
		}
	})
	t.Run("validation-base-fee", func(t *testing.T) {
		t.Parallel()
		env, pending := pendingEnv(t, chain)
		opts := decodeSimOpts(t, `{"validation":true,"blockStateCalls":[{"calls":[{"from":"`+richAddr.Hex()+`","to":"`+emptyAddr.Hex()+`","maxFeePerGas":"0x3b9aca00"}]}]}`)
		blocks, err := Run(context.Background(), env, opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := blocks[0].TypesBlock().BaseFee(); got.Cmp(pending.BaseFee) != 0 {
			t.Fatalf("base fee %v, want the pending block's %v", got, pending.BaseFee)
		}
	})
	t.Run("gap", func(t *testing.T) {
		t.Parallel()
		env, pending := pendingEnv(t, chain)
		n := pending.Number.Uint64() + 2
		opts := decodeSimOpts(t, `{"blockStateCalls":[{"blockOverrides":{"number":"`+hexU(n)+`"},"calls":[`+envCall+`]}]}`)
		blocks, err := Run(context.Background(), env, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(blocks) != 3 {
			t.Fatalf("got %d blocks, want 3", len(blocks))
		}
		for i, wantTime := range []uint64{pending.Time, pending.Time + 12, pending.Time + 24} {
			if b := blocks[i].TypesBlock(); b.NumberU64() != pending.Number.Uint64()+uint64(i) || b.Time() != wantTime {
				t.Fatalf("block %d: number %d time %d, want %d", i, b.NumberU64(), b.Time(), wantTime)
			}
		}
		if len(blocks[0].Calls) != 0 || len(blocks[2].Calls) != 1 {
			t.Fatalf("calls per block: %d, %d", len(blocks[0].Calls), len(blocks[2].Calls))
		}
	})
	t.Run("time-override", func(t *testing.T) {
		t.Parallel()
		env, _ := pendingEnv(t, chain)
		head := env.Header
		opts := decodeSimOpts(t, `{"blockStateCalls":[{"blockOverrides":{"time":"`+hexU(head.Time+1)+`"}}]}`)
		blocks, err := Run(context.Background(), env, opts)
		if err != nil || blocks[0].TypesBlock().Time() != head.Time+1 {
			t.Fatalf("time override: %v", err)
		}
		env, _ = pendingEnv(t, chain)
		opts = decodeSimOpts(t, `{"blockStateCalls":[{"blockOverrides":{"time":"`+hexU(head.Time)+`"}}]}`)
		_, err = Run(context.Background(), env, opts)
		var simErr *Error
		if !errors.As(err, &simErr) || simErr.Kind != BlockTimestampInvalid {
			t.Fatalf("error = %v, want BlockTimestampInvalid", err)
		}
	})
	t.Run("sealed-base", func(t *testing.T) {
		t.Parallel()
		env := chain.env(t)
		opts := decodeSimOpts(t, `{"blockStateCalls":[{"calls":[`+transfer+`]}]}`)
		_, err := Run(context.Background(), Env{Env: env}, opts)
		var simErr *Error
		if !errors.As(err, &simErr) || simErr.Kind != InsufficientFunds {
			t.Fatalf("without the pre-confirmed state: error = %v, want InsufficientFunds", err)
		}
	})
}

func hexU(v uint64) string { return "0x" + new(big.Int).SetUint64(v).Text(16) }

func TestSimulateErrors(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t, 1)
	spin := `{"to":"` + spinAddr.Hex() + `"}`
	cases := []struct {
		name     string
		opts     string
		limits   Limits
		mutate   func(*Env)
		wantKind ErrorKind
		wantErr  string
	}{
		{name: "empty", opts: `{"blockStateCalls":[]}`, wantKind: InvalidParams, wantErr: "empty input"},
		{name: "max-blocks", opts: `{"blockStateCalls":[{},{},{}]}`, limits: Limits{MaxBlocks: 2}, wantKind: ClientLimitExceeded, wantErr: "too many blocks"},
		{name: "max-span", opts: `{"blockStateCalls":[{"blockOverrides":{"number":"0x4"}}]}`, limits: Limits{MaxBlocks: 2}, wantKind: ClientLimitExceeded, wantErr: "too many blocks"},
		{name: "max-calls-per-block", opts: `{"blockStateCalls":[{"calls":[{},{},{}]}]}`, limits: Limits{MaxCallsPerBlock: 2}, wantKind: ClientLimitExceeded, wantErr: "too many calls in block: 3 > 2"},
		{name: "max-calls", opts: `{"blockStateCalls":[{"calls":[{},{}]},{"calls":[{},{}]}]}`, limits: Limits{MaxCalls: 3}, wantKind: ClientLimitExceeded, wantErr: "too many calls: 4 > 3"},
		{name: "block-gas", opts: `{"blockStateCalls":[{"blockOverrides":{"gasLimit":"0x5208"},"calls":[{"gas":"0x5209"}]}]}`, wantKind: BlockGasLimitReached, wantErr: "block gas limit reached: remaining: 21000, required: 21001"},
		{name: "nonce-low", opts: `{"validation":true,"blockStateCalls":[{"stateOverrides":{"` + richAddr.Hex() + `":{"nonce":"0x2"}},"calls":[{"from":"` + richAddr.Hex() + `","nonce":"0x1","maxFeePerGas":"0x3b9aca00"}]}]}`, wantKind: NonceTooLow},
		{name: "nonce-max-validation", opts: `{"validation":true,"blockStateCalls":[{"stateOverrides":{"` + richAddr.Hex() + `":{"nonce":"0xffffffffffffffff"}},"calls":[{"from":"` + richAddr.Hex() + `"}]}]}`, wantKind: Internal, wantErr: "err: nonce has max value: address " + richAddr.Hex() + ", nonce: 18446744073709551615 (supplied gas 50000000)"},
		// Without validation the nonce is not checked at all (execution-apis ethSimulate-overflow-nonce).,
		{
			name: "timeout", opts: `{"blockStateCalls":[{"blockOverrides":{"gasLimit":"0x4000000000000000"},"calls":[` + spin + `]}]}`,
			wantKind: Internal, wantErr: "execution aborted (timeout = 20ms)",
			mutate: func(env *Env) { env.GasCap, env.EVMTimeout = 0, 20*time.Millisecond },
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := Env{Env: chain.env(t), Limits: tc.limits}
			if tc.mutate != nil {
				tc.mutate(&env)
			}
			_, err := Run(context.Background(), env, decodeSimOpts(t, tc.opts))
			var simErr *Error
			if !errors.As(err, &simErr) || simErr.Kind != tc.wantKind {
				t.Fatalf("error = %v, want kind %v", err, tc.wantKind)
			}
			if tc.wantErr != "" && err.Error() != tc.wantErr {
				t.Fatalf("error = %q, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestSimulateContextDone(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, Env{Env: chain.env(t)}, decodeSimOpts(t, `{"blockStateCalls":[{}]}`))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
}

func TestSimulateKeepsRequest(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t, 1)
	opts := decodeSimOpts(t, `{"blockStateCalls":[{"blockOverrides":{"feeRecipient":"`+emptyAddr.Hex()+`"},"calls":[{"to":"`+emptyAddr.Hex()+`"}]}]}`)
	if _, err := Run(context.Background(), Env{Env: chain.env(t)}, opts); err != nil {
		t.Fatal(err)
	}
	bo, call := opts.BlockStateCalls[0].BlockOverrides, opts.BlockStateCalls[0].Calls[0]
	if bo.Number != nil || bo.Time != nil || bo.Withdrawals != nil || call.Gas != nil || call.Nonce != nil {
		t.Fatalf("Run modified the request: %+v %+v", bo, call)
	}
}

func TestSimOptsDecode(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, input, wantErr string
	}{
		{name: "ok", input: `{"blockStateCalls":[{"blockOverrides":{"number":"0x1"},"stateOverrides":{},"calls":[{}]}],"traceTransfers":true,"validation":false,"returnFullTransactions":true}`},
		{name: "case-insensitive", input: `{"BlockStateCalls":[{"BlockOverrides":{"Number":"0x1"}}],"TRACETRANSFERS":true}`},
		{name: "bad-flag", input: `{"validation":"yes"}`, wantErr: `invalid value for field "validation" in simulation options`},
		{name: "unknown-block-key", input: `{"blockStateCalls":[{"blockOverrides":{"bogusField":"0x1"}}]}`, wantErr: `unknown field "bogusField" in block override`},
		{name: "unknown-state-key", input: `{"blockStateCalls":[{"stateOverrides":{"0xc000000000000000000000000000000000000000":{"bogusField":"0x1"}}}]}`, wantErr: `unknown field "bogusField" in state override for 0xC000000000000000000000000000000000000000`},
		{name: "bad-call", input: `{"blockStateCalls":[{"calls":[{"gas":1}]}]}`, wantErr: `invalid value for field "gas" in transaction arguments`},
		{name: "calls-not-array", input: `{"blockStateCalls":[{"calls":{}}]}`, wantErr: `invalid value for field "calls" in block state call`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var opts Opts
			err := json.Unmarshal([]byte(tc.input), &opts)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var de *exec.DecodeError
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.As(err, &de) {
				t.Fatalf("error = %v, want *exec.DecodeError containing %q", err, tc.wantErr)
			}
		})
	}
}

func BenchmarkSimulate(b *testing.B) {
	chain := newTestChain(b, 1)
	base := chain.env(b)
	transfer := `{"from":"` + richAddr.Hex() + `","to":"` + emptyAddr.Hex() + `","value":"0x1"}`
	cases := []struct{ name, opts string }{
		{"calls=1", `{"blockStateCalls":[{"calls":[` + transfer + `]}]}`},
		{"calls=10/blocks=2/trace", `{"traceTransfers":true,"blockStateCalls":[{"calls":[` + strings.Repeat(transfer+",", 4) + transfer + `]},{"calls":[` + strings.Repeat(transfer+",", 4) + transfer + `]}]}`},
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			var opts Opts
			if err := json.Unmarshal([]byte(bc.opts), &opts); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				env := base
				env.State = base.State.Copy()
				blocks, err := Run(context.Background(), Env{Env: env}, opts)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := json.Marshal(blocks); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSimulateStops: a call that loops until its gas runs out (~5 million iterations) is cut
// short by the EVM timeout, by the request's deadline, and (without an EVM timeout) by the
// request's context ending, in the first block and in a later one; the request fails with a *exec.TimeoutError (or the context's error, when the end
// comes before the call starts).
func TestSimulateStops(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t, 1)
	loop := `"stateOverrides":{"` + emptyAddr.Hex() + `":{"code":"0x5b600056"}},"calls":[{"from":"` + richAddr.Hex() + `","to":"` + emptyAddr.Hex() + `","gas":"0x2faf080"}]`
	for name, req := range map[string]string{
		"first block": `{"blockStateCalls":[{` + loop + `}]}`,
		"later block": `{"blockStateCalls":[{},{` + loop + `}]}`,
	} {
		t.Run(name+"/timeout", func(t *testing.T) {
			env := Env{Env: chain.env(t)}
			env.EVMTimeout = time.Millisecond
			_, err := Run(context.Background(), env, decodeSimOpts(t, req))
			// On a busy machine the time may run out before the call starts.
			if !errors.As(err, new(*exec.TimeoutError)) && !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("error = %v, want a timeout", err)
			}
		})
		t.Run(name+"/deadline", func(t *testing.T) {
			env := Env{Env: chain.env(t)}
			env.EVMTimeout = time.Minute
			ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
			defer cancel()
			_, err := Run(ctx, env, decodeSimOpts(t, req))
			if !errors.As(err, new(*exec.TimeoutError)) && !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("error = %v, want the request's deadline to stop it", err)
			}
		})
		t.Run(name+"/context", func(t *testing.T) {
			env := Env{Env: chain.env(t)}
			env.EVMTimeout = 0
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(time.Millisecond, cancel)
			_, err := Run(ctx, env, decodeSimOpts(t, req))
			if !errors.As(err, new(*exec.TimeoutError)) && !errors.Is(err, context.Canceled) {
				t.Fatalf("error = %v, want the run cut short", err)
			}
		})
	}
}

// TestJumpDestCache: analyses come back by code hash, the cache never holds more than
// jumpDestsKept of them, and none longer than the largest deployable code's.
func TestJumpDestCache(t *testing.T) {
	t.Parallel()
	c := NewJumpDests()
	for i := range jumpDestsKept + 10 {
		hash := common.Hash{byte(i), byte(i >> 8), 1}
		c.Store(hash, vm.BitVec{byte(i)})
		if vec, ok := c.Load(hash); !ok || vec[0] != byte(i) {
			t.Fatalf("analysis %d: %v, %v", i, vec, ok)
		}
		if len(c.m) > jumpDestsKept {
			t.Fatalf("%d analyses kept, at most %d wanted", len(c.m), jumpDestsKept)
		}
	}
	largest := common.Hash{0xff}
	c.Store(largest, make(vm.BitVec, jumpDestBytesKept))
	if _, ok := c.Load(largest); !ok {
		t.Fatalf("the analysis of the largest deployable code (%d bytes) was not kept", jumpDestBytesKept)
	}
	// Override code of a 5 MiB request: 2.5 MB of code, a 330 kB analysis.
	tooLong := common.Hash{0xfe}
	c.Store(tooLong, make(vm.BitVec, 2_500_000/8+5))
	if _, ok := c.Load(tooLong); ok {
		t.Fatal("an analysis longer than any deployable code's was kept")
	}
}
