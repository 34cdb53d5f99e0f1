package rpc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rawRequest is a JSON-RPC POST request as a minimal client sends it, with extra header
// lines (each ending in CRLF) before the framing fields.
func rawRequest(body, extra string) string {
	return "POST / HTTP/1.1\r\nHost: localhost\r\n" + extra + "Content-Type: application/json\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

// rawConn is a client connection that sends raw bytes and reads raw responses.
type rawConn struct {
	t  testing.TB
	nc net.Conn
	br *bufio.Reader
}

// dialRaw connects to the test server at url; the test's end closes the connection.
func dialRaw(t testing.TB, url string) *rawConn {
	t.Helper()
	nc, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	return &rawConn{t: t, nc: nc, br: bufio.NewReader(nc)}
}

func (c *rawConn) send(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.nc, s); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// response reads one response and returns its head (with the Date value replaced by
// "<date>") and body. Bodies are framed by Content-Length; without it, a final response
// (net/http's 400) runs to the end of the connection.
func (c *rawConn) response() (head, body string) {
	c.t.Helper()
	head, body, err := c.tryResponse()
	if err != nil {
		c.t.Fatalf("read response: %v", err)
	}
	return head, body
}

var dateField = regexp.MustCompile(`(?m)^Date: [^\r]*\r$`)

func (c *rawConn) tryResponse() (head, body string, err error) {
	var b strings.Builder
	n := -1
	for {
		line, err := c.br.ReadString('\n')
		if err != nil {
			return b.String(), "", err
		}
		b.WriteString(line)
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(strings.TrimSpace(v))
		}
		if line == "\r\n" {
			break
		}
	}
	var buf []byte
	switch {
	case n >= 0:
		buf = make([]byte, n)
		_, err = io.ReadFull(c.br, buf)
	case !strings.HasPrefix(b.String(), "HTTP/1.1 1") && !strings.HasPrefix(b.String(), "HTTP/1.1 204"):
		buf, err = io.ReadAll(c.br)
	}
	return dateField.ReplaceAllString(b.String(), "Date: <date>\r"), string(buf), err
}

// expectClosed checks that the server closes the connection within d.
func (c *rawConn) expectClosed(d time.Duration) {
	c.t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(d))
	if b, err := c.br.ReadByte(); err != io.EOF {
		c.t.Fatalf("read after close: %q, %v; want EOF", b, err)
	}
}

// okHead is the head of a small response over either path.
func okHead(n int) string {
	return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: <date>\r\nContent-Length: " + strconv.Itoa(n) + "\r\n\r\n"
}

// TestFastPathSameBytes sends requests to one Server through the fast path (Serve) and
// through net/http (ServeHTTP in an httptest.Server) and compares the raw responses,
// Date values aside.
func TestFastPathSameBytes(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.ResponseLimit = -1
	cfg.ReadTimeout = 300 * time.Millisecond
	ts := startServer(t, cfg)
	mounted := httptest.NewUnstartedServer(ts.srv)
	mounted.Config.ReadTimeout = cfg.ReadTimeout
	mounted.Start()
	t.Cleanup(func() {
		ts.svc.unblock() // Close waits for the late response's handler
		mounted.Close()
	})
	tests := []struct{ name, req string }{
		{"small", rawRequest(`{"jsonrpc":"2.0","id":1,"method":"test_nil"}`, "")},
		{"at chunking threshold", rawRequest(`{"jsonrpc":"2.0","id":1,"method":"test_big","params":[2008]}`, "")},
		{"over chunking threshold", rawRequest(`{"jsonrpc":"2.0","id":1,"method":"test_big","params":[2009]}`, "")},
		{"written with writev", rawRequest(`{"jsonrpc":"2.0","id":1,"method":"test_big","params":[100000]}`, "")},
		{"batch", rawRequest(`[{"jsonrpc":"2.0","id":1,"method":"test_nil"},{"jsonrpc":"2.0","id":2,"method":"test_raw","params":[2]}]`, "")},
		{"empty body", rawRequest("", "")},
		{"notifications only", rawRequest(`[{"jsonrpc":"2.0","method":"test_nil"}]`, "")},
		{"parse error", rawRequest(`{"jsonrpc":`, "")},
		{"client closes", rawRequest(`{"jsonrpc":"2.0","id":1,"method":"test_nil"}`, "Connection: close\r\n")},
		{"client closes, large", rawRequest(`{"jsonrpc":"2.0","id":1,"method":"test_big","params":[3000]}`, "Connection: keep-alive, Close\r\n")},
		{"late response", rawRequest(`{"jsonrpc":"2.0","id":1,"method":"test_stuck"}`, "")},
		{"body cut short", strings.TrimSuffix(rawRequest(`{"jsonrpc":"2.0","id":1,"method":"test_nil"}`, ""), "}")},
		{"charset", strings.Replace(rawRequest(`{"jsonrpc":"2.0","id":1,"method":"test_nil"}`, ""), "application/json", "application/json; charset=utf-8", 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var heads, bodies [2]string
			for i, url := range []string{ts.url, mounted.URL} {
				c := dialRaw(t, url)
				c.send(tt.req)
				heads[i], bodies[i] = c.response()
			}
			if heads[0] != heads[1] || bodies[0] != bodies[1] {
				t.Errorf("fast path:\n%s%.200s\nnet/http:\n%s%.200s", heads[0], bodies[0], heads[1], bodies[1])
			}
		})
	}
	t.Cleanup(func() {
		if n := ts.srv.handoffs.Load(); n != 0 {
			t.Errorf("%d connections handed off", n)
		}
	})
}

