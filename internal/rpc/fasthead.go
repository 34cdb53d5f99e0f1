package rpc

import (
	"bytes"
	"strconv"
)

// This file holds the HTTP/1.1 heads of the fast path: it parses the head (request line
// and header fields) of the requests the fast path serves and writes the head of its
// responses. The parser accepts a strict subset of what net/http accepts and reads it the
// same way, so a request it accepts gets the same answer on either path; everything else
// is handed to net/http untouched. FuzzParseHead checks the subset against net/http's
// server, TestFastPathSameBytes the responses against net/http's.
//
// Accepted: the request line "POST <target> HTTP/1.1" with an origin-form target; lines
// ending in CRLF; header names of token characters; values of visible ASCII, space, tab
// and obs-text (0x80-0xff); exactly one Host (valid host characters) and one
// Content-Length (decimal digits), at most one Content-Type and one Origin; Connection
// values made of "close" and "keep-alive" tokens. Refused: anything else, in particular
// Transfer-Encoding, Expect, Upgrade, folded header lines and heads over maxFastHead
// bytes. The parser only reads: whether the request is then served (its host, content
// type and length allowed) is the HTTP flow's decision (http.go, decide).

// maxFastHead is the longest request head the fast path reads; a longer one is handed to
// net/http, whose limit (http.DefaultMaxHeaderBytes) is much larger.
const maxFastHead = 8 << 10

// fastRequest is the framing of one request the fast path reads, and the header values
// the HTTP flow decides on. The byte slices alias the connection's buffer.
type fastRequest struct {
	head        int    // bytes of the request line and header fields, the empty line included
	body        int    // Content-Length
	close       bool   // the client sent "Connection: close"
	host        []byte // Host value
	contentType []byte // Content-Type value; nil when absent
	origin      []byte // Origin value; nil when absent
}

// httpHead returns the head the HTTP flow decides on; host is req.host as a string.
func (req *fastRequest) httpHead(host string) httpHead {
	h := httpHead{method: "POST", host: host, contentType: contentType, contentLength: int64(req.body)}
	if string(req.contentType) != contentType { // no allocation in the common case
		h.contentType = string(req.contentType)
	}
	if req.origin != nil {
		h.origin, h.hasOrigin = string(req.origin), true
	}
	return h
}

// headResult is the outcome of parseHead.
type headResult int

const (
	headMore    headResult = iota // the head is incomplete so far: read more
	headDone                      // a complete head the fast path serves
	headHandOff                   // not for the fast path: hand the connection to net/http
)

// fastPrefix starts every request line the fast path serves.
const fastPrefix = "POST /"

// parseHead parses the request head at the start of b.
func parseHead(b []byte) (fastRequest, headResult) {
	var req fastRequest
	if n := min(len(b), len(fastPrefix)); string(b[:n]) != fastPrefix[:n] {
		return req, headHandOff // not a POST: decided before the line is complete
	}
	line, i, res := cutLine(b, 0)
	if res != headDone {
		return req, res
	}
	if !validRequestLine(line) {
		return req, headHandOff
	}
	var h headerSeen
	for {
		line, i, res = cutLine(b, i)
		if res != headDone {
			return req, res
		}
		if len(line) == 0 {
			break
		}
		// A line starting with white space is a folded continuation (obs-fold), or a
		// malformed first field.
		if line[0] == ' ' || line[0] == '\t' || !h.field(line, &req) {
			return req, headHandOff
		}
	}
	if h.host != 1 || !h.contentLength {
		return req, headHandOff
	}
	req.head = i
	return req, headDone
}

// cutLine returns the line starting at b[i] without its CRLF, and the index after it. A
// line ending in a bare LF is handed off; an unterminated one needs more input, unless
// the head is already too long.
func cutLine(b []byte, i int) (line []byte, next int, res headResult) {
	j := bytes.IndexByte(b[i:], '\n')
	switch {
	case j < 0 && len(b) >= maxFastHead:
		return nil, 0, headHandOff
	case j < 0:
		return nil, 0, headMore
	case j == 0 || b[i+j-1] != '\r' || i+j >= maxFastHead:
		return nil, 0, headHandOff
	}
	return b[i : i+j-1], i + j + 1, headDone
}

// validRequestLine reports whether line is "POST <target> HTTP/1.1" with a target that
// net/http's url.ParseRequestURI accepts as a path: "/" followed by unreserved and
// sub-delimiter characters, ":", "@", "/", "?" and well-formed percent escapes.
func validRequestLine(line []byte) bool {
	const proto = " HTTP/1.1"
	if len(line) < len(fastPrefix)+len(proto) || string(line[len(line)-len(proto):]) != proto {
		return false
	}
	target := line[len(fastPrefix)-1 : len(line)-len(proto)]
	for i := 0; i < len(target); i++ {
		switch c := target[i]; {
		case c == '%':
			if i+2 >= len(target) || !isHex(target[i+1]) || !isHex(target[i+2]) {
				return false
			}
			i += 2
		case !targetByte[c]:
			return false
		}
	}
	return true
}

