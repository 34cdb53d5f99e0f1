package oprollup

import (
	"testing"

	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
)

// TestLiftCodeSizeLimits checks that the mark is the configuration's own: VMConfig lifts the
// limits for the marked value and neither for a copy nor for another chain's.
func TestLiftCodeSizeLimits(t *testing.T) {
	marked, other := *params.MergedTestChainConfig, *params.MergedTestChainConfig
	LiftCodeSizeLimits(&marked)
	cp := marked
	for _, tc := range []struct {
		name   string
		config *params.ChainConfig
		want   bool
	}{{"marked", &marked, true}, {"copy", &cp, false}, {"other", &other, false}, {"nil", nil, false}} {
		if got := VMConfig(tc.config, vm.Config{}).NoMaxCodeSize; got != tc.want {
			t.Errorf("%s: NoMaxCodeSize %v, want %v", tc.name, got, tc.want)
		}
	}
}