// TestFastPathSameRefusals sends requests that the HTTP flow refuses, or serves with
// header fields of its own, to both paths and compares the raw responses: the fast path
// hands them to net/http, so both answer through the same decide and the same writer.
func TestFastPathSameRefusals(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.BodyLimit = 1024
	cfg.CORSOrigins = []string{"http://app.example"}
	ts := startServer(t, cfg)
	mounted := httptest.NewServer(ts.srv)
	t.Cleanup(mounted.Close)
	call := `{"jsonrpc":"2.0","id":1,"method":"test_nil"}`
	tests := []struct{ name, req string }{
		{"host not allowed", strings.Replace(rawRequest(call, ""), "Host: localhost", "Host: evil.example", 1)},
		{"ip literal host", strings.Replace(rawRequest(call, ""), "Host: localhost", "Host: 192.0.2.1:8545", 1)},
		{"text/plain", strings.Replace(rawRequest(call, ""), "application/json", "text/plain", 1)},
		{"no content type", strings.Replace(rawRequest(call, ""), "Content-Type: application/json\r\n", "", 1)},
		{"over body limit", rawRequest(strings.Repeat(" ", 1025), "")},
		{"cors origin", rawRequest(call, "Origin: http://app.example\r\n")},
		{"other origin", rawRequest(call, "Origin: http://other.example\r\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var heads, bodies [2]string
			for i, url := range []string{ts.url, mounted.URL} {
				c := dialRaw(t, url)
				c.send(tt.req)
				heads[i], bodies[i] = c.response()
			}
			if heads[0] != heads[1] || bodies[0] != bodies[1] {
				t.Errorf("fast path:\n%s%.200s\nnet/http:\n%s%.200s", heads[0], bodies[0], heads[1], bodies[1])
			}
		})
	}
}

// TestFastPathPipelined checks requests sent back to back, some split across writes,
// with CRLF between them (which net/http tolerates after a POST).
func TestFastPathPipelined(t *testing.T) {
	t.Parallel()
	ts := startServer(t, testConfig())
	c := dialRaw(t, ts.url)
	call := func(id int) string {
		return rawRequest(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"test_nil"}`, id), "")
	}
	all := call(1) + call(2) + "\r\n" + call(3) + call(4)
	split := len(all) - 20
	c.send(all[:split])
	time.Sleep(20 * time.Millisecond)
	c.send(all[split:])
	for id := 1; id <= 4; id++ {
		want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":null}`, id)
		if head, body := c.response(); head != okHead(len(want)) || body != want {
			t.Errorf("response %d: %q %q", id, head, body)
		}
	}
	if n := ts.srv.fastRequests.Load(); n != 4 {
		t.Errorf("fast path served %d requests, want 4", n)
	}
}

// TestFastPathPartialReads sends requests one byte per write, so that the head and body
// arrive in many reads, on a connection that stays on the fast path.
func TestFastPathPartialReads(t *testing.T) {
	t.Parallel()
	ts := startServer(t, testConfig())
	c := dialRaw(t, ts.url)
	for id := range 2 {
		req := rawRequest(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"test_echo","params":["%s"]}`, id, strings.Repeat("x", 40)), "")
		for i := range len(req) {
			c.send(req[i : i+1])
			if i%8 == 0 {
				time.Sleep(100 * time.Microsecond)
			}
		}
		want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":["%s"]}`, id, strings.Repeat("x", 40))
		if head, body := c.response(); head != okHead(len(want)) || body != want {
			t.Errorf("request %d: %q %q", id, head, body)
		}
	}
	if n, h := ts.srv.fastRequests.Load(), ts.srv.handoffs.Load(); n != 2 || h != 0 {
		t.Errorf("fast path served %d requests, %d handed off; want 2, 0", n, h)
	}
}

