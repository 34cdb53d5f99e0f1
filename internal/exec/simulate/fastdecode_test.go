package simulate

import (
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/flashrpc/flashrpc/internal/exec"
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
	type plain Opts
	for _, req := range reqs {
		var wire simOptsWire
		if err := json.Unmarshal([]byte(req), &wire); err != nil {
			continue // the slow way decides these; the error tests cover them
		}
		slow, err := exec.DecodeObject[plain]([]byte(req), "simulation options")
		if err != nil {
			t.Fatalf("%s: one pass decodes, level by level fails: %v", req, err)
		}
		if fast := wire.opts(); !reflect.DeepEqual(fast, Opts(slow)) {
			t.Fatalf("%s: decodings differ\n one pass %+v\n   levels %+v", req, fast, slow)
		}
	}
}

// TestSimOptsFastDecode: whatever the reflection-free decoder accepts decodes to the value
// encoding/json gives, on the hand-written requests, the conformance fixtures, generated
// bundles and thousands of their mutations (bytes dropped, doubled or changed, case flipped,
// keys repeated); and it accepts the common shapes and every generated bundle, so that the
// comparison means something and a decoder that refuses too much fails.
func TestSimOptsFastDecode(t *testing.T) {
	var reqs []string
	for _, req := range simRequests(t) {
		reqs = append(reqs, req)
	}
	files, _ := filepath.Glob(filepath.Join(conformanceDir(t), "eth_simulateV1", "*.io"))
	for _, file := range files {
		exchanges, _ := readIOFile(t, file)
		for _, ex := range exchanges {
			var req rpcRequest
			if json.Unmarshal([]byte(ex.Request), &req) == nil && len(req.Params) > 0 {
				reqs = append(reqs, string(req.Params[0]))
			}
		}
	}
	r := rand.New(rand.NewPCG(7, 11))
	var bundles []string
	for range 200 {
		bundles = append(bundles, randomBundle(r))
	}
	// Sibling objects with the same keys (calls, blocks, override objects) are the common
	// case: each object has its own set of keys read.
	common := []string{
		`{"blockStateCalls":[{"calls":[{"from":"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","to":"0x5FbDB2315678afecb367f032d93F642f64180aa3","data":"0x01"},{"from":"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","to":"0x5FbDB2315678afecb367f032d93F642f64180aa3","nonce":"0x1"}]},{"calls":[{"from":"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","to":"0x5FbDB2315678afecb367f032d93F642f64180aa3"}]}],"validation":true}`,
		`{"blockStateCalls":[{"blockOverrides":{"number":"0x10"},"calls":[{"from":"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","gas":"0x5208"}]},{"blockOverrides":{"number":"0x11"},"calls":[{"from":"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","gas":"0x5208"},{"from":"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","gas":"0x5208"},{"from":"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","gas":"0x5208"}]}]}`,
		`{"blockStateCalls":[{"calls":[{"from":"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","to":"0x5FbDB2315678afecb367f032d93F642f64180aa3","data":"0x01"}]}]}`,
		` { "blockStateCalls" : [ { "calls" : [ { "from" : null , "to" : null , "gas" : "0x5208" , "value" : "0x0" , "nonce" : "0x1" , "input" : "0x" } , null ] } , null ] , "validation" : true , "traceTransfers" : null } `,
		`{"blockStateCalls":[{"blockOverrides":{"number":"0x10"},"stateOverrides":{"0xc100000000000000000000000000000000000001":{"balance":"0x1"}},"calls":[]}],"returnFullTransactions":true}`,
		`{"blockStateCalls":null}`, `{"blockStateCalls":[]}`, `{"blockStateCalls":[{"calls":null}]}`, `{}`,
		`{"blockStateCalls":[{"calls":[{"maxFeePerGas":"0x3b9aca00","maxPriorityFeePerGas":"0x1","gasPrice":null}]}]}`,
	}
	for _, req := range common {
		if _, ok := decodeSimOptsFast([]byte(req)); !ok {
			t.Errorf("fast decoder refuses %s", req)
		}
	}
	for _, req := range bundles {
		if _, ok := decodeSimOptsFast([]byte(req)); !ok {
			t.Errorf("fast decoder refuses the generated bundle %s", req)
		}
	}
	reqs = append(reqs, bundles...)
	reqs = append(reqs, common...)
	accepted := 0
	check := func(req string) {
		fast, ok := decodeSimOptsFast([]byte(req))
		if !ok {
			return
		}
		accepted++
		if !json.Valid([]byte(req)) {
			t.Fatalf("fast decoder accepts invalid JSON %s", req)
		}
		slow, err := decodeSimOptsJSON([]byte(req))
		if err != nil {
			t.Fatalf("%s: fast decoder accepts, encoding/json fails: %v", req, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%s: decodings differ\n fast %+v\n slow %+v", req, fast, slow)
		}
	}
	for _, req := range reqs {
		check(req)
		for range 30 {
			check(mutate(r, req))
		}
	}
	t.Logf("accepted %d of %d", accepted, len(reqs)*31)
}

// TestSimOptsFastDecodeRepeatedKey: a key repeated in one object is refused (encoding/json
// decides what it means), at each depth, while the same key in sibling objects, and in an
// object nested in the one that has it, is accepted.
func TestSimOptsFastDecodeRepeatedKey(t *testing.T) {
	const a = `"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"`
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{`{"validation":true,"validation":false}`, false},
		{`{"blockStateCalls":[{"calls":[],"calls":[]}]}`, false},
		{`{"blockStateCalls":[{"calls":[{"from":` + a + `,"from":` + a + `}]}]}`, false},
		{`{"blockStateCalls":[{"calls":[{"from":` + a + `},{"from":` + a + `,"gas":"0x1","gas":"0x2"}]}]}`, false},
		{`{"blockStateCalls":[{"calls":[{"from":` + a + `},{"from":` + a + `}]}]}`, true},
		{`{"blockStateCalls":[{"calls":[{"from":` + a + `}]},{"calls":[{"from":` + a + `}]}]}`, true},
		{`{"blockStateCalls":[{"calls":[{"gas":"0x1"}]},{"calls":[{"gas":"0x1"}]}],"validation":true}`, true},
	} {
		if _, ok := decodeSimOptsFast([]byte(tc.in)); ok != tc.want {
			t.Errorf("decodeSimOptsFast(%s) ok = %v, want %v", tc.in, ok, tc.want)
		}
	}
}

