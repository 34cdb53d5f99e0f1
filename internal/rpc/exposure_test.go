package rpc

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// exposureServer is a Server with cfg served on both HTTP paths: the fast path (Serve)
// and net/http (mounted in an httptest.Server).
type exposureServer struct {
	*testServer
	mounted string // URL of the mounted server
}

func startExposure(t *testing.T, cfg Config) *exposureServer {
	t.Helper()
	ts := startServer(t, cfg)
	m := httptest.NewServer(ts.srv)
	t.Cleanup(m.Close)
	return &exposureServer{testServer: ts, mounted: m.URL}
}

// status sends a raw request to url and returns the status line and body.
func status(t *testing.T, url, req string) (string, string) {
	t.Helper()
	c := dialRaw(t, url)
	c.send(req)
	head, body := c.response()
	line, _, _ := strings.Cut(head, "\r\n")
	return line, body
}

// TestVirtualHosts checks the Host header against Config.VirtualHosts on both paths:
// names that are listed, IP literals and a missing Host pass, other names get 403, for
// POST, GET and WebSocket upgrades alike.
func TestVirtualHosts(t *testing.T) {
	t.Parallel()
	call := `{"jsonrpc":"2.0","id":1,"method":"test_nil"}`
	result := `{"jsonrpc":"2.0","id":1,"result":null}`
	post := func(host string) string {
		return strings.Replace(rawRequest(call, ""), "Host: localhost\r\n", "Host: "+host+"\r\n", 1)
	}
	const (
		ok        = "HTTP/1.1 200 OK"
		forbidden = "HTTP/1.1 403 Forbidden"
		refusal   = "invalid host specified\n"
	)
	tests := []struct {
		name      string
		vhosts    []string
		req       string
		wantLine  string
		wantBody  string
		wantsFast bool // served on the fast path (no hand-off)
	}{
		{"localhost", nil, post("localhost:8545"), ok, result, true},
		{"localhost upper case", nil, post("LocalHost"), ok, result, true},
		{"ipv4 literal", nil, post("127.0.0.1:8545"), ok, result, true},
		{"any ip literal", nil, post("10.1.2.3"), ok, result, true},
		{"ipv6 literal", nil, post("[::1]:8545"), ok, result, true},
		{"ipv6 literal without port", nil, post("[::1]"), ok, result, true},
		{"other name", nil, post("evil.example"), forbidden, refusal, false},
		{"other name with port", nil, post("evil.example:8545"), forbidden, refusal, false},
		{"suffix of localhost", nil, post("localhost.evil.example"), forbidden, refusal, false},
		{"no host (HTTP/1.0)", nil, strings.Replace(strings.Replace(post("x"), "Host: x\r\n", "", 1), "HTTP/1.1", "HTTP/1.0", 1), "HTTP/1.0 200 OK", result, false},
		{"get", nil, "GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n", forbidden, refusal, false},
		{"websocket upgrade", nil, "GET / HTTP/1.1\r\nHost: evil.example\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", forbidden, refusal, false},
		{"listed name", []string{"rpc.example"}, post("RPC.example:443"), ok, result, true},
		{"localhost when not listed", []string{"rpc.example"}, post("localhost"), forbidden, refusal, false},
		{"ip literal when not listed", []string{"rpc.example"}, post("127.0.0.1"), ok, result, true},
		{"wildcard", []string{"*"}, post("evil.example"), ok, result, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig()
			cfg.VirtualHosts = tt.vhosts
			es := startExposure(t, cfg)
			for _, url := range []string{es.url, es.mounted} {
				line, body := status(t, url, tt.req)
				if line != tt.wantLine || body != tt.wantBody {
					t.Errorf("%s: got %q %q, want %q %q", url, line, body, tt.wantLine, tt.wantBody)
				}
			}
			if fast := es.srv.handoffs.Load() == 0; fast != tt.wantsFast {
				t.Errorf("served on the fast path: %v, want %v", fast, tt.wantsFast)
			}
		})
	}
}

