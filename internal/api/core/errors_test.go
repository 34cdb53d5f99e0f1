package core

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm"

	"github.com/flashrpc/flashrpc/internal/exec"
	"github.com/flashrpc/flashrpc/internal/exec/simulate"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// errorCase is one branch of an error mapping: the error it builds, and the JSON-RPC error
// expected (want nil: the input is returned unchanged, to the transport's default mapping).
type errorCase struct {
	name string
	got  error
	in   error // for pass-through cases: the input
	want *rpc.Error
}

func checkErrorCases(t *testing.T, cases []errorCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want == nil {
				if tc.got != tc.in {
					t.Fatalf("got %#v, want the input %#v unchanged", tc.got, tc.in)
				}
				return
			}
			var got *rpc.Error
			if !errors.As(tc.got, &got) {
				t.Fatalf("got %T %v, want a *rpc.Error", tc.got, tc.got)
			}
			if got.Code != tc.want.Code || got.Message != tc.want.Message || !reflect.DeepEqual(got.Data, tc.want.Data) {
				t.Fatalf("got {%d %q %#v}, want {%d %q %#v}", got.Code, got.Message, got.Data, tc.want.Code, tc.want.Message, tc.want.Data)
			}
		})
	}
}

// decodeError returns a real *exec.DecodeError, as call arguments produce it.
func decodeError(t *testing.T) error {
	t.Helper()
	var args exec.Args
	err := args.UnmarshalJSON([]byte(`{"gas":true}`))
	var de *exec.DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("bad call arguments gave %T %v, want a DecodeError", err, err)
	}
	return err
}

func TestExecutionErrors(t *testing.T) {
	t.Parallel()
	revert := &exec.RevertError{Reason: "no", Data: []byte{0x08, 0xc3}}
	bare := &exec.RevertError{Data: []byte{0xde, 0xad}}
	decode := decodeError(t)
	other := errors.New("insufficient funds for gas * price + value")
	checkErrorCases(t, []errorCase{
		{name: "call/revert with reason", got: CallError(revert), want: &rpc.Error{Code: 3, Message: "execution reverted: no", Data: "0x08c3"}},
		{name: "call/revert without reason", got: CallError(fmt.Errorf("call: %w", bare)), want: &rpc.Error{Code: 3, Message: "execution reverted", Data: "0xdead"}},
		{name: "call/decode", got: CallError(decode), want: &rpc.Error{Code: -32602, Message: decode.Error()}},
		{name: "call/other", got: CallError(other), want: &rpc.Error{Code: -32000, Message: other.Error()}},
		{name: "estimate/revert", got: EstimateError(revert), want: &rpc.Error{Code: -32000, Message: "execution reverted: no", Data: "0x08c3"}},
		{name: "estimate/decode", got: EstimateError(decode), want: &rpc.Error{Code: -32602, Message: decode.Error()}},
		{name: "estimate/other", got: EstimateError(other), want: &rpc.Error{Code: -32000, Message: other.Error()}},
		{name: "request/decode", got: RequestError(decode), want: &rpc.Error{Code: -32602, Message: decode.Error()}},
		{name: "request/other", got: RequestError(other), want: &rpc.Error{Code: -32000, Message: other.Error()}},
	})
}

func TestSimulateErrors(t *testing.T) {
	t.Parallel()
	var cases []errorCase
	for kind, code := range simErrorCodes {
		err := &simulate.Error{Kind: kind, Err: errors.New("because")}
		cases = append(cases, errorCase{name: kind.String(), got: SimulateError(fmt.Errorf("block 1: %w", err)), want: &rpc.Error{Code: code, Message: "because"}})
	}
	decode := decodeError(t)
	cases = append(cases,
		errorCase{name: "unknown kind", got: SimulateError(&simulate.Error{Kind: 999, Err: errors.New("odd")}), want: &rpc.Error{Code: -32000, Message: "odd"}},
		errorCase{name: "decode", got: SimulateError(decode), want: &rpc.Error{Code: -32602, Message: decode.Error()}},
		errorCase{name: "other", got: SimulateError(errors.New("header not found")), want: &rpc.Error{Code: -32000, Message: "header not found"}},
	)
	checkErrorCases(t, cases)
	if len(simErrorCodes) != int(simulate.Internal) {
		t.Fatalf("%d simulate kinds mapped, want every kind up to SimInternal (%d)", len(simErrorCodes), simulate.Internal)
	}
}

func TestSimCallError(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		err      error
		code     int
		data     []byte
		withData bool
	}{
		{"revert", &exec.RevertError{Data: []byte{1, 2}}, rpc.CodeReverted, []byte{1, 2}, true},
		{"vm error", &exec.VMError{Err: vm.ErrOutOfGas}, rpc.CodeVMError, nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, data, withData := SimCallError(tc.err)
			if code != tc.code || string(data) != string(tc.data) || withData != tc.withData {
				t.Fatalf("got (%d, %x, %v), want (%d, %x, %v)", code, data, withData, tc.code, tc.data, tc.withData)
			}
		})
	}
}

