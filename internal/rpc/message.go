package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// Params are the positional parameters of one call: the elements of the "params" array,
// verbatim (whitespace trimmed). A missing or null "params" gives empty Params.
//
// The elements alias the request buffer, which the server reuses once the call has
// returned: a method must decode or copy what it keeps, and must not hand Params or
// their elements to goroutines that outlive the call.
type Params []json.RawMessage

// Len returns the number of parameters.
func (p Params) Len() int { return len(p) }

// At returns parameter i, or nil when the call has fewer parameters. An explicit JSON
// null is returned as the bytes `null`.
func (p Params) At(i int) json.RawMessage {
	if i < 0 || i >= len(p) {
		return nil
	}
	return p[i]
}

// request is one message of a request body, picked apart by parseMessage. The byte
// slices alias the body.
type request struct {
	id      json.RawMessage // raw "id" value; nil when absent
	method  []byte          // "method" string, unescaped; nil when absent or not a string
	params  json.RawMessage // raw "params" value; nil when absent
	version bool            // "jsonrpc" is the string "2.0"
	reply   bool            // has "result" or "error": a response, not a call
}

// validID reports whether the id may be echoed: present and not an object or array.
// Like go-ethereum, "id":null counts as an id.
func (r *request) validID() bool {
	return len(r.id) > 0 && r.id[0] != '{' && r.id[0] != '['
}

// isNotification reports a call without id: it runs, but gets no response.
func (r *request) isNotification() bool {
	return r.version && r.id == nil && len(r.method) > 0
}

// isCall reports a call that gets a response.
func (r *request) isCall() bool {
	return r.version && r.validID() && len(r.method) > 0
}

// isResponse reports a response message, which a server ignores (go-ethereum treats it as
// the answer to a request of its own).
func (r *request) isResponse() bool {
	return r.version && r.validID() && len(r.method) == 0 && r.params == nil && r.reply
}

// answered reports whether the message gets a response entry.
func (r *request) answered() bool {
	return !r.isNotification() && !r.isResponse()
}

// replyID returns the id to echo in the response to r: its own, or null.
func (r *request) replyID() []byte {
	if r.validID() {
		return r.id
	}
	return jsonNull
}

var jsonNull = []byte("null")

// errBatchTooLarge reports a batch with more items than the limit parseBody was given.
var errBatchTooLarge = errors.New("batch too large")

// parseBody splits a request body into messages, appending them to dst. It reports
// whether the body is a batch (a JSON array). Elements that are not objects become zero
// requests, which are answered as invalid. The whole body must be valid JSON, otherwise
// errSyntax is returned. A body of only whitespace gives no messages and no error.
//
// A batch with more than maxItems items (maxItems < 0: no limit) is refused with
// errBatchTooLarge as soon as item maxItems+1 begins: the items before it are in the
// result, the rest of the body is neither read nor validated. So the memory a batch takes
// is bounded by the limit, not by the body: each item costs a request struct (80 bytes),
// and a 32 MiB body of "[1,1,…]" would otherwise be 16.7 million of them.
func parseBody(body []byte, dst []request, maxItems int) ([]request, bool, error) {
	i := skipSpace(body, 0)
	if i == len(body) {
		return dst, false, nil
	}
	batch := body[i] == '['
	var (
		end int
		err error
	)
	if batch {
		end, dst, err = parseBatch(body, i, dst, maxItems)
	} else {
		dst = append(dst, request{})
		end, err = parseMessage(body, i, 0, &dst[len(dst)-1])
	}
	if err != nil {
		return dst, batch, err
	}
	if skipSpace(body, end) != len(body) {
		return dst, batch, errSyntax
	}
	return dst, batch, nil
}

// parseBatch parses the array at body[i] into messages, at most maxItems of them
// (negative: no limit).
func parseBatch(body []byte, i int, dst []request, maxItems int) (int, []request, error) {
	i = skipSpace(body, i+1)
	if i < len(body) && body[i] == ']' {
		return i + 1, dst, nil
	}
	for n := 0; ; n++ {
		if n == maxItems {
			return 0, dst, errBatchTooLarge
		}
		dst = append(dst, request{})
		end, err := parseMessage(body, i, 1, &dst[len(dst)-1])
		if err != nil {
			return 0, dst, err
		}
		i = skipSpace(body, end)
		if i >= len(body) {
			return 0, dst, errSyntax
		}
		switch body[i] {
		case ',':
			i = skipSpace(body, i+1)
		case ']':
			return i + 1, dst, nil
		default:
			return 0, dst, errSyntax
		}
	}
}