// TestFastPathConnectionClose checks that "Connection: close" is answered with the same
// field and the server closes the connection.
func TestFastPathConnectionClose(t *testing.T) {
	t.Parallel()
	ts := startServer(t, testConfig())
	c := dialRaw(t, ts.url)
	c.send(rawRequest(`{"jsonrpc":"2.0","id":1,"method":"test_nil"}`, "Connection: close\r\n"))
	if head, _ := c.response(); !strings.Contains(head, "\r\nConnection: close\r\n") {
		t.Errorf("head without Connection: close:\n%s", head)
	}
	c.expectClosed(5 * time.Second)
}

// TestFastPathTimeouts checks the idle timeout between requests, the header timeout on a
// connection that sends nothing and the read timeout on a body that stops short.
func TestFastPathTimeouts(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.IdleTimeout = 100 * time.Millisecond
	cfg.ReadHeaderTimeout = 100 * time.Millisecond
	cfg.ReadTimeout = 200 * time.Millisecond
	ts := startServer(t, cfg)

	t.Run("idle", func(t *testing.T) {
		t.Parallel()
		c := dialRaw(t, ts.url)
		c.send(rawRequest(`{"jsonrpc":"2.0","id":1,"method":"test_nil"}`, ""))
		c.response()
		start := time.Now()
		c.expectClosed(5 * time.Second)
		if d := time.Since(start); d < 80*time.Millisecond {
			t.Errorf("closed after %v, before the idle timeout", d)
		}
	})
	t.Run("header", func(t *testing.T) {
		t.Parallel()
		c := dialRaw(t, ts.url)
		c.send("POST / HTTP/1.1\r\nHost: localhost\r\n")
		c.expectClosed(5 * time.Second)
	})
	t.Run("body", func(t *testing.T) {
		t.Parallel()
		c := dialRaw(t, ts.url)
		req := rawRequest(`{"jsonrpc":"2.0","id":1,"method":"test_nil"}`, "")
		c.send(req[:len(req)-5])
		want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"read timeout"}}`
		head, body := c.response()
		if !strings.Contains(head, "\r\nConnection: close\r\n") || body != want {
			t.Errorf("got %q %q, want Connection: close and %s", head, body, want)
		}
		c.expectClosed(5 * time.Second)
	})
}

// TestFastPathShutdown checks Shutdown with a call in flight on the fast path: idle
// connections close at once, no new connection is accepted, the call is answered (with
// Connection: close) and Shutdown then returns; a call that outlives Shutdown's context
// has its connection closed.
func TestFastPathShutdown(t *testing.T) {
	t.Parallel()
	for _, expire := range []bool{false, true} {
		t.Run(fmt.Sprintf("expire=%v", expire), func(t *testing.T) {
			t.Parallel()
			cfg := testConfig()
			cfg.RequestTimeout = -1
			ts := startServer(t, cfg)
			idle := dialRaw(t, ts.url)
			idle.send(rawRequest(`{"jsonrpc":"2.0","id":1,"method":"test_nil"}`, ""))
			idle.response()
			busy := dialRaw(t, ts.url)
			busy.send(rawRequest(`{"jsonrpc":"2.0","id":2,"method":"test_stuck"}`, ""))
			for ts.srv.fastRequests.Load() < 2 {
				time.Sleep(time.Millisecond)
			}

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			shut := make(chan error, 1)
			go func() { shut <- ts.srv.Shutdown(ctx) }()
			idle.expectClosed(5 * time.Second)
			if c, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(ts.url, "http://"), "/")); err == nil {
				c.Close()
				t.Error("dial after Shutdown succeeded")
			}
			select {
			case err := <-shut:
				t.Fatalf("Shutdown returned %v with a call in flight", err)
			case <-time.After(50 * time.Millisecond):
			}
			if expire {
				cancel()
				if err := <-shut; !errors.Is(err, context.Canceled) {
					t.Errorf("Shutdown = %v, want context.Canceled", err)
				}
				busy.expectClosed(5 * time.Second)
				return
			}
			ts.svc.unblock()
			head, body := busy.response()
			if want := `{"jsonrpc":"2.0","id":2,"result":"released"}`; body != want || !strings.Contains(head, "\r\nConnection: close\r\n") {
				t.Errorf("in-flight call: %q %q", head, body)
			}
			if err := <-shut; err != nil {
				t.Errorf("Shutdown = %v", err)
			}
			busy.expectClosed(5 * time.Second)
		})
	}
}
