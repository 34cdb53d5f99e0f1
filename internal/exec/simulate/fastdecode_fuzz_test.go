package simulate

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzSimOptsFastDecode is the differential of eth_simulateV1's reflection-free decoder
// against encoding/json: whatever the fast decoder accepts is valid JSON that encoding/json
// decodes to the same value; and Opts.UnmarshalJSON, which tries the fast decoder first,
// agrees with encoding/json on every input. Seeds: the common shapes and the mutations
// TestSimOptsFastDecode uses, plus testdata/fuzz/FuzzSimOptsFastDecode.
func FuzzSimOptsFastDecode(f *testing.F) {
	for _, s := range []string{
		`{"blockStateCalls":[{"calls":[{"from":"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","to":"0x5FbDB2315678afecb367f032d93F642f64180aa3","data":"0x01"}]}]}`,
		` { "blockStateCalls" : [ { "calls" : [ { "from" : null , "to" : null , "gas" : "0x5208" , "value" : "0x0" , "nonce" : "0x1" , "input" : "0x" } , null ] } , null ] , "validation" : true , "traceTransfers" : null } `,
		`{"blockStateCalls":[{"blockOverrides":{"number":"0x10","time":"0x5"},"stateOverrides":{"0xc100000000000000000000000000000000000001":{"balance":"0x1","nonce":"0x2","code":"0x60","state":{"0x0000000000000000000000000000000000000000000000000000000000000001":"0x0000000000000000000000000000000000000000000000000000000000000002"}}},"calls":[]}],"returnFullTransactions":true}`,
		`{"blockStateCalls":null}`, `{"blockStateCalls":[]}`, `{"blockStateCalls":[{"calls":null}]}`, `{}`, `null`, `[]`, `""`,
		`{"blockStateCalls":[{"calls":[{"maxFeePerGas":"0x3b9aca00","maxPriorityFeePerGas":"0x1","gasPrice":null,"accessList":[{"address":"0x0000000000000000000000000000000000000001","storageKeys":[]}]}]}]}`,
		`{"blockStateCalls":[{"calls":[{"data":"0x01","input":"0x02"}]}]}`,
		`{"blockstatecalls":[],"VALIDATION":true}`, `{"validation":true,"validation":false}`,
		`{"blockStateCalls":[{"calls":[{"gas":"0x"}]}]}`, `{"blockStateCalls":[{"calls":[{"value":"0x01"}]}]}`,
		`{"blockStateCalls":[{"calls":[{"to":"0x\u0030000000000000000000000000000000000001"}]}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		fast, ok := decodeSimOptsFast(input)
		slow, err := decodeSimOptsJSON(input)
		if ok {
			if !json.Valid(input) {
				t.Fatalf("fast decoder accepts invalid JSON %q", input)
			}
			if err != nil {
				t.Fatalf("%q: fast decoder accepts, encoding/json fails: %v", input, err)
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("%q: decodings differ\n fast %+v\n slow %+v", input, fast, slow)
			}
		}
		var o Opts
		uerr := o.UnmarshalJSON(input)
		if (uerr == nil) != (err == nil) {
			t.Fatalf("%q: UnmarshalJSON error %v, encoding/json error %v", input, uerr, err)
		}
		if uerr == nil && !reflect.DeepEqual(o, slow) {
			t.Fatalf("%q: UnmarshalJSON gives %+v, encoding/json %+v", input, o, slow)
		}
	})
}
