package events

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/flashrpc/flashrpc/internal/rpc"
)

// syncTimeoutSeeds are the JSON values FuzzDecodeSyncTimeout starts from: the parameter
// decoders' seeds (internal/api/param's param_fuzz_test.go).
var syncTimeoutSeeds = []string{
	`""`, `"0x"`, `"0X"`, `"0x0"`, `"0x00"`, `"0x01"`, `"0x1"`, `"0xA"`, `"0Xa"`, `"0xg"`, `"0x 1"`,
	`"-0x1"`, `"+0x1"`, `"0x-1"`, `"1"`, `"01"`, `"0"`, `"-1"`, `"1.5"`, `"1e3"`,
	`"0xffffffffffffffff"`, `"0x10000000000000000"`, `"0x7fffffffffffffff"`, `"0x8000000000000000"`,
	`"18446744073709551615"`, `"18446744073709551616"`,
	`0`, `1`, `-1`, `1.5`, `1e3`, `-0`, `18446744073709551616`, `true`, `false`, `null`, `{}`, `[]`,
	`"latest"`, `"pending"`, `"earliest"`, `"safe"`, `"finalized"`, `"newest"`,
	`"\u0030x1"`, `"0x\u0031"`, `"\u002d0x1"`,
	`{"blockNumber":"0x1"}`, `{"blockNumber":""}`, `{"blockHash":"0x0000000000000000000000000000000000000000000000000000000000000001"}`,
	`"0x0000000000000000000000000000000000000000000000000000000000000001"`,
}

func FuzzDecodeSyncTimeout(f *testing.F) {
	for _, s := range syncTimeoutSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		d, err := decodeSyncTimeout(rpc.Params{nil, raw}, 1)
		if err != nil {
			var e *rpc.Error
			if !errors.As(err, &e) || e.Code != rpc.CodeInvalidParams || !strings.HasPrefix(e.Message, "invalid argument 1 (timeout): ") {
				t.Fatalf("%s: error %v", raw, err)
			}
			return
		}
		if d <= 0 || d > MaxSyncTimeout {
			t.Fatalf("%s accepted as %v", raw, d)
		}
		if string(raw) == `""` || string(raw) == `"0x"` || strings.HasPrefix(string(raw), "-") {
			t.Fatalf("%s accepted as %v", raw, d)
		}
	})
}
