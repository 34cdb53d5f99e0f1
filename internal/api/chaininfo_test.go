package api

import (
	"testing"
)

// TestConfigOfDevChain checks eth_config on the dev chain: every fork active at genesis
// (activation 0), none scheduled, the precompiles the EVM runs.
func TestConfigOfDevChain(t *testing.T) {
	n := newSurfaceNode(t, 1, Config{})
	var res struct {
		Current *struct {
			ActivationTime uint64
			Precompiles    map[string]string
		}
		Next, Last *struct{}
	}
	n.mustCall(t, n.std, &res, "eth_config")
	if res.Current == nil || res.Current.ActivationTime != 0 || res.Next != nil || res.Last != nil {
		t.Fatalf("eth_config: %+v", res)
	}
	if res.Current.Precompiles["ECREC"] != "0x0000000000000000000000000000000000000001" || len(res.Current.Precompiles) < 10 {
		t.Fatalf("precompiles: %v", res.Current.Precompiles)
	}
}
