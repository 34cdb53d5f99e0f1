package rpc

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestScanValid checks that the scanner accepts exactly what encoding/json accepts.
func TestScanValid(t *testing.T) {
	t.Parallel()
	inputs := []string{
		`0`, `-0`, `1`, `-1`, `10`, `1.5`, `-1.5e10`, `1E+2`, `1e-2`, `01`, `-`, `1.`, `.5`, `1e`, `1e+`, `+1`, `- 1`,
		`""`, `"a"`, `"\""`, `"\\"`, `"\/"`, `"\b\f\n\r\t"`, `"\u00e9"`, `"\u00E9"`, `"\u00g9"`, `"\u00e"`, `"\x"`, `"a`, "\"a\tb\"", "\"a\x01\"", "\"\x7f\"",
		`true`, `false`, `null`, `tru`, `nul`, `True`, `nulll`,
		`[]`, `[ ]`, `[1]`, `[1,2]`, `[1,]`, `[,1]`, `[1 2]`, `[`, `]`, `[[[]]]`, `[[]`,
		`{}`, `{ }`, `{"a":1}`, `{"a":1,"b":[{}]}`, `{"a"}`, `{"a":}`, `{a:1}`, `{"a":1,}`, `{,"a":1}`, `{"a":1 "b":2}`, `{"a" : 1 }`, `{1:2}`,
		` 1 `, "\t{}\n", `1 2`, `{} {}`, ``, ` `,
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	}
	for _, in := range inputs {
		_, _, err := parseBody([]byte(in), nil, -1)
		got := err == nil
		want := json.Valid([]byte(in)) || strings.TrimSpace(in) == ""
		if got != want {
			t.Errorf("parseBody(%.40q) valid = %v, want %v", in, got, want)
		}
	}
}

// FuzzParseBody checks the envelope scanner against encoding/json: the same inputs are
// valid, and each message has the members encoding/json sees.
func FuzzParseBody(f *testing.F) {
	for _, seed := range []string{
		benchRequest,
		`[{"jsonrpc":"2.0","id":1,"method":"a"},2,{"id":[],"method":"\u0061"}]`,
		`{"j\u0073onrpc":"2\u002e0","id":"x","method":"m","params":{"a":[1,"]"]},"result":null}`,
		`{"id":1,"id":2,"method":1,"method":"m"}`,
	} {
		f.Add([]byte(seed))
	}
	addScriptSeeds(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		reqs, batch, err := parseBody(body, nil, -1)
		if valid := json.Valid(body) || len(trimSpace(body)) == 0; (err == nil) != valid {
			t.Fatalf("parseBody error %v, json.Valid %v", err, valid)
		}
		if err != nil {
			return
		}
		var items []json.RawMessage
		if batch {
			if json.Unmarshal(body, &items) != nil {
				t.Fatal("batch is not an array")
			}
		} else if len(trimSpace(body)) > 0 {
			items = []json.RawMessage{body}
		}
		if len(items) != len(reqs) {
			t.Fatalf("%d messages, want %d", len(reqs), len(items))
		}
		for i, item := range items {
			checkMessage(t, item, &reqs[i])
		}
	})
}

// checkMessage compares a parsed message with encoding/json's view of item.
func checkMessage(t *testing.T, item json.RawMessage, r *request) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(item, &fields) != nil || fields == nil {
		if r.id != nil || r.method != nil || r.params != nil || r.version || r.reply {
			t.Fatalf("non-object %s parsed as %+v", item, r)
		}
		return
	}
	if got, want := string(r.id), string(fields["id"]); got != want {
		t.Errorf("id = %q, want %q", got, want)
	}
	if got, want := string(r.params), string(fields["params"]); got != want {
		t.Errorf("params = %q, want %q", got, want)
	}
	var method string
	if m, ok := fields["method"]; ok && json.Unmarshal(m, &method) == nil && string(r.method) != method {
		t.Errorf("method = %q, want %q", r.method, method)
	}
	var version string
	json.Unmarshal(fields["jsonrpc"], &version)
	if r.version != (version == "2.0" && fields["jsonrpc"][0] == '"') {
		t.Errorf("version = %v for %s", r.version, fields["jsonrpc"])
	}
	_, hasResult := fields["result"]
	_, hasError := fields["error"]
	if r.reply != (hasResult || hasError) {
		t.Errorf("reply = %v", r.reply)
	}
}

// FuzzParseBatchLimit checks parseBody with an item limit against parseBody without one: a
// body within the limit parses the same; a batch over it is refused with
// errBatchTooLarge, holding exactly the first limit items of the unlimited parse, and
// never more (the limit bounds memory, not just the answer).
func FuzzParseBatchLimit(f *testing.F) {
	for _, seed := range []string{`[1,2,3]`, `[1,2,3,4]`, `[1,2,3,4,5]`, `[1,2,3,4,x`, `[{"id":1},2,3,{"method":"m"},5]`, `[]`, `{}`, `[[1,2,3,4,5]]`} {
		f.Add(uint8(3), []byte(seed))
	}
	f.Fuzz(func(t *testing.T, limit uint8, body []byte) {
		n := int(limit % 8)
		got, gotBatch, gotErr := parseBody(body, nil, n)
		want, wantBatch, wantErr := parseBody(body, nil, -1)
		if gotBatch != wantBatch {
			t.Fatalf("batch %v, without limit %v", gotBatch, wantBatch)
		}
		if gotErr == errBatchTooLarge {
			if !gotBatch || len(got) != n {
				t.Fatalf("refused with %d items (batch %v), limit %d", len(got), gotBatch, n)
			}
			if wantErr == nil && len(want) <= n {
				t.Fatalf("refused a batch of %d items, limit %d", len(want), n)
			}
			if len(want) < n {
				t.Fatalf("%d items before the limit, %d without it", len(got), len(want))
			}
			for i := range got {
				if !sameRequest(&got[i], &want[i]) {
					t.Fatalf("item %d: %+v, without limit %+v", i, got[i], want[i])
				}
			}
			return
		}
		if (gotErr == nil) != (wantErr == nil) || len(got) != len(want) {
			t.Fatalf("error %v, %d items; without limit %v, %d items", gotErr, len(got), wantErr, len(want))
		}
		if gotErr == nil && gotBatch && len(got) > n {
			t.Fatalf("accepted %d items, limit %d", len(got), n)
		}
		for i := range got {
			if !sameRequest(&got[i], &want[i]) {
				t.Fatalf("item %d: %+v, without limit %+v", i, got[i], want[i])
			}
		}
	})
}

// sameRequest compares two parsed messages.
func sameRequest(a, b *request) bool {
	return string(a.id) == string(b.id) && (a.id == nil) == (b.id == nil) &&
		string(a.method) == string(b.method) && (a.method == nil) == (b.method == nil) &&
		string(a.params) == string(b.params) && (a.params == nil) == (b.params == nil) &&
		a.version == b.version && a.reply == b.reply
}
