package param

import (
	"encoding/json"
	"strings"
	"testing"

	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/rpc"
)

func params(raw ...string) rpc.Params {
	p := make(rpc.Params, len(raw))
	for i, r := range raw {
		p[i] = json.RawMessage(r)
	}
	return p
}

// TestOneAndTwo: the parameter count is checked first, then each parameter in order, and the
// first error is the answer; otherwise both values come back.
func TestOneAndTwo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		p       rpc.Params
		wantErr string
	}{
		{"both", params(`"latest"`, `"0x2"`), ""},
		{"too many", params(`"latest"`, `"0x2"`, `true`), "too many arguments, want at most 2"},
		{"bad first", params(`"newest"`, `"0x2"`), "invalid argument 0 (block)"},
		{"bad first and second", params(`"newest"`, `7`), "invalid argument 0 (block)"},
		{"bad second", params(`"latest"`, `"0x"`), "invalid argument 1 (index)"},
		{"missing second", params(`"latest"`), "missing value for required argument 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n, index, err := Two(tc.p, DecodeBlockNumber, DecodeIndex)
			switch {
			case tc.wantErr == "" && (err != nil || n != gethrpc.LatestBlockNumber || index != 2):
				t.Fatalf("got %d, %d, %v; want latest, 2", n, index, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("got error %v, want %q", err, tc.wantErr)
			}
		})
	}
	if _, err := One(params(`"latest"`, `"0x2"`), DecodeBlockNumber); err == nil || !strings.Contains(err.Error(), "want at most 1") {
		t.Fatalf("One with two parameters: %v, want too many arguments", err)
	}
	if n, err := One(params(`"0x7"`), DecodeBlockNumber); err != nil || n != 7 {
		t.Fatalf("One: %d, %v; want 7", n, err)
	}
}
