package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHTTP checks the HTTP layer around JSON-RPC: methods, content types, body limits,
// the health check and response headers. BodyLimit is 1024 bytes here.
func TestHTTP(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.BodyLimit = 1024
	ts := startServer(t, cfg)
	call := `{"jsonrpc":"2.0","id":1,"method":"test_nil"}`
	result := `{"jsonrpc":"2.0","id":1,"result":null}`
	// padded is a valid call of exactly n bytes.
	padded := func(n int) string {
		return call[:len(call)-1] + `,"pad":"` + strings.Repeat("p", n-len(call)-9) + `"}`
	}
	tests := []struct {
		name        string
		method      string
		path        string // appended to "/"
		contentType string
		body        string
		chunked     bool // send the body without Content-Length
		wantStatus  int
		wantBody    string
		wantHeader  map[string]string
	}{
		{name: "health", method: "GET", wantStatus: 200, wantBody: ""},
		{name: "health with query", method: "GET", path: "?x=1", wantStatus: 200, wantBody: ""},
		{name: "put", method: "PUT", contentType: "application/json", body: call, wantStatus: 405, wantBody: "method not allowed\n", wantHeader: map[string]string{"Allow": "GET, POST"}},
		{name: "delete", method: "DELETE", wantStatus: 405, wantBody: "method not allowed\n"},
		{name: "options", method: "OPTIONS", wantStatus: 405, wantBody: "method not allowed\n"},
		{name: "no content type", method: "POST", body: call, wantStatus: 415, wantBody: "invalid content type, only application/json is supported\n"},
		{name: "text/plain", method: "POST", contentType: "text/plain", body: call, wantStatus: 415, wantBody: "invalid content type, only application/json is supported\n"},
		{name: "malformed content type", method: "POST", contentType: "application/json;;", body: call, wantStatus: 415, wantBody: "invalid content type, only application/json is supported\n"},
		{name: "json with charset", method: "POST", contentType: "application/json; charset=utf-8", body: call, wantStatus: 200, wantBody: result},
		{name: "json-rpc", method: "POST", contentType: "application/json-rpc", body: call, wantStatus: 200, wantBody: result},
		{name: "jsonrequest", method: "POST", contentType: "application/jsonrequest", body: call, wantStatus: 200, wantBody: result},
		{name: "upper case type", method: "POST", contentType: "Application/JSON", body: call, wantStatus: 200, wantBody: result},
		{
			name: "response headers", method: "POST", contentType: "application/json", body: call, wantStatus: 200, wantBody: result,
			wantHeader: map[string]string{"Content-Type": "application/json", "Content-Length": "38"},
		},
		{name: "body at limit", method: "POST", contentType: "application/json", body: padded(1024), wantStatus: 200, wantBody: result},
		{name: "body over limit", method: "POST", contentType: "application/json", body: padded(1025), wantStatus: 413, wantBody: "content length too large (1025>1024)\n"},
		{name: "chunked at limit", method: "POST", contentType: "application/json", body: padded(1024), chunked: true, wantStatus: 200, wantBody: result},
		{name: "chunked over limit", method: "POST", contentType: "application/json", body: padded(1025), chunked: true, wantStatus: 413, wantBody: "content length too large (>1024)\n"},
		{name: "empty body", method: "POST", contentType: "application/json", body: "", wantStatus: 200, wantBody: ""},
		{name: "whitespace body", method: "POST", contentType: "application/json", body: " \n\t", wantStatus: 200, wantBody: ""},
		{name: "path is ignored", method: "POST", path: "any/path", contentType: "application/json", body: call, wantStatus: 200, wantBody: result},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var body io.Reader = strings.NewReader(tt.body)
			if tt.chunked {
				body = io.MultiReader(body) // hides the length: sent chunked
			}
			req, err := http.NewRequest(tt.method, ts.url+tt.path, body)
			if err != nil {
				t.Fatal(err)
			}
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status = %d, want %d", resp.StatusCode, tt.wantStatus)
			}
			if string(got) != tt.wantBody {
				t.Errorf("body = %q, want %q", got, tt.wantBody)
			}
			for k, v := range tt.wantHeader {
				if g := resp.Header.Get(k); g != v {
					t.Errorf("header %s = %q, want %q", k, g, v)
				}
			}
		})
	}
}