// TestWSOrigins checks WebSocket upgrades against Config.WSOrigins: by default the
// endpoint's own localhost origins (and no Origin at all) pass and every other origin
// gets 403; listed origins, rules without port and "*" widen that.
func TestWSOrigins(t *testing.T) {
	t.Parallel()
	const own = "<own port>"
	tests := []struct {
		name    string
		origins []string
		origin  string // "" sends none; own is replaced by the server's port
		want    bool
	}{
		{"no origin", nil, "", true},
		{"localhost", nil, "http://localhost:" + own, true},
		{"127.0.0.1", nil, "http://127.0.0.1:" + own, true},
		{"[::1]", nil, "http://[::1]:" + own, true},
		{"https", nil, "https://localhost:" + own, true},
		{"upper case", nil, "HTTP://LOCALHOST:" + own, true},
		{"other port", nil, "http://localhost:3000", false},
		{"no port", nil, "http://localhost", false},
		{"other host", nil, "http://evil.example:" + own, false},
		{"rebound name", nil, "http://localhost.evil.example:" + own, false},
		{"other scheme", nil, "ws://localhost:" + own, false},
		{"opaque origin", nil, "null", false},
		{"listed", []string{"http://app.example:3000"}, "http://app.example:3000", true},
		{"listed, other port", []string{"http://app.example:3000"}, "http://app.example:3001", false},
		{"listed, own origin no longer", []string{"http://app.example:3000"}, "http://localhost:" + own, false},
		{"rule without port", []string{"http://localhost"}, "http://localhost:5173", true},
		{"rule without scheme", []string{"localhost:5173"}, "https://localhost:5173", true},
		{"wildcard", []string{"*"}, "http://evil.example", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig()
			cfg.WSOrigins = tt.origins
			ts := startServer(t, cfg)
			_, port, _ := net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(ts.url, "http://"), "/"))
			h := http.Header{}
			if tt.origin != "" {
				h.Set("Origin", strings.Replace(tt.origin, own, port, 1))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.url, "http"), &websocket.DialOptions{HTTPHeader: h})
			if !tt.want {
				if err == nil {
					c.CloseNow()
					t.Fatal("upgrade accepted")
				}
				if resp == nil || resp.StatusCode != http.StatusForbidden {
					t.Fatalf("got %v, want 403", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("upgrade refused: %v", err)
			}
			defer c.CloseNow()
			if got, want := wsCall(t, c, `{"jsonrpc":"2.0","id":1,"method":"test_nil"}`), `{"jsonrpc":"2.0","id":1,"result":null}`; got != want {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}
}

// TestCORS checks Config.CORSOrigins on both paths: without it no CORS header is sent
// and OPTIONS is 405; with it listed origins get Access-Control-Allow-Origin on answers
// and preflights, others nothing.
func TestCORS(t *testing.T) {
	t.Parallel()
	call := `{"jsonrpc":"2.0","id":1,"method":"test_nil"}`
	withOrigin := func(origin string) string { return rawRequest(call, "Origin: "+origin+"\r\n") }
	preflight := func(origin string) string {
		return "OPTIONS / HTTP/1.1\r\nHost: localhost\r\nOrigin: " + origin + "\r\nAccess-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type\r\n\r\n"
	}
	tests := []struct {
		name     string
		cors     []string
		req      string
		wantLine string
		want     []string // header lines the response must have
		wantNot  string   // a header name it must not have
	}{
		{"off: post", nil, withOrigin("http://app.example"), "HTTP/1.1 200 OK", nil, "Access-Control-Allow-Origin"},
		{"off: preflight", nil, preflight("http://app.example"), "HTTP/1.1 405 Method Not Allowed", nil, "Access-Control-Allow-Origin"},
		{"listed: post", []string{"http://app.example"}, withOrigin("http://app.example"), "HTTP/1.1 200 OK", []string{"Access-Control-Allow-Origin: http://app.example", "Vary: Origin"}, ""},
		{"listed: post from another origin", []string{"http://app.example"}, withOrigin("http://other.example"), "HTTP/1.1 200 OK", nil, "Access-Control-Allow-Origin"},
		{"listed: preflight", []string{"http://app.example"}, preflight("http://app.example"), "HTTP/1.1 204 No Content", []string{"Access-Control-Allow-Origin: http://app.example", "Access-Control-Allow-Methods: POST", "Access-Control-Allow-Headers: content-type", "Access-Control-Max-Age: 600"}, ""},
		{"listed: preflight from another origin", []string{"http://app.example"}, preflight("http://other.example"), "HTTP/1.1 204 No Content", nil, "Access-Control-Allow-Origin"},
		{"wildcard: post", []string{"*"}, withOrigin("http://any.example"), "HTTP/1.1 200 OK", []string{"Access-Control-Allow-Origin: *"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig()
			cfg.CORSOrigins = tt.cors
			es := startExposure(t, cfg)
			var heads [2]string
			for i, url := range []string{es.url, es.mounted} {
				c := dialRaw(t, url)
				c.send(tt.req)
				heads[i], _ = c.response()
				if line, _, _ := strings.Cut(heads[i], "\r\n"); line != tt.wantLine {
					t.Errorf("%s: status %q, want %q", url, line, tt.wantLine)
				}
				for _, w := range tt.want {
					if !strings.Contains(heads[i], "\r\n"+w+"\r\n") {
						t.Errorf("%s: no %q in\n%s", url, w, heads[i])
					}
				}
				if tt.wantNot != "" && strings.Contains(heads[i], tt.wantNot) {
					t.Errorf("%s: %s in\n%s", url, tt.wantNot, heads[i])
				}
			}
			if heads[0] != heads[1] {
				t.Errorf("paths differ:\n%s\n%s", heads[0], heads[1])
			}
		})
	}
}
