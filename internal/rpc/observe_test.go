package rpc

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// obsRecorder is an Observer that records what it is told.
type obsRecorder struct {
	mu       sync.Mutex
	resolved []string // names Method was asked for
	calls    []string // "method code" per observed call
	conns    int
	subs     int
	slow     int
}

func (r *obsRecorder) Method(name string) CallObserver {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.resolved = append(r.resolved, name)
	return callObsRecorder{r, name}
}

func (r *obsRecorder) WebSocketConns(d int) { r.mu.Lock(); r.conns += d; r.mu.Unlock() }
func (r *obsRecorder) Subscriptions(d int)  { r.mu.Lock(); r.subs += d; r.mu.Unlock() }
func (r *obsRecorder) SlowConsumer()        { r.mu.Lock(); r.slow++; r.mu.Unlock() }

func (r *obsRecorder) snapshot() (calls []string, conns, subs, slow int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls), r.conns, r.subs, r.slow
}

type callObsRecorder struct {
	r    *obsRecorder
	name string
}

func (c callObsRecorder) ObserveCall(d time.Duration, code int) {
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	c.r.calls = append(c.r.calls, fmt.Sprintf("%s %d", c.name, code))
}

// TestObserverCalls checks that every call of a batch is observed under its method (calls
// of unknown methods under ""), with its error code, and that observers are resolved once,
// when the server is built.
func TestObserverCalls(t *testing.T) {
	t.Parallel()
	rec := new(obsRecorder)
	cfg := testConfig()
	cfg.Observer = rec
	ts := startServer(t, cfg)
	rec.mu.Lock()
	resolved := len(rec.resolved)
	hasUnknown := slices.Contains(rec.resolved, "") && slices.Contains(rec.resolved, "eth_subscribe") && slices.Contains(rec.resolved, "test_echo")
	rec.mu.Unlock()
	if !hasUnknown {
		t.Fatalf("resolved %v, want every method, eth_subscribe and \"\"", rec.resolved)
	}
	_, body := post(t, ts.url, `[{"jsonrpc":"2.0","id":1,"method":"test_echo","params":[]},`+
		`{"jsonrpc":"2.0","id":2,"method":"test_error","params":[-32602,"bad"]},`+
		`{"jsonrpc":"2.0","id":3,"method":"no_such","params":[]},`+
		`{"jsonrpc":"2.0","id":4,"method":"eth_subscribe","params":["ticks",1]}]`)
	if !strings.Contains(body, `"id":4`) {
		t.Fatalf("batch answered %s", body)
	}
	calls, _, _, _ := rec.snapshot()
	want := []string{"test_echo 0", "test_error -32602", " -32601", "eth_subscribe -32601"}
	if !slices.Equal(calls, want) {
		t.Errorf("observed %q, want %q", calls, want)
	}
	rec.mu.Lock()
	if len(rec.resolved) != resolved {
		t.Errorf("Method called %d times while serving, want 0", len(rec.resolved)-resolved)
	}
	rec.mu.Unlock()
}

// TestObserverWebSocket checks the connection and subscription counts, and the count of
// connections dropped as slow consumers.
func TestObserverWebSocket(t *testing.T) {
	t.Parallel()
	rec := new(obsRecorder)
	cfg := testConfig()
	cfg.Observer = rec
	cfg.WSSendQueueBytes = 50 // held back: at most 4 × 50 bytes, two notifications
	ts := startServer(t, cfg)
	c := dialWS(t, ts.url)
	wsCall(t, c, `{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["manual"]}`)
	wsCall(t, c, `{"jsonrpc":"2.0","id":2,"method":"eth_subscribe","params":["manual"]}`)
	if _, conns, subs, _ := rec.snapshot(); conns != 1 || subs != 2 {
		t.Errorf("after two subscriptions: conns %d, subs %d; want 1, 2", conns, subs)
	}
	wsCall(t, c, `{"jsonrpc":"2.0","id":3,"method":"eth_unsubscribe","params":["0x1"]}`)
	if _, _, subs, _ := rec.snapshot(); subs != 1 {
		t.Errorf("after eth_unsubscribe: subs %d, want 1", subs)
	}

	// "ticks" notifies before its subscription is confirmed: 5 held-back notifications of
	// about 80 bytes pass the ceiling of 4 × 50 bytes and the connection is dropped as a slow
	// consumer.
	slow := dialWS(t, ts.url)
	wsCall(t, slow, `{"jsonrpc":"2.0","id":1,"method":"test_echo","params":[]}`)
	slow.Write(context.Background(), websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":2,"method":"eth_subscribe","params":["ticks",5]}`))
	rctx, rcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer rcancel()
	for {
		if _, _, err := slow.Read(rctx); err != nil {
			break // dropped
		}
	}

	// The client must read to take part in the close handshake.
	for _, conn := range []*websocket.Conn{c} {
		go func() {
			for {
				if _, _, err := conn.Read(context.Background()); err != nil {
					return
				}
			}
		}()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := ts.srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if _, conns, subs, slowN := rec.snapshot(); conns != 0 || subs != 0 || slowN != 1 {
		t.Errorf("after shutdown: conns %d, subs %d, slow consumers %d; want 0, 0, 1", conns, subs, slowN)
	}
}

// TestLogRequests checks the request log line: method, duration and error code, one per
// call, and none without LogRequests.
func TestLogRequests(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{false, true} {
		t.Run(fmt.Sprint("on=", on), func(t *testing.T) {
			t.Parallel()
			logs := new(syncBuffer)
			cfg := testConfig()
			cfg.LogRequests = on
			cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
			ts := startServer(t, cfg)
			post(t, ts.url, `[{"jsonrpc":"2.0","id":1,"method":"test_echo"},{"jsonrpc":"2.0","id":2,"method":"test_error","params":[3,"reverted"]}]`)
			got := logs.String()
			lines := strings.Count(got, `msg="rpc request"`)
			switch {
			case !on && lines != 0:
				t.Errorf("LogRequests off logged %d request lines:\n%s", lines, got)
			case on && (lines != 2 || !strings.Contains(got, "method=test_echo duration=") || !strings.Contains(got, "code=0") || !strings.Contains(got, "method=test_error") || !strings.Contains(got, "code=3")):
				t.Errorf("LogRequests on logged:\n%s\nwant a line per call with method, duration and code", got)
			}
		})
	}
}

// TestPages checks that GET requests other than upgrades go to Config.Pages, after the
// Host check, and that POST and WebSocket upgrades do not.
func TestPages(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Pages = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "page "+r.URL.Path)
	})
	ts := startServer(t, cfg)
	resp, err := http.Get(ts.url + "health")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "page /health" {
		t.Errorf("GET /health: %d %q, want 200 \"page /health\"", resp.StatusCode, b)
	}
	req, _ := http.NewRequest("GET", ts.url, nil)
	req.Host = "evil.example"
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("GET with a foreign Host: %d, want 403", resp.StatusCode)
	}
	if _, body := post(t, ts.url, `{"jsonrpc":"2.0","id":1,"method":"test_echo","params":[1]}`); body != `{"jsonrpc":"2.0","id":1,"result":[1]}` {
		t.Errorf("POST answered %s", body)
	}
	c := dialWS(t, ts.url)
	if got := wsCall(t, c, `{"jsonrpc":"2.0","id":1,"method":"test_echo","params":[2]}`); got != `{"jsonrpc":"2.0","id":1,"result":[2]}` {
		t.Errorf("WebSocket answered %s", got)
	}
}
