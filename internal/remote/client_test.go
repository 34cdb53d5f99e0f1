package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// scripted is an HTTP JSON-RPC endpoint whose answers a test chooses: each request is
// answered by the next function of script (the last one repeats). It stands for the
// behaviours of real providers that a real node does not show on demand: rate limits, batch
// refusals, answers out of order.
type scripted struct {
	mu       sync.Mutex
	script   []func(w http.ResponseWriter, body []byte)
	requests atomic.Int64
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	n := int(s.requests.Add(1)) - 1
	s.mu.Lock()
	fn := s.script[min(n, len(s.script)-1)]
	s.mu.Unlock()
	fn(w, body)
}

func status(code int) func(http.ResponseWriter, []byte) {
	return func(w http.ResponseWriter, _ []byte) { http.Error(w, http.StatusText(code), code) }
}

// echo answers each call with its method name as the result, in reverse order for a batch.
func echo(w http.ResponseWriter, body []byte) {
	if body[0] == '[' {
		var reqs []request
		json.Unmarshal(body, &reqs)
		out := make([]string, 0, len(reqs))
		for i := len(reqs) - 1; i >= 0; i-- {
			out = append(out, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":"%s"}`, reqs[i].ID, reqs[i].Method))
		}
		fmt.Fprintf(w, "[%s]", strings.Join(out, ","))
		return
	}
	var req request
	json.Unmarshal(body, &req)
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"result":"%s"}`, req.ID, req.Method)
}

func answer(s string) func(http.ResponseWriter, []byte) {
	return func(w http.ResponseWriter, _ []byte) { io.WriteString(w, s) }
}

func TestClientRetries(t *testing.T) {
	t.Parallel()
	limited := answer(`{"jsonrpc":"2.0","id":0,"error":{"code":-32005,"message":"rate limit exceeded"}}`)
	tests := []struct {
		name         string
		script       []func(http.ResponseWriter, []byte)
		retries      int
		batch        bool
		wantErr      string // "" means success
		wantRequests int64
	}{
		{name: "ok", script: []func(http.ResponseWriter, []byte){echo}, retries: 3, wantRequests: 1},
		{name: "429 twice then ok", script: []func(http.ResponseWriter, []byte){status(429), status(429), echo}, retries: 3, wantRequests: 3},
		{name: "503 for ever", script: []func(http.ResponseWriter, []byte){status(503)}, retries: 2, wantErr: "HTTP 503", wantRequests: 3},
		{name: "no retries", script: []func(http.ResponseWriter, []byte){status(502)}, retries: 0, wantErr: "HTTP 502", wantRequests: 1},
		{name: "400 is final", script: []func(http.ResponseWriter, []byte){status(400)}, retries: 3, wantErr: "HTTP 400", wantRequests: 1},
		{name: "rate-limit error then ok", script: []func(http.ResponseWriter, []byte){limited, echo}, retries: 3, wantRequests: 2},
		{name: "not JSON", script: []func(http.ResponseWriter, []byte){answer("<html>")}, retries: 3, wantErr: "undecodable answer", wantRequests: 1},
		{name: "batch refused then ok", batch: true, script: []func(http.ResponseWriter, []byte){
			answer(`{"jsonrpc":"2.0","id":null,"error":{"code":429,"message":"too many requests"}}`), echo}, retries: 3, wantRequests: 2},
		{name: "batch answered short", batch: true, script: []func(http.ResponseWriter, []byte){answer(`[{"jsonrpc":"2.0","id":0,"result":"x"}]`)}, retries: 3, wantErr: "3 calls answered with 1", wantRequests: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			up := &scripted{script: tt.script}
			srv := httptest.NewServer(up)
			defer srv.Close()
			c := NewClient(Config{URL: srv.URL, Retries: tt.retries, Backoff: time.Millisecond})
			var err error
			if tt.batch {
				var res []json.RawMessage
				res, err = c.Batch(context.Background(), []Call{{Method: "a"}, {Method: "b"}, {Method: "c"}})
				if err == nil && (string(res[0]) != `"a"` || string(res[2]) != `"c"`) {
					t.Fatalf("results %s, want them in call order", res)
				}
			} else {
				var raw json.RawMessage
				raw, err = c.Call(context.Background(), "eth_chainId")
				if err == nil && string(raw) != `"eth_chainId"` {
					t.Fatalf("result %s", raw)
				}
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("err %v, want none", err)
			case tt.wantErr != "":
				var uerr *UpstreamError
				if !errors.As(err, &uerr) || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), srv.URL) {
					t.Fatalf("err %v, want an UpstreamError naming %s and %q", err, srv.URL, tt.wantErr)
				}
			}
			if got := up.requests.Load(); got != tt.wantRequests {
				t.Fatalf("%d requests, want %d", got, tt.wantRequests)
			}
			if got := c.Stats().Requests; got != tt.wantRequests {
				t.Fatalf("Stats().Requests %d, want %d", got, tt.wantRequests)
			}
		})
	}
}

// TestClientAnswersError checks that a JSON-RPC error answer is returned as the upstream gave
// it (a *RPCError), not retried, and that Batch fails naming the call.
func TestClientAnswersError(t *testing.T) {
	t.Parallel()
	up := &scripted{script: []func(http.ResponseWriter, []byte){answer(`{"jsonrpc":"2.0","id":0,"error":{"code":3,"message":"execution reverted","data":"0x08c379a0"}}`)}}
	srv := httptest.NewServer(up)
	defer srv.Close()
	c := NewClient(Config{URL: srv.URL, Retries: 3, Backoff: time.Millisecond})
	_, err := c.Call(context.Background(), "eth_call")
	var rerr *RPCError
	if !errors.As(err, &rerr) || rerr.Code != 3 || string(rerr.Data) != `"0x08c379a0"` {
		t.Fatalf("err %v, want the upstream's error 3 with its data", err)
	}
	if up.requests.Load() != 1 {
		t.Fatalf("%d requests, want 1: an answer is not retried", up.requests.Load())
	}
}

// TestClientBatchSplit checks that a batch larger than MaxBatch is sent as several, and the
// results come back in call order.
func TestClientBatchSplit(t *testing.T) {
	t.Parallel()
	up := &scripted{script: []func(http.ResponseWriter, []byte){echo}}
	srv := httptest.NewServer(up)
	defer srv.Close()
	c := NewClient(Config{URL: srv.URL, MaxBatch: 10})
	calls := make([]Call, 35)
	for i := range calls {
		calls[i] = Call{Method: fmt.Sprintf("m%d", i)}
	}
	res, err := c.Batch(context.Background(), calls)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if want := fmt.Sprintf(`"m%d"`, i); string(r) != want {
			t.Fatalf("result %d = %s, want %s", i, r, want)
		}
	}
	if got := up.requests.Load(); got != 4 {
		t.Fatalf("%d requests, want 4 batches of at most 10", got)
	}
}

// TestClientContext checks that a cancelled context ends the backoff.
func TestClientContext(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(&scripted{script: []func(http.ResponseWriter, []byte){status(503)}})
	defer srv.Close()
	c := NewClient(Config{URL: srv.URL, Retries: 5, Backoff: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(10 * time.Millisecond); cancel() }()
	_, err := c.Call(ctx, "eth_chainId")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want the context's cancellation", err)
	}
}

func TestDecodeWord(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    common.Hash
		wantErr bool
	}{
		{in: `"0x0"`, want: common.Hash{}},
		{in: `"0x"`, want: common.Hash{}},
		{in: `"0x1"`, want: common.BigToHash(common.Big1)},
		{in: `"0x0000000000000000000000000000000000000000000000000000000000000002"`, want: common.BigToHash(common.Big2)},
		{in: `"0x` + strings.Repeat("ff", 33) + `"`, wantErr: true},
		{in: `"12"`, wantErr: true},
		{in: `12`, wantErr: true},
		{in: `"0xzz"`, wantErr: true},
	}
	for _, tt := range tests {
		got, err := decodeWord(json.RawMessage(tt.in))
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("decodeWord(%s) = %s, %v; want %s, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}
