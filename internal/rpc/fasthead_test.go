package rpc

import (
	"bytes"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// headCases are request heads with what parseHead makes of them. Whether a parsed head is
// then served on the fast path is decide's call (TestFastServes).
var headCases = []struct {
	name string
	head string
	want headResult
	body int  // Content-Length, when headDone
	cls  bool // Connection: close, when headDone
}{
	{"wrk", "POST / HTTP/1.1\r\nHost: 127.0.0.1:8545\r\nContent-Type: application/json\r\nContent-Length: 84\r\n\r\n", headDone, 84, false},
	{"go client", "POST / HTTP/1.1\r\nHost: localhost:8545\r\nUser-Agent: Go-http-client/1.1\r\nContent-Length: 52\r\nAccept: application/json\r\nContent-Type: application/json\r\nAccept-Encoding: gzip\r\n\r\n", headDone, 52, false},
	{"fetch", "POST /rpc?x=1 HTTP/1.1\r\nhost: localhost\r\nconnection: keep-alive\r\ncontent-type: application/json\r\naccept: */*\r\naccept-language: *\r\nsec-fetch-mode: cors\r\nuser-agent: node\r\naccept-encoding: gzip, deflate\r\ncontent-length: 60\r\n\r\n", headDone, 60, false},
	{"python", "POST / HTTP/1.1\r\nHost: localhost:8545\r\nUser-Agent: web3.py/7 (requests)\r\nAccept-Encoding: gzip, deflate\r\nAccept: */*\r\nConnection: keep-alive\r\nContent-Type: application/json\r\nContent-Length: 70\r\n\r\n", headDone, 70, false},
	{"close", "POST / HTTP/1.1\r\nHost: x\r\nConnection: Keep-Alive , close\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n", headDone, 2, true},
	{"white space", "POST / HTTP/1.1\r\nHost:x\r\nContent-Type: \t application/json \t\r\nContent-Length:  7 \r\n\r\n", headDone, 7, false},
	{"media type params", "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: Application/JSON-RPC; charset=utf-8\r\nContent-Length: 0\r\n\r\n", headDone, 0, false},
	{"leading zeros", "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 0010\r\n\r\n", headDone, 10, false},
	{"obs-text value", "POST / HTTP/1.1\r\nHost: x\r\nX-Name: caf\xc3\xa9\r\nContent-Type: application/json\r\nContent-Length: 1\r\n\r\n", headDone, 1, false},
	{"at limit", "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1024\r\n\r\n", headDone, 1024, false},

	{"empty", "", headMore, 0, false},
	{"partial line", "POST / HTT", headMore, 0, false},
	{"partial head", "POST / HTTP/1.1\r\nHost: x\r\nContent-Ty", headMore, 0, false},
	{"no empty line", "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1\r\n", headMore, 0, false},

	{"get", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", headHandOff, 0, false},
	{"get, partial", "GE", headHandOff, 0, false},
	{"lower-case method", "post / HTTP/1.1\r\n", headHandOff, 0, false},
	{"http/1.0", "POST / HTTP/1.0\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1\r\n\r\n", headHandOff, 0, false},
	{"absolute target", "POST http://x/ HTTP/1.1\r\n", headHandOff, 0, false},
	{"bad escape", "POST /%zz HTTP/1.1\r\n", headHandOff, 0, false},
	{"two spaces", "POST /  HTTP/1.1\r\n", headHandOff, 0, false},
	{"bare LF", "POST / HTTP/1.1\nHost: x\n", headHandOff, 0, false},
	{"no host", "POST / HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 1\r\n\r\n", headHandOff, 0, false},
	{"two hosts", "POST / HTTP/1.1\r\nHost: x\r\nhost: x\r\nContent-Type: application/json\r\nContent-Length: 1\r\n\r\n", headHandOff, 0, false},
	{"bad host", "POST / HTTP/1.1\r\nHost: x/y\r\nContent-Type: application/json\r\nContent-Length: 1\r\n\r\n", headHandOff, 0, false},
	{"no length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\r\n", headHandOff, 0, false},
	{"two lengths", "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n", headHandOff, 0, false},
	{"signed length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: +1\r\n\r\n", headHandOff, 0, false},
	{"over limit", "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1025\r\n\r\n", headDone, 1025, false},
	{"no type", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\n", headDone, 1, false},
	{"text/plain", "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1\r\n\r\n", headDone, 1, false},
	{"origin", "POST / HTTP/1.1\r\nHost: localhost\r\nOrigin: http://localhost:3000\r\nContent-Type: application/json\r\nContent-Length: 1\r\n\r\n", headDone, 1, false},
	{"two types", "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Type: application/json\r\nContent-Length: 1\r\n\r\n", headHandOff, 0, false},
	{"two origins", "POST / HTTP/1.1\r\nHost: x\r\nOrigin: a\r\nOrigin: a\r\nContent-Type: application/json\r\nContent-Length: 1\r\n\r\n", headHandOff, 0, false},
	{"chunked", "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n", headHandOff, 0, false},
	{"expect", "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n", headHandOff, 0, false},
	{"upgrade", "POST / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: h2c\r\nContent-Type: application/json\r\nContent-Length: 1\r\n\r\n", headHandOff, 0, false},
	{"folded", "POST / HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n 2\r\nContent-Type: application/json\r\nContent-Length: 1\r\n\r\n", headHandOff, 0, false},
	{"space before colon", "POST / HTTP/1.1\r\nHost : x\r\n", headHandOff, 0, false},
	{"control in value", "POST / HTTP/1.1\r\nHost: x\r\nX-A: a\x7fb\r\n", headHandOff, 0, false},
	{"too long", "POST / HTTP/1.1\r\nX-A: " + strings.Repeat("a", maxFastHead), headHandOff, 0, false},
}

func TestParseHead(t *testing.T) {
	t.Parallel()
	for _, tt := range headCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := tt.head
			if tt.want == headDone {
				in += "body" // the start of the body is not part of the head
			}
			req, res := parseHead([]byte(in))
			if res != tt.want {
				t.Fatalf("result %d, want %d", res, tt.want)
			}
			if res == headDone && (req.head != len(tt.head) || req.body != tt.body || req.close != tt.cls) {
				t.Errorf("got %+v, want head %d, body %d, close %v", req, len(tt.head), tt.body, tt.cls)
			}
		})
	}
}