// parseMessage scans the value at b[i] into r. A value that is not an object leaves r
// zero. Unknown keys are ignored; for repeated keys the last one wins.
func parseMessage(b []byte, i, depth int, r *request) (int, error) {
	if i >= len(b) || b[i] != '{' {
		return scanValue(b, i, depth)
	}
	return scanFields(b, i, depth+1, func(key []byte, escaped bool, value []byte) {
		if escaped {
			key = unescape(key)
		}
		switch string(key) {
		case "jsonrpc":
			r.version = isVersion(value)
		case "id":
			r.id = value
		case "method":
			r.method = stringValue(value)
		case "params":
			r.params = value
		case "result", "error":
			r.reply = true
		}
	})
}

// isVersion reports whether value is the JSON string "2.0".
func isVersion(value []byte) bool {
	if string(value) == `"2.0"` {
		return true
	}
	return value[0] == '"' && string(stringValue(value)) == "2.0"
}

// stringValue returns the contents of a JSON string value, unescaped, or nil when value
// is not a string.
func stringValue(value []byte) []byte {
	if value[0] != '"' {
		return nil
	}
	inner := value[1 : len(value)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return inner
	}
	// Escapes, or invalid UTF-8 that encoding/json replaces with U+FFFD.
	var s string
	if json.Unmarshal(value, &s) != nil {
		return nil
	}
	return []byte(s)
}

// unescape returns the unescaped contents of the raw (quote-less) JSON string s.
func unescape(s []byte) []byte {
	quoted := make([]byte, 0, len(s)+2)
	quoted = append(append(append(quoted, '"'), s...), '"')
	return stringValue(quoted)
}

// maxParams is the most elements parseParams splits off a "params" array. No method takes
// that many, so a call with more gets maxParams+1 of them, which is enough for the method
// to refuse it with its own "too many arguments, want at most N"; the rest is not split,
// so a body of "params":[1,1,…] costs no memory per element.
const maxParams = 64

// parseParams splits the raw "params" value of a call into its elements, appended to
// dst[:0]: all of them, or the first maxParams+1 when there are more. Missing, empty and
// null params give no elements; anything but an array is an error.
func parseParams(raw json.RawMessage, dst Params) (Params, *Error) {
	raw = trimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] != '[' {
		return nil, errNonArrayArgs
	}
	i := skipSpace(raw, 1)
	if raw[i] == ']' {
		return nil, nil
	}
	params := dst[:0]
	for len(params) <= maxParams {
		// The body was validated as a whole, so the scan cannot fail.
		end, err := scanValue(raw, i, 1)
		if err != nil {
			return nil, InvalidParams("%v", err)
		}
		params = append(params, raw[i:end])
		i = skipSpace(raw, end)
		if raw[i] != ',' {
			return params, nil
		}
		i = skipSpace(raw, i+1)
	}
	return params, nil
}

// encodeValue returns the JSON encoding of v like appendValue, but a json.RawMessage as
// it is, without copying.
func encodeValue(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok && len(raw) > 0 {
		return raw, nil
	}
	return appendValue(nil, v)
}

// appendValue appends the JSON encoding of v: a json.RawMessage verbatim (nil or empty
// as null), strings and bools directly, anything else through encoding/json.
func appendValue(buf []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(buf, "null"...), nil
	case json.RawMessage:
		if len(v) == 0 {
			return append(buf, "null"...), nil
		}
		return append(buf, v...), nil
	case string:
		return appendString(buf, v), nil
	case bool:
		if v {
			return append(buf, "true"...), nil
		}
		return append(buf, "false"...), nil
	}
	enc, err := json.Marshal(v)
	if err != nil {
		return buf, err
	}
	return append(buf, enc...), nil
}

// appendString appends s as a JSON string, escaped exactly as encoding/json does
// (including <, >, & and U+2028/U+2029, with invalid UTF-8 replaced by U+FFFD).
func appendString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch c {
			case '"', '\\':
				buf = append(buf, '\\', c)
			case '\b':
				buf = append(buf, '\\', 'b')
			case '\f':
				buf = append(buf, '\\', 'f')
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			buf = append(buf, s[start:i]...)
			buf = append(buf, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

// appendResponseStart appends the start of a response up to the member name: `{"jsonrpc":
// "2.0","id":<id>,"result":` or `…,"error":`.
func appendResponseStart(buf, id []byte, isError bool) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = append(buf, id...)
	if isError {
		return append(buf, `,"error":`...)
	}
	return append(buf, `,"result":`...)
}

// appendErrorResponse appends a complete error response.
func appendErrorResponse(buf, id []byte, e *Error) []byte {
	buf = appendResponseStart(buf, id, true)
	buf = appendError(buf, e)
	return append(buf, '}')
}

// notificationStart is the start of every subscription notification, up to the id.
const notificationStart = `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"`
