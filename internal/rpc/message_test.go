package rpc

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAppendString checks that strings are escaped exactly as encoding/json does.
func TestAppendString(t *testing.T) {
	t.Parallel()
	for i, s := range []string{
		"", "plain", `"quoted"`, `back\slash`, "<script>&</script>", "ctl\x00\x01\x1f\x7f",
		"\b\f\n\r\t", "é ü 日本", "\u2028\u2029", "bad\xffutf8\xc3", "\xed\xa0\x80 surrogate",
	} {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Errorf("%d: appendString(%q) = %s, want %s", i, s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("a<b>\"\\\u2028\xff")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want)
		}
	})
}

// TestParseParams checks how "params" values become Params.
func TestParseParams(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, raw string
		want      []string // nil: no params
		wantErr   string
	}{
		{name: "missing", raw: ""},
		{name: "null", raw: "null"},
		{name: "spaced null", raw: " null "},
		{name: "empty", raw: "[]"},
		{name: "spaced empty", raw: "[ \n ]"},
		{name: "elements trimmed", raw: `[ "latest" , false,{"a" : [1, 2]} ,null]`, want: []string{`"latest"`, `false`, `{"a" : [1, 2]}`, `null`}},
		{name: "nested arrays", raw: `[[1,[2]],[]]`, want: []string{`[1,[2]]`, `[]`}},
		{name: "object", raw: `{"a":1}`, wantErr: "non-array args"},
		{name: "string", raw: `"x"`, wantErr: "non-array args"},
		{name: "number", raw: `1`, wantErr: "non-array args"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var raw json.RawMessage
			if tt.raw != "" {
				raw = json.RawMessage(tt.raw)
			}
			got, err := parseParams(raw, nil)
			if tt.wantErr != "" {
				if err == nil || err.Code != CodeInvalidParams || err.Message != tt.wantErr {
					t.Fatalf("error = %v, want -32602 %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("error = %v", err)
			}
			if got.Len() != len(tt.want) {
				t.Fatalf("Len() = %d, want %d", got.Len(), len(tt.want))
			}
			for i, w := range tt.want {
				if string(got.At(i)) != w {
					t.Errorf("At(%d) = %s, want %s", i, got.At(i), w)
				}
			}
			if got.At(len(tt.want)) != nil || got.At(-1) != nil {
				t.Error("At out of range is not nil")
			}
		})
	}
}

// FuzzParseParams checks parseParams against encoding/json: a valid "params" array gives
// its elements, trimmed, up to maxParams+1 of them; null or nothing gives none; anything
// else is -32602 "non-array args".
func FuzzParseParams(f *testing.F) {
	for _, seed := range []string{``, `null`, `[]`, `[1]`, `["latest",false]`, ` [ 1 , [2,3] , {"a":[]} ] `, `{"a":1}`, `"x"`,
		"[" + strings.Repeat("1,", maxParams) + "1]", "[" + strings.Repeat("1,", maxParams+5) + "1]"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) && len(trimSpace(raw)) > 0 {
			return // the envelope scanner refuses the body before params are split
		}
		got, err := parseParams(raw, nil)
		var elems []json.RawMessage
		switch v := trimSpace(raw); {
		case len(v) == 0 || string(v) == "null":
			if err != nil || got.Len() != 0 {
				t.Fatalf("%q: %v, %d params; want none", raw, err, got.Len())
			}
			return
		case v[0] != '[':
			if err != errNonArrayArgs {
				t.Fatalf("%q: error %v, want non-array args", raw, err)
			}
			return
		default:
			if json.Unmarshal(raw, &elems) != nil {
				t.Fatalf("%q: not an array for encoding/json", raw)
			}
		}
		if err != nil {
			t.Fatalf("%q: error %v", raw, err)
		}
		if want := min(len(elems), maxParams+1); got.Len() != want {
			t.Fatalf("%q: %d params, want %d", raw, got.Len(), want)
		}
		for i := range got.Len() {
			if string(got.At(i)) != string(trimSpace(elems[i])) {
				t.Fatalf("%q: param %d = %s, want %s", raw, i, got.At(i), elems[i])
			}
		}
	})
}

// TestAppendValue checks the encodings of results.
func TestAppendValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"nil", nil, "null"},
		{"raw", json.RawMessage(`{"a" : 1}`), `{"a" : 1}`},
		{"nil raw", json.RawMessage(nil), "null"},
		{"string", "a<b", `"a\u003cb"`},
		{"true", true, "true"},
		{"false", false, "false"},
		{"int", 42, "42"},
		{"struct", struct {
			A string `json:"a"`
		}{"x"}, `{"a":"x"}`},
		{"nil pointer", (*int)(nil), "null"},
		{"bytes", []byte{1, 2}, `"AQI="`},
	}
	for _, tt := range tests {
		got, err := appendValue(nil, tt.v)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: appendValue = %s, %v; want %s", tt.name, got, err, tt.want)
		}
	}
}

// BenchmarkParse measures decoding the envelope of a request body.
func BenchmarkParse(b *testing.B) {
	for _, bc := range []struct{ name, body string }{
		{"body=getBlockByNumber", benchRequest},
		{"body=spaced", " { \"params\" : [ \"latest\" , false ] , \"method\" : \"eth_getBlockByNumber\" , \"id\" : 1 , \"jsonrpc\" : \"2.0\" } "},
		{"body=call", `{"jsonrpc":"2.0","id":7,"method":"eth_call","params":[{"from":"0x` + strings.Repeat("1", 40) + `","to":"0x` + strings.Repeat("2", 40) + `","data":"0x` + strings.Repeat("ab", 400) + `"},"latest"]}`},
		{"body=batch10", "[" + strings.Repeat(benchRequest+",", 9) + benchRequest + "]"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			body := []byte(bc.body)
			reqs := make([]request, 0, 16)
			var params [8]json.RawMessage
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				got, _, err := parseBody(body, reqs[:0], -1)
				if err != nil || len(got) == 0 || len(got[0].method) == 0 {
					b.Fatal("bad parse", err)
				}
				if _, perr := parseParams(got[0].params, params[:0]); perr != nil {
					b.Fatal(perr)
				}
			}
		})
	}
}
