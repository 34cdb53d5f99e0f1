package devapi

import (
	"errors"
	"fmt"
	"testing"

	"github.com/flashrpc/flashrpc/internal/rpc"
	"github.com/flashrpc/flashrpc/internal/sequencer"
)

// TestDevErrors: the mappings of dev_seal's and dev_deposit's failures, one case per branch
// (want nil: the input is returned unchanged, to the transport's default mapping).
func TestDevErrors(t *testing.T) {
	t.Parallel()
	other := errors.New("block in progress is full")
	for _, tc := range []struct {
		name string
		got  error
		in   error // for pass-through cases: the input
		want *rpc.Error
	}{
		{name: "dev_seal/not pre-confirmed", got: devSealError(fmt.Errorf("%w: 0x01", sequencer.ErrNotPreconfirmed)), want: &rpc.Error{Code: -32602,
			Message: "invalid argument 0: " + sequencer.ErrNotPreconfirmed.Error() + ": 0x01"}},
		{name: "dev_seal/other", got: devSealError(other), in: other},
		{name: "dev_deposit/gas", got: devDepositError(fmt.Errorf("%w: gas 2, block room 1", sequencer.ErrDepositGas)), want: &rpc.Error{Code: -32602,
			Message: "invalid argument 0: gas: " + sequencer.ErrDepositGas.Error() + ": gas 2, block room 1"}},
		{name: "dev_deposit/other", got: devDepositError(other), in: other},
	} {
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
			if got.Code != tc.want.Code || got.Message != tc.want.Message || got.Data != nil {
				t.Fatalf("got {%d %q %#v}, want {%d %q <nil>}", got.Code, got.Message, got.Data, tc.want.Code, tc.want.Message)
			}
		})
	}
}
