package exec

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
)

var (
	sha256Addr   = common.BytesToAddress([]byte{0x02})
	identityAddr = common.BytesToAddress([]byte{0x04})
	movedAddr    = common.HexToAddress("0x0000000000000000000000000000000000001234")
	slot0        = common.Hash{}
	slot1        = common.Hash{31: 1}
)

func TestStateOverride(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t, 2)
	abcSum := sha256.Sum256([]byte("abc"))
	cases := []callCase{
		{
			name: "balance", args: Args{From: &poorAddr, To: &emptyAddr, Value: bigPtr(5)},
			so: StateOverride{poorAddr: {Balance: bigPtr(5)}}, wantGas: 21000,
		},
		{
			name: "nonce", args: Args{To: &emptyAddr},
			so: StateOverride{poorAddr: {Nonce: u64Ptr(9)}},
			check: func(t *testing.T, env Env, _ *core.ExecutionResult, err error) {
				if got := env.State.GetNonce(poorAddr); err != nil || got != 9 {
					t.Fatalf("nonce = %d (err %v), want 9", got, err)
				}
			},
		},
		{
			name: "code", args: Args{To: &emptyAddr},
			so: StateOverride{emptyAddr: {Code: bytesPtr(logCode())}}, wantRet: word(42),
		},
		{
			name: "state-replaces-storage", args: Args{To: &logAddr},
			so: StateOverride{logAddr: {State: map[common.Hash]common.Hash{slot0: {31: 5}}}},
			check: func(t *testing.T, env Env, _ *core.ExecutionResult, err error) {
				s0, s1 := env.State.GetState(logAddr, slot0), env.State.GetState(logAddr, slot1)
				if err != nil || s0 != (common.Hash{31: 6}) || s1 != (common.Hash{}) {
					t.Fatalf("slots = %x, %x (err %v), want 6 and 0", s0, s1, err)
				}
			},
		},
		{
			name: "state-diff-keeps-storage", args: Args{To: &logAddr},
			so: StateOverride{logAddr: {StateDiff: map[common.Hash]common.Hash{slot0: {31: 5}}}},
			check: func(t *testing.T, env Env, _ *core.ExecutionResult, err error) {
				s0, s1 := env.State.GetState(logAddr, slot0), env.State.GetState(logAddr, slot1)
				if err != nil || s0 != (common.Hash{31: 6}) || s1 != (common.Hash{31: 7}) {
					t.Fatalf("slots = %x, %x (err %v), want 6 and 7", s0, s1, err)
				}
			},
		},
		{
			name: "state-and-state-diff", args: Args{To: &logAddr},
			so:      StateOverride{logAddr: {State: map[common.Hash]common.Hash{}, StateDiff: map[common.Hash]common.Hash{}}},
			wantErr: "account " + logAddr.Hex() + " has both 'state' and 'stateDiff'",
		},
		{
			name: "move-precompile", args: Args{To: &movedAddr, Input: bytesPtr([]byte("abc"))},
			so: StateOverride{sha256Addr: {MovePrecompileTo: &movedAddr}}, wantRet: abcSum[:],
		},
		{
			name: "move-precompile-old-address-empty", args: Args{To: &sha256Addr, Input: bytesPtr([]byte("abc"))},
			so: StateOverride{sha256Addr: {MovePrecompileTo: &movedAddr}}, wantRet: []byte{},
		},
		{
			name: "move-precompile-with-code-at-old", args: Args{To: &sha256Addr},
			so: StateOverride{sha256Addr: {MovePrecompileTo: &movedAddr, Code: bytesPtr(logCode())}}, wantRet: word(42),
		},
		{
			name: "move-non-precompile", args: Args{To: &emptyAddr},
			so:      StateOverride{logAddr: {MovePrecompileTo: &movedAddr}},
			wantErr: "account " + logAddr.Hex() + " is not a precompile",
		},
		{
			name: "move-onto-overridden", args: Args{To: &emptyAddr},
			so:      StateOverride{sha256Addr: {MovePrecompileTo: &movedAddr}, movedAddr: {Balance: bigPtr(1)}},
			wantErr: "account " + movedAddr.Hex() + " is already overridden",
		},
		{
			name: "move-onto-itself", args: Args{To: &emptyAddr},
			so:      StateOverride{sha256Addr: {MovePrecompileTo: &sha256Addr}},
			wantErr: "account " + sha256Addr.Hex() + " is already overridden",
		},
		{
			name: "code-replaces-precompile", args: Args{To: &identityAddr, Input: bytesPtr([]byte{1, 2})},
			so: StateOverride{identityAddr: {Code: bytesPtr(logCode())}}, wantRet: word(42),
		},
		{
			name: "precompile-untouched", args: Args{To: &identityAddr, Input: bytesPtr([]byte{1, 2})},
			wantRet: []byte{1, 2},
		},
	}
	runCallCases(t, chain, cases)
}