func TestLogsErrors(t *testing.T) {
	t.Parallel()
	live := context.Background()
	expired, cancel := context.WithCancel(context.Background())
	cancel()
	other := errors.New("unknown block")
	checkErrorCases(t, []errorCase{
		{name: "range reversed", got: ErrLogsRangeReversed(), want: &rpc.Error{Code: -32602, Message: "invalid block range params"}},
		{name: "beyond head", got: ErrLogsBeyondHead(), want: &rpc.Error{Code: -32602, Message: "block range extends beyond current head block"}},
		{name: "too wide", got: ErrLogsRangeTooWide(1000), want: &rpc.Error{Code: -32602, Message: "exceed maximum block range 1000"}},
		{name: "too many/a range fits", got: TooManyLogs(0x10, 0x20, false, 5), want: &rpc.Error{Code: -32005,
			Message: "query returned more than 5 results. Try with this block range [0x10, 0x1f].",
			Data:    map[string]any{"from": "0x10", "to": "0x1f", "limit": 5}}},
		{name: "too many/one block alone", got: TooManyLogs(0x10, 0x20, true, 5), want: &rpc.Error{Code: -32005,
			Message: "query returned more than 5 results in block 0x20 alone; narrow the filter by address or topics.",
			Data:    map[string]any{"from": "0x20", "to": "0x20", "limit": 5}}},
		{name: "too many/first block", got: TooManyLogs(0x10, 0x10, false, 5), want: &rpc.Error{Code: -32005,
			Message: "query returned more than 5 results in block 0x10 alone; narrow the filter by address or topics.",
			Data:    map[string]any{"from": "0x10", "to": "0x10", "limit": 5}}},
		{name: "timeout/blocks searched", got: LogsError(live, &LogsTimeoutError{From: 1, Reached: 9}, 10*time.Second), want: &rpc.Error{Code: -32005,
			Message: "query timeout exceeded (10s). Blocks [0x1, 0x8] were searched in time: try a narrower range.",
			Data:    map[string]any{"timeout": "10s", "from": "0x1", "to": "0x8"}}},
		{name: "timeout/nothing searched", got: LogsError(live, &LogsTimeoutError{From: 1, Reached: 1}, time.Second), want: &rpc.Error{Code: -32005,
			Message: "query timeout exceeded (1s)", Data: map[string]any{"timeout": "1s"}}},
		{name: "other", got: LogsError(live, other, time.Second), in: other},
	})
	if err := LogsError(expired, &LogsTimeoutError{From: 1, Reached: 9}, time.Second); err != context.Canceled {
		t.Fatalf("request deadline first: got %v, want the context's error", err)
	}
}

func TestTransactionErrors(t *testing.T) {
	t.Parallel()
	hash := common.HexToHash("0x01")
	checkErrorCases(t, []errorCase{
		{name: "no pool", got: ErrNoTxPool, want: &rpc.Error{Code: -32000, Message: "this node does not accept transactions"}},
		{name: "sync timeout", got: SyncTimeoutError(1500*time.Millisecond, hash), want: &rpc.Error{Code: 4,
			Message: "The transaction was added to the transaction pool but wasn't processed in 1.5s", Data: hash.Hex()}},
		{name: "sync timeout too long", got: ErrSyncTimeoutTooLong(1, 6001, 6*time.Second), want: &rpc.Error{Code: -32602,
			Message: "invalid argument 1 (timeout): 6001 ms is over the maximum of 6000 ms"}},
	})
}

func TestParamErrors(t *testing.T) {
	t.Parallel()
	checkErrorCases(t, []errorCase{
		{name: "percentiles", got: ErrTooManyPercentiles(101, 100), want: &rpc.Error{Code: -32602, Message: "invalid reward percentiles: 101 given, at most 100"}},
		{name: "proof key", got: ErrProofKey(1, 2, "0xzz", errors.New("invalid hex in storage key")), want: &rpc.Error{Code: -32602,
			Message: `invalid argument 1 (storageKeys): key 2: invalid hex in storage key: "0xzz"`}},
	})
}

// TestPlainErrors: the errors built as plain errors, which the transport answers as -32000
// with their text (go-ethereum's texts, which clients match).
func TestPlainErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		got  error
		want string
	}{
		{"safe block", ErrSafeNotFound, "safe block not found"},
		{"finalized block", ErrFinalizedNotFound, "finalized block not found"},
		{"header", ErrHeaderNotFound, "header not found"},
		{"block", ErrBlockNotFound, "block not found"},
		{"hash", ErrHashNotFound, "header for hash not found"},
		{"hash not canonical", ErrHashNotCanonical, "hash is not currently canonical"},
		{"invalid block number", ErrInvalidBlockNumber(-9), "invalid block number -9"},
		{"logs/unknown block", ErrLogsUnknownBlock, "unknown block"},
		{"logs/safe", ErrLogsSafeNotFound, "safe header not found"},
		{"logs/finalized", ErrLogsFinalizedNotFound, "finalized header not found"},
		{"logs/negative", ErrLogsNegativeBlock, "negative block number"},
		{"fees/percentile", ErrRewardPercentile(101), "invalid reward percentile: 101.000000"},
		{"fees/percentile order", ErrRewardPercentileOrder(2, 50, 40), "invalid reward percentile: #1:50.000000 >= #2:40.000000"},
		{"fees/block", ErrFeeBlockUnavailable, "requested block is not available"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var coded *rpc.Error
			if errors.As(tc.got, &coded) {
				t.Fatalf("got a coded error %+v, want a plain one", coded)
			}
			if tc.got.Error() != tc.want {
				t.Fatalf("got %q, want %q", tc.got.Error(), tc.want)
			}
		})
	}
}