// headerSeen records the header fields that decide the framing of a request.
type headerSeen struct {
	host          int  // Host fields
	contentLength bool // one valid Content-Length seen
	contentType   bool // a Content-Type seen
	origin        bool // an Origin seen
}

// field checks one header field line and records it in h and req. It reports false for a
// field the fast path does not serve.
func (h *headerSeen) field(line []byte, req *fastRequest) bool {
	colon := bytes.IndexByte(line, ':')
	if colon <= 0 {
		return false
	}
	name, value := line[:colon], trimOWS(line[colon+1:])
	for _, c := range name {
		if !tokenByte[c] {
			return false
		}
	}
	for _, c := range value {
		if (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	switch {
	case equalFoldASCII(name, "host"):
		h.host++
		for _, c := range value {
			if !hostByte[c] {
				return false
			}
		}
		req.host = value
	case equalFoldASCII(name, "content-length"):
		n, ok := parseContentLength(value)
		if h.contentLength || !ok {
			return false
		}
		h.contentLength, req.body = true, n
	case equalFoldASCII(name, "content-type"):
		if h.contentType {
			return false
		}
		h.contentType, req.contentType = true, value
	case equalFoldASCII(name, "origin"):
		if h.origin {
			return false
		}
		h.origin, req.origin = true, value
	case equalFoldASCII(name, "connection"):
		return connectionTokens(value, req)
	case equalFoldASCII(name, "transfer-encoding"), equalFoldASCII(name, "expect"), equalFoldASCII(name, "upgrade"):
		return false
	}
	return true
}

// parseContentLength parses a Content-Length value of 1 to 18 decimal digits.
func parseContentLength(v []byte) (int, bool) {
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	n := 0
	for _, c := range v {
		if !isDigit(c) {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// connectionTokens reads a Connection value: "close" marks req, "keep-alive" and empty
// elements are ignored; any other token (such as "upgrade") is not for the fast path.
func connectionTokens(v []byte, req *fastRequest) bool {
	for len(v) > 0 {
		tok, rest, _ := bytes.Cut(v, []byte{','})
		v = rest
		switch tok = trimOWS(tok); {
		case len(tok) == 0, equalFoldASCII(tok, "keep-alive"):
		case equalFoldASCII(tok, "close"):
			req.close = true
		default:
			return false
		}
	}
	return true
}

// trimOWS removes leading and trailing spaces and tabs, as net/textproto does.
func trimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// equalFoldASCII reports whether b equals lower, a lower-case string of letters and "-",
// ignoring case. b holds token characters only, so folding with 0x20 cannot confuse a
// non-letter with a letter.
func equalFoldASCII(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := range len(b) {
		if b[i]|0x20 != lower[i] {
			return false
		}
	}
	return true
}

// Byte classes, read-only.
var (
	// tokenByte marks RFC 9110 token characters: header names.
	tokenByte = byteSet("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")

	// hostByte marks the characters net/http allows in a Host value (httpguts.ValidHostHeader).
	hostByte = byteSet("!$%&'()*+,-.0123456789:;=ABCDEFGHIJKLMNOPQRSTUVWXYZ[]_abcdefghijklmnopqrstuvwxyz~")

	// targetByte marks the characters the fast path allows in a request target, "%"
	// aside: RFC 3986 pchar, "/" and "?".
	targetByte = byteSet("!$&'()*+,-./0123456789:;=?@ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~")
)

// byteSet returns a table marking the bytes of s.
func byteSet(s string) (t [256]bool) {
	for i := range len(s) {
		t[s[i]] = true
	}
	return t
}

// fastResponseHead appends the status line and header fields of a 200 response with a
// body of n bytes, byte for byte as net/http writes them for ServeHTTP's responses. The
// field order follows net/http: fields set by the handler sorted by name, then Date and
// Content-Length when net/http adds them, then its own Connection field. date is the
// formatted Date value; late is a response sent by the timeout timer (see writeHTTP);
// close asks the client to close the connection.
func fastResponseHead(b []byte, n int, date []byte, late, close bool) []byte {
	b = append(b, "HTTP/1.1 200 OK\r\n"...)
	switch {
	case late:
		b = append(b, "Connection: close\r\nContent-Length: "...)
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, "\r\nContent-Type: application/json\r\nDate: "...)
		b = append(b, date...)
		return append(b, "\r\n\r\n"...)
	case n > httpChunkingThreshold:
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, "\r\nContent-Type: application/json\r\nDate: "...)
		b = append(b, date...)
	default:
		b = append(b, "Content-Type: application/json\r\nDate: "...)
		b = append(b, date...)
		b = append(b, "\r\nContent-Length: "...)
		b = strconv.AppendInt(b, int64(n), 10)
	}
	if close {
		b = append(b, "\r\nConnection: close"...)
	}
	return append(b, "\r\n\r\n"...)
}