// FuzzParseHead checks parseHead against net/http's server: a head parseHead accepts must
// reach the handler as a POST with the same Content-Length and Connection: close, the
// same head for the HTTP flow (host, content type, origin: so decide rules the same on
// both paths) and nothing that would make net/http treat it differently
// (Transfer-Encoding, Expect, Upgrade). An incomplete head must not be rejected by
// net/http (which would mean parseHead accepted a line it refuses).
func FuzzParseHead(f *testing.F) {
	for _, tt := range headCases {
		f.Add([]byte(tt.head))
	}
	o := newHTTPOracle(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		req, res := parseHead(in)
		switch res {
		case headHandOff:
			return
		case headMore:
			if got, wrote := o.serve(t, in); got != nil || wrote {
				t.Fatalf("parseHead wants more of %q; net/http: request %v, wrote a response %v", in, got != nil, wrote)
			}
			return
		}
		if req.body > 1<<16 {
			return // not worth a body of that size; decide refuses it on both paths alike
		}
		msg := append(bytes.Clone(in[:req.head]), bytes.Repeat([]byte{'x'}, req.body)...)
		r, _ := o.serve(t, msg)
		switch {
		case r == nil:
			t.Fatalf("parseHead accepts %q, net/http refuses it", in[:req.head])
		case r.Method != http.MethodPost || r.ProtoMajor != 1 || r.ProtoMinor != 1:
			t.Fatalf("%q: net/http reads %s %s", in[:req.head], r.Method, r.Proto)
		case r.ContentLength != int64(req.body) || r.Close != req.close:
			t.Fatalf("%q: Content-Length %d, close %v; net/http: %d, %v", in[:req.head], req.body, req.close, r.ContentLength, r.Close)
		case len(r.TransferEncoding) > 0 || len(r.Header["Expect"]) > 0 || len(r.Header["Upgrade"]) > 0:
			t.Fatalf("%q: net/http reads header %v", in[:req.head], r.Header)
		}
		if fast, slow := req.httpHead(string(req.host)), o.srv.headOf(r); fast != slow {
			t.Fatalf("%q: fast path reads %+v, net/http %+v", in[:req.head], fast, slow)
		}
	})
}

