package rpc

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHandOff checks requests the fast path leaves to net/http, alone and after
// a request it served on the same connection: net/http's answer comes back and the
// connection was handed over.
func TestHandOff(t *testing.T) {
	t.Parallel()
	call := `{"jsonrpc":"2.0","id":1,"method":"test_nil"}`
	result := `{"jsonrpc":"2.0","id":1,"result":null}`
	big := `{"jsonrpc":"2.0","id":1,"method":"test_echo","params":["` + strings.Repeat("x", 2000) + `"]}`
	tests := []struct {
		name, req  string
		wantStatus string // status line
		wantBody   string
	}{
		{"get", "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n", "HTTP/1.1 200 OK", ""},
		{"put", "PUT / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n", "HTTP/1.1 405 Method Not Allowed", "method not allowed\n"},
		{"body over limit", rawRequest(big, ""), "HTTP/1.1 413 Request Entity Too Large", fmt.Sprintf("content length too large (%d>1024)\n", len(big))},
		{"text/plain", strings.Replace(rawRequest(call, ""), "application/json", "text/plain", 1), "HTTP/1.1 415 Unsupported Media Type", "invalid content type, only application/json is supported\n"},
		{"chunked", "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
			strconv.FormatInt(int64(len(call)), 16) + "\r\n" + call + "\r\n0\r\n\r\n", "HTTP/1.1 200 OK", result},
		{"expect continue", rawRequest(call, "Expect: 100-continue\r\n"), "HTTP/1.1 100 Continue", ""},
		{"http/1.0", strings.Replace(rawRequest(call, ""), "HTTP/1.1", "HTTP/1.0", 1), "HTTP/1.0 200 OK", result},
		{"no host", strings.Replace(rawRequest(call, ""), "Host: localhost\r\n", "", 1), "HTTP/1.1 400 Bad Request: missing required Host header", "400 Bad Request: missing required Host header"},
		{"folded field", rawRequest(call, "X-A: 1\r\n 2\r\n"), "HTTP/1.1 200 OK", result},
		{"bare LF", "POST / HTTP/1.1\nHost: localhost\nContent-Type: application/json\nContent-Length: 44\n\n" + call, "HTTP/1.1 200 OK", result},
		{"malformed", "POST / HTTP/1.1\r\nHost: localhost\r\nBad Field\r\n\r\n", "HTTP/1.1 400 Bad Request", "400 Bad Request"},
	}
	for _, after := range []bool{false, true} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/after-fast=%v", tt.name, after), func(t *testing.T) {
				t.Parallel()
				cfg := testConfig()
				cfg.BodyLimit = 1024
				ts := startServer(t, cfg)
				c := dialRaw(t, ts.url)
				if after {
					c.send(rawRequest(call, ""))
					if _, body := c.response(); body != result {
						t.Fatalf("fast request: %s", body)
					}
				}
				c.send(tt.req)
				head, body := c.response()
				if status, _, _ := strings.Cut(head, "\r\n"); status != tt.wantStatus || body != tt.wantBody {
					t.Errorf("got %q %q, want %q %q", status, body, tt.wantStatus, tt.wantBody)
				}
				if tt.wantStatus == "HTTP/1.1 100 Continue" {
					if _, body := c.response(); body != result {
						t.Errorf("after 100 Continue: %q", body)
					}
				}
				if n := ts.srv.handoffs.Load(); n != 1 {
					t.Errorf("%d connections handed off, want 1", n)
				}
			})
		}
	}
}

// TestHTTPPaths checks which path serves the requests of common clients: Go's client
// with a known length takes the fast path, with an unknown length (chunked) net/http.
func TestHTTPPaths(t *testing.T) {
	t.Parallel()
	ts := startServer(t, testConfig())
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	call := `{"jsonrpc":"2.0","id":1,"method":"test_nil"}`
	postWith := func(body io.Reader) {
		resp, err := client.Post(ts.url, "application/json", body)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	for range 3 {
		postWith(strings.NewReader(call))
	}
	if n, h := ts.srv.fastRequests.Load(), ts.srv.handoffs.Load(); n != 3 || h != 0 {
		t.Errorf("plain: fast %d, handed off %d; want 3, 0", n, h)
	}
	client.CloseIdleConnections()
	postWith(io.MultiReader(strings.NewReader(call)))
	if n, h := ts.srv.fastRequests.Load(), ts.srv.handoffs.Load(); n != 3 || h != 1 {
		t.Errorf("chunked: fast %d, handed off %d; want 3, 1", n, h)
	}
}

// TestServeListeners checks Serve on two listeners of one Server, and Serve after
// Shutdown, which returns http.ErrServerClosed at once and closes its listener.
func TestServeListeners(t *testing.T) {
	t.Parallel()
	ts := startServer(t, testConfig())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- ts.srv.Serve(ln) }()
	for _, url := range []string{ts.url, "http://" + ln.Addr().String() + "/"} {
		if _, got := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"test_nil"}`); got != `{"jsonrpc":"2.0","id":1,"result":null}` {
			t.Errorf("%s: %s", url, got)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := ts.srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("second Serve returned %v", err)
	}
	late, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.srv.Serve(late); !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve after Shutdown returned %v", err)
	}
	if _, err := late.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("listener still open after Serve returned: %v", err)
	}
}

// TestServeTLS checks that Serve hands TLS connections to net/http, which does the
// handshake.
func TestServeTLS(t *testing.T) {
	t.Parallel()
	certs := httptest.NewUnstartedServer(nil) // only for its certificate and client
	certs.StartTLS()
	certs.Close()
	srv := newServer(testConfig(), newTestService().service(), sequentialIDs())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(tls.NewListener(ln, certs.TLS))
	defer srv.Shutdown(context.Background())
	resp, err := certs.Client().Post("https://"+ln.Addr().String()+"/", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"test_nil"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if want := `{"jsonrpc":"2.0","id":1,"result":null}`; string(body) != want || resp.TLS == nil {
		t.Errorf("got %s (TLS %v), want %s", body, resp.TLS != nil, want)
	}
	if n, h := srv.fastRequests.Load(), srv.handoffs.Load(); n != 0 || h != 1 {
		t.Errorf("fast %d, handed off %d; want 0, 1", n, h)
	}
}