// mutate returns req with one random change.
func mutate(r *rand.Rand, req string) string {
	if len(req) == 0 {
		return req
	}
	b := []byte(req)
	i := r.IntN(len(b))
	switch r.IntN(7) {
	case 0: // drop a byte
		return string(b[:i]) + string(b[i+1:])
	case 1: // double a byte
		return string(b[:i+1]) + string(b[i:])
	case 2: // replace a byte with a JSON-ish one
		const jsonish = `{}[],:" 0xaAfF1nul\`
		b[i] = jsonish[r.IntN(len(jsonish))]
		return string(b)
	case 3: // flip the case of a letter
		if c := b[i]; c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			b[i] ^= 0x20
		}
		return string(b)
	case 4: // insert a null value or white space
		return string(b[:i]) + []string{"null", " ", "\n", `""`, `"0x"`}[r.IntN(5)] + string(b[i:])
	case 5: // repeat a key: copy a `"key":value,` span after itself
		if j := strings.IndexByte(req[i:], ','); j > 0 {
			if k := strings.LastIndexByte(req[:i], '{'); k >= 0 {
				return req[:i+j+1] + req[k+1:i+j+1] + req[i+j+1:]
			}
		}
		return req
	default: // cut the end
		return string(b[:i])
	}
}

// TestFastDecoderCount: count gives the objects directly in the array that comes next, 0 for
// anything else, without moving the decoder, whatever strings and nested values hold.
func TestFastDecoderCount(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{`[]`, 0},
		{`null`, 0},
		{`{"calls":[{}]}`, 0},
		{` [ {} , {} ] `, 2},
		{`[{},null,{}]`, 2},
		{`[0,1,2,3]`, 0},
		{`[{"data":"0x"},{"a":[{},{}],"b":{"c":{}}}]`, 2},
		{`[{"s":"}]{,"},{"s":"\"{["}]`, 2},
		{`[[{}],{}],{}`, 1},
	} {
		d := &fastDecoder{b: []byte(tc.in)}
		if got := d.count(1 << 20); got != tc.want {
			t.Errorf("count(%s) = %d, want %d", tc.in, got, tc.want)
		}
		if d.i != 0 && strings.TrimSpace(tc.in[:d.i]) != "" {
			t.Errorf("count(%s) moved the decoder to %d", tc.in, d.i)
		}
	}
	// A body of many objects reserves at most the limit.
	many := "[" + strings.Repeat("{},", 9999) + "{}]"
	if got := (&fastDecoder{b: []byte(many)}).count(DefaultMaxCallsPerBlock); got != DefaultMaxCallsPerBlock {
		t.Errorf("count of 10,000 objects up to %d = %d", DefaultMaxCallsPerBlock, got)
	}
}