// httpOracle runs net/http's server on in-memory connections.
type httpOracle struct {
	l    *handoffListener
	reqs chan *http.Request
	srv  *Server // for headOf
}

func newHTTPOracle(tb testing.TB) *httpOracle {
	o := &httpOracle{l: newHandoffListener(memAddr{}), reqs: make(chan *http.Request, 1), srv: NewServer(Config{}, Service{})}
	hs := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			o.reqs <- r.Clone(r.Context())
		}),
		ConnState: func(nc net.Conn, st http.ConnState) {
			if st == http.StateClosed {
				close(nc.(*memConn).done)
			}
		},
		ErrorLog: log.New(io.Discard, "", 0),
	}
	go hs.Serve(o.l)
	tb.Cleanup(func() { hs.Close() })
	return o
}

// serve feeds in to net/http on one connection and returns the first request it read,
// if any, and whether it wrote anything back. It waits until net/http has closed the
// connection or wants to read past in: then it has parsed everything in holds.
func (o *httpOracle) serve(t *testing.T, in []byte) (*http.Request, bool) {
	c := &memConn{r: bytes.NewReader(in), starved: make(chan struct{}), closed: make(chan struct{}), done: make(chan struct{})}
	if !o.l.handOver(c) {
		t.Fatal("oracle closed")
	}
	select {
	case <-c.starved:
	case <-c.closed:
	case <-time.After(10 * time.Second):
		t.Fatal("net/http neither closed the connection nor read on")
	}
	c.mu.Lock()
	wrote := c.wrote > 0
	c.mu.Unlock()
	c.Close()
	<-c.done // the handler, if called, has returned
	var r *http.Request
	select {
	case r = <-o.reqs:
	default:
	}
	// A request's handler writes nothing; the response net/http then sends does not
	// count.
	return r, r == nil && wrote
}

// memConn is a net.Conn that reads a fixed input, then waits until it is closed (as a
// client waiting for a response would) and reads io.EOF.
type memConn struct {
	r       *bytes.Reader
	starved chan struct{} // closed when a read finds the input exhausted
	closed  chan struct{}
	done    chan struct{} // closed when net/http is done with the connection
	once    [2]sync.Once
	mu      sync.Mutex
	wrote   int // guarded by mu
}

func (c *memConn) Read(p []byte) (int, error) {
	if c.r.Len() > 0 {
		return c.r.Read(p)
	}
	c.once[0].Do(func() { close(c.starved) })
	<-c.closed
	return 0, io.EOF
}

func (c *memConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wrote += len(p)
	return len(p), nil
}

func (c *memConn) Close() error {
	c.once[1].Do(func() { close(c.closed) })
	return nil
}

func (c *memConn) LocalAddr() net.Addr              { return memAddr{} }
func (c *memConn) RemoteAddr() net.Addr             { return memAddr{} }
func (c *memConn) SetDeadline(time.Time) error      { return nil }
func (c *memConn) SetReadDeadline(time.Time) error  { return nil }
func (c *memConn) SetWriteDeadline(time.Time) error { return nil }

type memAddr struct{}

func (memAddr) Network() string { return "mem" }
func (memAddr) String() string  { return "mem" }

// BenchmarkParseHead measures parsing the head wrk sends.
func BenchmarkParseHead(b *testing.B) {
	head := []byte(headCases[0].head)
	b.ReportAllocs()
	for b.Loop() {
		if _, res := parseHead(head); res != headDone {
			b.Fatal(res)
		}
	}
}
