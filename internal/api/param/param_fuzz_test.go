package param

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/flashrpc/flashrpc/internal/rpc"
)

// Fuzz targets of the parameter decoders. Their seed corpora (the f.Add values) run in every
// `go test`; `go test -fuzz FuzzParseQuantity ./internal/api/param/` explores further. Parameters
// reach the decoders as valid JSON (the transport's scanner checks the whole body), so the
// targets skip anything else; and rpc's parseParams hands each one over without the white
// space around it, so the targets trim it (testdata/fuzz/FuzzParseQuantity and
// FuzzParseHexOrDecimal keep the inputs that showed it).

// paramSeeds are JSON values every decoder is tried with.
var paramSeeds = []string{
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

// asParam returns raw as a decoder receives it, and whether it can: valid JSON, without the
// white space around it.
func asParam(raw []byte) ([]byte, bool) {
	if !json.Valid(raw) {
		return nil, false
	}
	return bytes.Trim(raw, " \t\r\n"), true
}

func addSeeds(f *testing.F) {
	for _, s := range paramSeeds {
		f.Add([]byte(s))
	}
}

// strictQuantity is what ParseQuantity accepts: go-ethereum's hexutil quantity of 64 bits.
var strictQuantity = regexp.MustCompile(`^0[xX](0|[1-9a-fA-F][0-9a-fA-F]{0,15})$`)

// checkParamError checks the error of a decoder: -32602 naming argument 0 and, when it is an
// invalid value rather than a missing one, the parameter.
func checkParamError(t *testing.T, raw []byte, err error, name string) {
	t.Helper()
	var e *rpc.Error
	if !errors.As(err, &e) || e.Code != rpc.CodeInvalidParams {
		t.Fatalf("%s: error %v (%T), want -32602", raw, err, err)
	}
	if e.Message != "missing value for required argument 0" && !strings.HasPrefix(e.Message, "invalid argument 0 ("+name+"): ") {
		t.Fatalf("%s: message %q does not name argument 0 (%s)", raw, e.Message, name)
	}
}

func FuzzParseQuantity(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		raw, ok := asParam(raw)
		if !ok {
			return
		}
		got, err := DecodeQuantity(rpc.Params{raw}, 0, "index")
		var s string
		isString := json.Unmarshal(raw, &s) == nil
		if !isString || !strictQuantity.MatchString(s) {
			if err == nil {
				t.Fatalf("%s accepted as %d", raw, got)
			}
			checkParamError(t, raw, err, "index")
			return
		}
		want, perr := strconv.ParseUint(s[2:], 16, 64)
		if perr != nil {
			t.Fatalf("reference parse of %q: %v", s, perr)
		}
		if err != nil || got != want {
			t.Fatalf("%s = %d, %v; want %d", raw, got, err, want)
		}
	})
}

func FuzzParseHexOrDecimal(f *testing.F) {
	addSeeds(f)
	strictDecimal := regexp.MustCompile(`^(0|[1-9][0-9]*)$`)
	f.Fuzz(func(t *testing.T, raw []byte) {
		raw, valid := asParam(raw)
		if !valid {
			return
		}
		got, err := DecodeHexOrDecimal(rpc.Params{raw}, 0, "blockCount")
		text := string(raw)
		var s string
		if json.Unmarshal(raw, &s) == nil {
			text = s
		}
		var want uint64
		var ok bool
		switch {
		case len(raw) > 0 && raw[0] == '"' && strictQuantity.MatchString(text):
			want, _ = strconv.ParseUint(text[2:], 16, 64)
			ok = true
		case strictDecimal.MatchString(text):
			v, perr := strconv.ParseUint(text, 10, 64)
			want, ok = v, perr == nil
		}
		if !ok {
			if err == nil {
				t.Fatalf("%s accepted as %d", raw, got)
			}
			checkParamError(t, raw, err, "blockCount")
			return
		}
		if err != nil || got != want {
			t.Fatalf("%s = %d, %v; want %d", raw, got, err, want)
		}
	})
}

