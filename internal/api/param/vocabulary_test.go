package param

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/flashrpc/flashrpc/internal/rpc"
)

// goVocabulary are fragments of Go's type names and of encoding/json's texts that must not
// reach a client.
var goVocabulary = []string{"common.", "hexutil.", "big.Int", "rpc.Block", "Go value", "Go struct", "uint8", "json: cannot"}

// TestErrorsSpeakJSONRPC runs every decoder on values of the wrong kind: each error is -32602,
// says what is wanted in the JSON-RPC vocabulary (address, hash, quantity, bytes, block tag)
// and names no Go type.
func TestErrorsSpeakJSONRPC(t *testing.T) {
	decode := func(v any) func(rpc.Params) error {
		return func(p rpc.Params) error { return DecodeArg(p, 0, v) }
	}
	decoders := []struct {
		name string
		fn   func(rpc.Params) error
		want string // a word the message must hold
		bad  []string
	}{
		{"DecodeAddress", func(p rpc.Params) error { _, err := DecodeAddress(p, 0); return err }, "address",
			[]string{`7`, `true`, `{}`, `[]`, `"0x12"`, `"12"`, `"0xzz00000000000000000000000000000000000000"`}},
		{"DecodeHash", func(p rpc.Params) error { _, err := DecodeHash(p, 0); return err }, "hash",
			[]string{`7`, `{}`, `"0x12"`, `"ab"`}},
		{"DecodeQuantity", func(p rpc.Params) error { _, err := DecodeQuantity(p, 0, "index"); return err }, "",
			[]string{`7`, `{}`, `"0x"`, `"12"`, `"-0x1"`, `"0x10000000000000000"`}},
		{"DecodeHexOrDecimal", func(p rpc.Params) error { _, err := DecodeHexOrDecimal(p, 0, "blockCount"); return err }, "",
			[]string{`{}`, `"x"`, `-1`, `"0xg"`}},
		{"DecodeSlot", func(p rpc.Params) error { _, err := DecodeSlot(p, 0); return err }, "slot",
			[]string{`7`, `"0x"`, `"0xzz"`}},
		{"DecodeBool", func(p rpc.Params) error { _, err := DecodeBool(p, 0); return err }, "true or false",
			[]string{`7`, `"true"`, `{}`}},
		{"DecodeBlockNumber", func(p rpc.Params) error { _, err := DecodeBlockNumber(p, 0); return err }, "block",
			[]string{`7`, `"newest"`, `""`, `{}`, `"0xg"`}},
		{"DecodeBlockNumberOrHash", func(p rpc.Params) error { _, err := DecodeBlockNumberOrHash(p, 0, true); return err }, "block",
			[]string{`7`, `"newest"`, `{"blockNumber":7}`, `{"blockHash":"0x12"}`, `"0x12zz"`}},
		{"DecodeArg address", decode(new(common.Address)), "address", []string{`7`, `"0x12"`, `[]`}},
		{"DecodeArg hash", decode(new(common.Hash)), "hash", []string{`7`, `"0x12"`}},
		{"DecodeArg quantity", decode(new(hexutil.Big)), "quantity", []string{`7`, `{}`}},
		{"DecodeArg uint64 quantity", decode(new(hexutil.Uint64)), "quantity", []string{`7`, `[]`}},
		{"DecodeArg bytes", decode(new(hexutil.Bytes)), "bytes", []string{`7`, `{}`}},
		{"DecodeArg addresses", decode(new([]common.Address)), "", []string{`7`, `[7]`, `["0x12"]`}},
		{"DecodeArg object", decode(new(struct {
			To *common.Address `json:"to"`
		})), "address", []string{`{"to":7}`, `{"to":"0x12"}`}},
	}
	for _, d := range decoders {
		for _, bad := range d.bad {
			err := d.fn(rpc.Params{json.RawMessage(bad)})
			var re *rpc.Error
			if !errors.As(err, &re) || re.Code != rpc.CodeInvalidParams {
				t.Errorf("%s(%s) = %v, want a -32602 error", d.name, bad, err)
				continue
			}
			for _, g := range goVocabulary {
				if strings.Contains(re.Message, g) {
					t.Errorf("%s(%s): %q names Go's %q", d.name, bad, re.Message, g)
				}
			}
			if !strings.Contains(re.Message, d.want) {
				t.Errorf("%s(%s): %q does not say %q", d.name, bad, re.Message, d.want)
			}
		}
	}
}
