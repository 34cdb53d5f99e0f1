package exec

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
)

// preparedRuns counts the simulations of simulateBothWays that took the prepared state, so
// that the tests can show the comparison was not vacuous.
var preparedRuns atomic.Int64

// simulateBothWays runs a simulation on env as given and again on a SimBase made from a copy
// of env, fails t when the two differ in any byte of the result or the error, and returns the
// first. decode returns the request's options afresh for each run.
func simulateBothWays(ctx context.Context, t testing.TB, env SimEnv, decode func() SimOpts) ([]SimBlock, error) {
	t.Helper()
	baseEnv := env
	baseEnv.State = env.State.Copy()
	base := NewSimBase(ctx, baseEnv)
	viaBase, baseErr := Simulate(ctx, base.Env(), decode())
	opts := decode()
	direct, err := Simulate(ctx, env, opts)
	if fmt.Sprint(err) != fmt.Sprint(baseErr) {
		t.Fatalf("prepared base changes the error:\n direct %v\nprepared %v", err, baseErr)
	}
	if err != nil {
		return direct, err
	}
	a, _ := json.Marshal(direct)
	b, _ := json.Marshal(viaBase)
	if string(a) != string(b) {
		t.Fatalf("prepared base changes the result:\n direct %s\nprepared %s", truncate(a), truncate(b))
	}
	if first := direct[0].Block.Header(); base.first != nil && base.fits(first, opts.BlockStateCalls[0].StateOverrides) {
		preparedRuns.Add(1)
	}
	return direct, nil
}

// TestSimBaseOverridesOfSystemContracts: a request that overrides what the system calls read
// does not get the prepared state, and the result is the one without a base.
func TestSimBaseOverridesOfSystemContracts(t *testing.T) {
	chain := newTestChain(t, 2)
	for name, req := range map[string]string{
		"default":           `{"blockStateCalls":[{"calls":[{"from":"` + richAddr.Hex() + `","to":"` + logAddr.Hex() + `"}]}]}`,
		"history storage":   `{"blockStateCalls":[{"stateOverrides":{"0x0000F90827F1C53a10cb7A02335B175320002935":{"stateDiff":{"0x0000000000000000000000000000000000000000000000000000000000000001":"0x00000000000000000000000000000000000000000000000000000000000000ff"}}}}]}`,
		"beacon roots code": `{"blockStateCalls":[{"stateOverrides":{"0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02":{"code":"0x00"}}}]}`,
		"system address":    `{"blockStateCalls":[{"stateOverrides":{"0xfffffffffffffffffffffffffffffffffffffffe":{"balance":"0x1"}}}]}`,
		"moved precompile":  `{"blockStateCalls":[{"stateOverrides":{"0x0000000000000000000000000000000000000001":{"movePrecompileToAddress":"0x0000000000000000000000000000000000123456"}}}]}`,
		"beacon root":       `{"blockStateCalls":[{"blockOverrides":{"beaconRoot":"0x0000000000000000000000000000000000000000000000000000000000000007"}}]}`,
		"two blocks":        `{"blockStateCalls":[{},{"calls":[{"from":"` + richAddr.Hex() + `","to":"` + logAddr.Hex() + `"}]}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			before := preparedRuns.Load()
			decode := func() SimOpts { return decodeSimOpts(t, req) }
			if _, err := simulateBothWays(context.Background(), t, SimEnv{Env: chain.env(t)}, decode); err != nil {
				t.Fatal(err)
			}
			used := preparedRuns.Load() > before
			if want := name == "default" || name == "two blocks"; used != want {
				t.Fatalf("prepared state used: %v, want %v", used, want)
			}
		})
	}
}