// TestHTTPMounted checks ServeHTTP under an http.Server the Server does not run: the
// deadline then follows that server's WriteTimeout.
func TestHTTPMounted(t *testing.T) {
	t.Parallel()
	svc := newTestService()
	defer svc.unblock()
	cfg := testConfig()
	cfg.RequestTimeout = -1 // only the WriteTimeout bounds the call
	srv := newServer(cfg, svc.service(), sequentialIDs())
	hs := httptest.NewUnstartedServer(srv)
	hs.Config.WriteTimeout = 300 * time.Millisecond // the call gets 200 ms
	hs.Start()
	defer hs.Close()
	status, got := post(t, hs.URL, `{"jsonrpc":"2.0","id":1,"method":"test_block"}`)
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"request timed out"}}`
	if status != 200 || got != want {
		t.Errorf("got %d %s, want 200 %s", status, got, want)
	}
}

// discardWriter is a reusable http.ResponseWriter for benchmarks.
type discardWriter struct {
	h    http.Header
	n    int
	code int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(b []byte) (int, error) { w.n += len(b); return len(b), nil }
func (w *discardWriter) WriteHeader(code int)        { w.code = code }

// resettableBody is a request body that can be rewound between benchmark iterations.
type resettableBody struct{ strings.Reader }

func (*resettableBody) Close() error { return nil }

// blockJSON stands in for the pre-encoded latest block (about 1.7 KB, like an empty block).
var blockJSON = json.RawMessage(`{"baseFeePerGas":"0x7","blobGasUsed":"0x0","difficulty":"0x0","excessBlobGas":"0x0","extraData":"0x","gasLimit":"0x1c9c380","gasUsed":"0x0","hash":"0x` + strings.Repeat("ab", 32) + `","logsBloom":"0x` + strings.Repeat("00", 256) + `","miner":"0x` + strings.Repeat("00", 20) + `","mixHash":"0x` + strings.Repeat("00", 32) + `","nonce":"0x0000000000000000","number":"0x2a","parentBeaconBlockRoot":"0x` + strings.Repeat("00", 32) + `","parentHash":"0x` + strings.Repeat("cd", 32) + `","receiptsRoot":"0x` + strings.Repeat("56", 32) + `","requestsHash":"0x` + strings.Repeat("e3", 32) + `","sha3Uncles":"0x` + strings.Repeat("1d", 32) + `","size":"0x271","stateRoot":"0x` + strings.Repeat("12", 32) + `","timestamp":"0x6650d6a2","transactions":[],"transactionsRoot":"0x` + strings.Repeat("56", 32) + `","uncles":[],"withdrawals":[],"withdrawalsRoot":"0x` + strings.Repeat("56", 32) + `"}`)

// benchService answers eth_getBlockByNumber with the pre-encoded block, as the API does.
func benchService() Service {
	return Service{Methods: map[string]Method{
		"eth_getBlockByNumber": func(ctx context.Context, p Params) (any, error) {
			if p.Len() != 2 || string(p.At(0)) != `"latest"` {
				return nil, InvalidParams("want latest")
			}
			return blockJSON, nil
		},
	}}
}

const benchRequest = `{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["latest",false]}`

// BenchmarkServeHTTP measures ServeHTTP for one call with a pre-encoded result, without
// the network: what the server adds to net/http.
func BenchmarkServeHTTP(b *testing.B) {
	for _, bc := range []struct{ name, body string }{
		{"call=single", benchRequest},
		{"call=batch4", "[" + strings.Repeat(benchRequest+",", 3) + benchRequest + "]"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			srv := NewServer(Config{}, benchService())
			body := &resettableBody{}
			r := httptest.NewRequest("POST", "/", body)
			r.Header.Set("Content-Type", "application/json")
			r.ContentLength = int64(len(bc.body))
			w := &discardWriter{h: make(http.Header)}
			b.ReportAllocs()
			for b.Loop() {
				body.Reset(bc.body)
				w.n = 0
				clear(w.h)
				srv.ServeHTTP(w, r)
				if w.n < len(blockJSON) {
					b.Fatalf("short response: %d bytes", w.n)
				}
			}
		})
	}
}

// BenchmarkHTTPLoopback measures full round trips over loopback: against a net/http
// handler that writes the same body without JSON-RPC (the floor of net/http), against the
// Server mounted in net/http (ServeHTTP) and against Server.Serve (the fast path). The
// clients are net/http's and a minimal one that writes a prepared request and reads the
// response by its Content-Length, which leaves most of the time to the server.
func BenchmarkHTTPLoopback(b *testing.B) {
	resp := []byte(`{"jsonrpc":"2.0","id":1,"result":` + string(blockJSON) + `}`)
	constant := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(resp)
	})
	servers := []struct {
		name  string
		start func(b *testing.B) string // returns the URL
	}{
		{"constant", func(b *testing.B) string { return startHTTPTest(b, constant) }},
		{"rpc-nethttp", func(b *testing.B) string { return startHTTPTest(b, NewServer(Config{}, benchService())) }},
		{"rpc-fast", startServe},
	}
	for _, sc := range servers {
		b.Run("server="+sc.name+"/client=go", func(b *testing.B) {
			url := sc.start(b)
			client := &http.Client{Transport: &http.Transport{}}
			defer client.CloseIdleConnections()
			b.ReportAllocs()
			for b.Loop() {
				r, err := client.Post(url, "application/json", strings.NewReader(benchRequest))
				if err != nil {
					b.Fatal(err)
				}
				n, _ := io.Copy(io.Discard, r.Body)
				r.Body.Close()
				if n != int64(len(resp)) {
					b.Fatalf("got %d bytes, want %d", n, len(resp))
				}
			}
		})
		b.Run("server="+sc.name+"/client=raw", func(b *testing.B) {
			c := dialRaw(b, sc.start(b))
			req := []byte(rawRequest(benchRequest, ""))
			buf := make([]byte, 64<<10)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.nc.Write(req); err != nil {
					b.Fatal(err)
				}
				if n := readRawBody(b, c.nc, buf); n != len(resp) {
					b.Fatalf("got %d bytes, want %d", n, len(resp))
				}
			}
		})
	}
}

// startHTTPTest serves h with httptest until the benchmark ends and returns its URL.
func startHTTPTest(b *testing.B, h http.Handler) string {
	hs := httptest.NewServer(h)
	b.Cleanup(hs.Close)
	return hs.URL
}

// startServe runs Server.Serve with the benchmark service until the benchmark ends and
// returns its URL.
func startServe(b *testing.B) string {
	srv := NewServer(Config{}, benchService())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Shutdown(context.Background()) })
	return "http://" + ln.Addr().String()
}

// readRawBody reads one response from nc into buf, without allocating, and returns its
// body length. The response must fit buf and arrive in order (no pipelining).
func readRawBody(b *testing.B, nc net.Conn, buf []byte) int {
	n := 0
	for {
		m, err := nc.Read(buf[n:])
		if err != nil {
			b.Fatal(err)
		}
		n += m
		head := bytes.Index(buf[:n], []byte("\r\n\r\n"))
		if head < 0 {
			continue
		}
		i := bytes.Index(buf[:head], []byte("Content-Length: "))
		if i < 0 {
			b.Fatalf("no Content-Length in %q", buf[:head])
		}
		j := bytes.IndexByte(buf[i:head+2], '\r')
		size, _ := strconv.Atoi(string(buf[i+16 : i+j]))
		if n >= head+4+size {
			return size
		}
	}
}

// FuzzServeJSON runs arbitrary bodies through the whole exchange (parse, dispatch, encode,
// batch limits) as an HTTP request: nothing may panic, and the answer is valid JSON with
// one entry per answered message: one object, an array with an entry for each message of
// a batch that is not a notification, or nothing at all.
func FuzzServeJSON(f *testing.F) {
	addScriptSeeds(f)
	svc := newTestService().service()
	for _, m := range []string{"test_stuck", "test_block", "test_notify"} {
		delete(svc.Methods, m) // they wait for the test or the timeout
	}
	srv := newServer(testConfig(), svc, sequentialIDs())
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := &recorder{srv: srv}
		srv.serveJSON(context.Background(), body, rec, nil)
		if rec.n > 1 {
			t.Fatalf("%d responses", rec.n)
		}
		if rec.n == 1 && !json.Valid(rec.b) {
			t.Fatalf("invalid JSON response %q", rec.b)
		}
		reqs, batch, err := parseBody(body, nil, srv.cfg.BatchItemLimit)
		if err != nil || !batch || len(reqs) == 0 {
			return
		}
		answered := 0
		for i := range reqs {
			if reqs[i].answered() {
				answered++
			}
		}
		var entries []json.RawMessage
		if answered > 0 && (rec.n != 1 || json.Unmarshal(rec.b, &entries) != nil) {
			t.Fatalf("batch of %d answered messages: response %q", answered, rec.b)
		}
		if len(entries) != answered {
			t.Fatalf("%d entries for %d answered messages: %s", len(entries), answered, rec.b)
		}
	})
}

// recorder is a responder that keeps the last response.
type recorder struct {
	srv *Server
	n   int
	b   []byte
}

func (r *recorder) respond(out *buffer, late bool) {
	r.n++
	r.b = append(r.b[:0], out.b...)
	r.srv.putBuf(out)
}

// BenchmarkDecide measures the checks every request passes (virtual host, method, length,
// content type), for the heads of common clients.
func BenchmarkDecide(b *testing.B) {
	srv := NewServer(Config{}, Service{})
	for _, host := range []string{"127.0.0.1:8545", "localhost:8545"} {
		b.Run("host="+host, func(b *testing.B) {
			h := httpHead{method: http.MethodPost, host: host, contentType: contentType, contentLength: 84}
			b.ReportAllocs()
			for b.Loop() {
				if srv.decide(&h) != serveRPC || srv.exp.corsOrigin(h.origin) != "" {
					b.Fatal("refused")
				}
			}
		})
	}
}
