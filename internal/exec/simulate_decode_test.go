package exec

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestSimOptsDecodeOnePass: the one-pass decoding of simOptsWire gives the value the level
// by level decoding gives, on the hand-written requests and on generated bundles.
func TestSimOptsDecodeOnePass(t *testing.T) {
	reqs := []string{}
	for _, req := range simRequests(t) {
		reqs = append(reqs, req)
	}
	r := rand.New(rand.NewPCG(3, 5))
	for range 100 {
		reqs = append(reqs, randomBundle(r))
	}
	reqs = append(reqs, `{"blockStateCalls":null}`, `{"blockStateCalls":[{"calls":null}]}`, `{"blockStateCalls":[{"calls":[null,{}]}]}`)
	type plain SimOpts
	for _, req := range reqs {
		var wire simOptsWire
		if err := json.Unmarshal([]byte(req), &wire); err != nil {
			continue // the slow way decides these; the error tests cover them
		}
		slow, err := decodeObject[plain]([]byte(req), "simulation options")
		if err != nil {
			t.Fatalf("%s: one pass decodes, level by level fails: %v", req, err)
		}
		if fast := wire.opts(); !reflect.DeepEqual(fast, SimOpts(slow)) {
			t.Fatalf("%s: decodings differ\n one pass %+v\n   levels %+v", req, fast, slow)
		}
	}
}