func FuzzDecodeBlockNumber(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		raw, ok := asParam(raw)
		if !ok {
			return
		}
		n, err := DecodeBlockNumber(rpc.Params{raw}, 0)
		if err != nil {
			checkParamError(t, raw, err, "block")
			return
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			t.Fatalf("%s accepted as %d: not a string", raw, n)
		}
		switch {
		case n >= 0:
			if !strictQuantity.MatchString(s) {
				t.Fatalf("%s accepted as block %d", raw, n)
			}
			if want, _ := strconv.ParseUint(s[2:], 16, 64); uint64(n) != want {
				t.Fatalf("%s = %d, want %d", raw, n, want)
			}
		case n.String() != s:
			t.Fatalf("%s accepted as tag %s", raw, n)
		}
	})
}

func FuzzDecodeBlockNumberOrHash(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		raw, ok := asParam(raw)
		if !ok {
			return
		}
		b, err := DecodeBlockNumberOrHash(rpc.Params{raw}, 0, true)
		if err != nil {
			checkParamError(t, raw, err, "block")
			return
		}
		if string(raw) == `""` || string(raw) == `"0x"` {
			t.Fatalf("%s accepted as %v", raw, b)
		}
		if n, ok := b.Number(); ok && n >= 0 {
			var s string
			if json.Unmarshal(raw, &s) == nil && !strictQuantity.MatchString(s) {
				t.Fatalf("%s accepted as block %d", raw, n)
			}
		}
	})
}

func FuzzDecodeSlot(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		raw, ok := asParam(raw)
		if !ok {
			return
		}
		slot, err := DecodeSlot(rpc.Params{nil, raw}, 1)
		if err != nil {
			var e *rpc.Error
			if !errors.As(err, &e) || e.Code != rpc.CodeInvalidParams || !strings.HasPrefix(e.Message, "invalid argument 1 (slot): ") && e.Message != "missing value for required argument 1" {
				t.Fatalf("%s: error %v", raw, err)
			}
			return
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			t.Fatalf("%s accepted as %s: not a string", raw, slot)
		}
		digits := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
		if digits == "" || len(digits) > 64 {
			t.Fatalf("%q accepted as %s", s, slot)
		}
		if len(digits)%2 == 1 {
			digits = "0" + digits
		}
		if !strings.HasSuffix(slot.Hex(), strings.ToLower(digits)) {
			t.Fatalf("%q decoded as %s", s, slot)
		}
	})
}

// fixedHexSeeds are address and hash shapes for FuzzDecodeAddress and FuzzDecodeHash.
var fixedHexSeeds = []string{
	`"0x0000000000000000000000000000000000000001"`, `"0XABCDEFabcdef0000000000000000000000000001"`,
	`"0x000000000000000000000000000000000000001"`, `"0x00000000000000000000000000000000000000001"`,
	`"0x000000000000000000000000000000000000000g"`, `"0000000000000000000000000000000000000000"`,
	`"0x0000000000000000000000000000000000000000000000000000000000000001"`,
	`"0x\u00300000000000000000000000000000000000000000000000000000000000001"`,
	`"0x000000000000000000000000000000000000000000000000000000000000000G"`,
}

// fuzzFixedHex checks decode against encoding/json into T, the general path it falls back to:
// both accept the same values (null and absent are missing) and agree on them.
func fuzzFixedHex[T comparable](t *testing.T, raw []byte, decode func(rpc.Params, int) (T, error), name string) {
	raw, ok := asParam(raw)
	if !ok {
		return
	}
	got, err := decode(rpc.Params{raw}, 0)
	var want T
	werr := json.Unmarshal(raw, &want)
	switch {
	case string(raw) == "null":
		if err == nil {
			t.Fatalf("null accepted as %v", got)
		}
		checkParamError(t, raw, err, name)
	case werr != nil:
		if err == nil {
			t.Fatalf("%s accepted as %v; encoding/json: %v", raw, got, werr)
		}
		var e *rpc.Error
		if !errors.As(err, &e) || e.Code != rpc.CodeInvalidParams {
			t.Fatalf("%s: error %v, want -32602", raw, err)
		}
	case err != nil || got != want:
		t.Fatalf("%s = %v, %v; encoding/json gives %v", raw, got, err, want)
	}
}

func FuzzDecodeAddress(f *testing.F) {
	addSeeds(f)
	for _, s := range fixedHexSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { fuzzFixedHex(t, raw, DecodeAddress, "address") })
}

func FuzzDecodeHash(f *testing.F) {
	addSeeds(f)
	for _, s := range fixedHexSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { fuzzFixedHex(t, raw, DecodeHash, "hash") })
}
