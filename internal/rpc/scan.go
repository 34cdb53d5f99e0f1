package rpc

import (
	"encoding/binary"
	"errors"
)

// This file is a validating JSON scanner. It accepts exactly what encoding/json.Valid
// accepts (RFC 8259 syntax, nesting up to maxJSONDepth, no UTF-8 check) and reports where
// each value ends, so the envelope can be picked apart in one pass without reflection.
// Every function takes the input and the index of the first byte of a value (no leading
// whitespace) and returns the index just past it.

// errSyntax reports input that is not valid JSON.
var errSyntax = errors.New("invalid json")

// isSpace reports whether c is JSON whitespace.
func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t'
}

// skipSpace returns the index of the first non-whitespace byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// trimSpace returns b without leading and trailing JSON whitespace.
func trimSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && isSpace(b[i]) {
		i++
	}
	for j > i && isSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}

// scanValue returns the end of the value starting at b[i]. depth is the nesting depth of
// the value's container.
func scanValue(b []byte, i, depth int) (int, error) {
	if i >= len(b) {
		return 0, errSyntax
	}
	switch c := b[i]; {
	case c == '"':
		end, _, err := scanString(b, i)
		return end, err
	case c == '{':
		return scanObject(b, i, depth+1)
	case c == '[':
		return scanArray(b, i, depth+1)
	case c == 't':
		return scanLiteral(b, i, "true")
	case c == 'f':
		return scanLiteral(b, i, "false")
	case c == 'n':
		return scanLiteral(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return scanNumber(b, i)
	}
	return 0, errSyntax
}

// stringStop marks the bytes that end the fast loop of scanString: the closing quote, a
// backslash and the control characters, which JSON forbids unescaped. It is read-only.
var stringStop = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// scanString returns the end of the string starting at b[i] == '"' and whether it holds
// escape sequences.
func scanString(b []byte, i int) (end int, escaped bool, err error) {
	i++
	for {
		i = skipPlain(b, i)
		for i < len(b) && !stringStop[b[i]] {
			i++
		}
		if i >= len(b) {
			return 0, false, errSyntax
		}
		switch b[i] {
		case '"':
			return i + 1, escaped, nil
		case '\\':
			escaped = true
			if i+1 >= len(b) {
				return 0, false, errSyntax
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+5 >= len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return 0, false, errSyntax
				}
				i += 6
			default:
				return 0, false, errSyntax
			}
		default:
			return 0, false, errSyntax // control character
		}
	}
}

// skipPlain skips 8 bytes at a time while none of them is a stringStop byte, so long
// strings (hex data) are scanned at several GB/s. The byte loop in scanString finishes.
func skipPlain(b []byte, i int) int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	for ; i+8 <= len(b); i += 8 {
		v := binary.LittleEndian.Uint64(b[i:])
		q := v ^ ('"' * ones)   // zero byte where b is '"'
		bs := v ^ ('\\' * ones) // zero byte where b is '\\'
		// A byte is flagged when it is below 0x20 or zero in q or bs (exact whether any
		// byte is flagged, which is all that is needed here).
		if ((v-0x20*ones)&^v|(q-ones)&^q|(bs-ones)&^bs)&highs != 0 {
			return i
		}
	}
	return i
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// scanNumber returns the end of the number starting at b[i]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func scanNumber(b []byte, i int) (int, error) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return 0, errSyntax
	case b[i] == '0':
		i++
	case isDigit(b[i]):
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return 0, errSyntax
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return 0, errSyntax
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return 0, errSyntax
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	return i, nil
}

// scanLiteral returns the end of lit (true, false or null) at b[i].
func scanLiteral(b []byte, i int, lit string) (int, error) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, errSyntax
	}
	return i + len(lit), nil
}

// scanArray returns the end of the array starting at b[i] == '['.
func scanArray(b []byte, i, depth int) (int, error) {
	if depth > maxJSONDepth {
		return 0, errSyntax
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for {
		end, err := scanValue(b, i, depth)
		if err != nil {
			return 0, err
		}
		i = skipSpace(b, end)
		if i >= len(b) {
			return 0, errSyntax
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return i + 1, nil
		default:
			return 0, errSyntax
		}
	}
}

// scanObject returns the end of the object starting at b[i] == '{'.
func scanObject(b []byte, i, depth int) (int, error) {
	return scanFields(b, i, depth, nil)
}

// scanFields scans the object starting at b[i] == '{' and, when field is not nil, calls
// it with each key (raw, without quotes) and value (raw, trimmed) in order.
func scanFields(b []byte, i, depth int, field func(key []byte, escaped bool, value []byte)) (int, error) {
	if depth > maxJSONDepth {
		return 0, errSyntax
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, errSyntax
		}
		keyEnd, escaped, err := scanString(b, i)
		if err != nil {
			return 0, err
		}
		key := b[i+1 : keyEnd-1]
		i = skipSpace(b, keyEnd)
		if i >= len(b) || b[i] != ':' {
			return 0, errSyntax
		}
		i = skipSpace(b, i+1)
		end, err := scanValue(b, i, depth)
		if err != nil {
			return 0, err
		}
		if field != nil {
			field(key, escaped, b[i:end])
		}
		i = skipSpace(b, end)
		if i >= len(b) {
			return 0, errSyntax
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return i + 1, nil
		default:
			return 0, errSyntax
		}
	}
}