func TestBlockOverride(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t, 2)
	coinbase := common.HexToAddress("0x00000000000000000000000000000000c0ffee01")
	randao := common.Hash{0xaa}
	bo := &BlockOverrides{
		Number:        (*hexutil.Big)(big.NewInt(1000)),
		Time:          u64Ptr(123456),
		FeeRecipient:  &coinbase,
		PrevRandao:    &randao,
		GasLimit:      u64Ptr(7_000_000),
		BaseFeePerGas: bigPtr(7),
		BlobBaseFee:   bigPtr(3),
		Difficulty:    bigPtr(99), // no effect after the merge
	}
	wantEnv := func(number, time, baseFee uint64, cb common.Address, rnd common.Hash, gasLimit, blobFee uint64) []byte {
		out := append(word(number), word(time)...)
		out = append(out, word(baseFee)...)
		out = append(out, common.LeftPadBytes(cb.Bytes(), 32)...)
		out = append(out, rnd.Bytes()...)
		out = append(out, word(gasLimit)...)
		return append(out, word(blobFee)...)
	}
	cases := []callCase{
		{
			name: "all-with-gas-price", args: Args{From: &richAddr, To: &envAddr, GasPrice: bigPtr(10)}, bo: bo,
			wantRet: wantEnv(1000, 123456, 7, coinbase, randao, 7_000_000, 3),
		},
		{
			name: "zero-price-zeroes-base-fee", args: Args{To: &envAddr}, bo: bo,
			wantRet: wantEnv(1000, 123456, 0, coinbase, randao, 7_000_000, 3),
		},
		{
			name: "none", args: Args{To: &envAddr},
			check: func(t *testing.T, env Env, res *core.ExecutionResult, err error) {
				h := env.Header
				want := wantEnv(h.Number.Uint64(), h.Time, 0, h.Coinbase, h.MixDigest, h.GasLimit, 1)
				if err != nil || !bytes.Equal(res.ReturnData, want) {
					t.Fatalf("env = %x (err %v), want %x", res.ReturnData, err, want)
				}
			},
		},
		{
			name: "beacon-root", args: Args{To: &envAddr}, bo: &BlockOverrides{BeaconRoot: &common.Hash{}},
			wantErr: `block override "beaconRoot" is not supported for this RPC method`,
		},
		{
			name: "withdrawals", args: Args{To: &envAddr}, bo: &BlockOverrides{Withdrawals: &types.Withdrawals{}},
			wantErr: `block override "withdrawals" is not supported for this RPC method`,
		},
	}
	runCallCases(t, chain, cases)
}

func TestOverrideDecode(t *testing.T) {
	t.Parallel()
	addr := "0x000000000000000000000000000000000000c003"
	cases := []struct {
		name    string
		input   string
		block   bool
		wantErr string
	}{
		{name: "state/ok", input: `{"` + addr + `":{"nonce":"0x1","code":"0x00","balance":"0x2","state":{},"movePrecompileToAddress":"` + addr + `"}}`},
		{name: "state/case-insensitive", input: `{"` + addr + `":{"StateDiff":{}}}`},
		{name: "state/null", input: `null`},
		{name: "state/unknown", input: `{"` + addr + `":{"bogus":"0x1"}}`, wantErr: `unknown field "bogus" in state override for 0x000000000000000000000000000000000000C003`},
		{name: "state/duplicate", input: `{"` + addr + `":{"balance":"0x1","Balance":"0x2"}}`, wantErr: `keys "Balance" and "balance" in state override for 0x000000000000000000000000000000000000C003 name the same field`},
		{name: "state/bad-type", input: `{"` + addr + `":{"balance":1}}`, wantErr: `invalid value for field "balance" in state override for 0x000000000000000000000000000000000000C003`},
		{name: "state/bad-address", input: `{"0xc003":{}}`, wantErr: "invalid state override"},
		{name: "state/bad-slot", input: `{"` + addr + `":{"state":{"0x1":"0x2"}}}`, wantErr: `invalid value for field "state"`},
		{name: "block/ok", block: true, input: `{"number":"0x1","difficulty":"0x1","time":"0x1","gasLimit":"0x1","feeRecipient":"` + addr + `","prevRandao":"0x0000000000000000000000000000000000000000000000000000000000000001","baseFeePerGas":"0x1","blobBaseFee":"0x1","beaconRoot":"0x0000000000000000000000000000000000000000000000000000000000000001","withdrawals":[]}`},
		{name: "block/unknown", block: true, input: `{"foo":"0x1"}`, wantErr: `unknown field "foo" in block override`},
		{name: "block/duplicate", block: true, input: `{"time":"0x1","TIME":"0x2"}`, wantErr: `keys "TIME" and "time" in block override name the same field`},
		{name: "block/bad-type", block: true, input: `{"number":1}`, wantErr: `invalid value for field "number" in block override`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var err error
			if tc.block {
				var bo *BlockOverrides
				err = json.Unmarshal([]byte(tc.input), &bo)
			} else {
				var so StateOverride
				err = json.Unmarshal([]byte(tc.input), &so)
			}
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var de *DecodeError
			if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) || !errors.As(err, &de) {
				t.Fatalf("error = %v, want *DecodeError starting with %q", err, tc.wantErr)
			}
		})
	}
}
