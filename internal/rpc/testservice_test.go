package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testConfig is the Config of the script tests: small limits so that scripts can reach
// them. Scripts that depend on a value say so in a comment.
func testConfig() Config {
	return Config{
		BatchItemLimit:     4,
		BatchResponseLimit: 250,
		ResponseLimit:      100,
		RequestTimeout:     100 * time.Millisecond,
	}
}

// testService is the service behind the script tests. Its methods:
//
//	test_echo(...)          the params array, through encoding/json
//	test_raw(v)             v verbatim, as a json.RawMessage
//	test_string(s)          s decoded and returned as a Go string
//	test_nil()              nil, nil
//	test_len(...)           the number of params the method sees
//	test_error(code, msg, data?)  an *Error
//	test_plainError()       errors.New("plain failure")
//	test_wrappedError()     an *Error wrapped with fmt.Errorf
//	test_codedError()       an error with go-ethereum's ErrorCode/ErrorData methods
//	test_panic()            panics
//	test_marshalError()     a result whose MarshalJSON fails
//	test_big(n)             a string of n "x"
//	test_block()            waits for ctx, then returns ctx.Err()
//	test_stuck()            ignores ctx and waits until the test ends
//	test_notify(id, v)      sub.Notify(v) on subscription id of kind "manual"
//
// Subscription kinds: "ticks" (n) notifies 1..n before eth_subscribe returns; "flood" (n)
// notifies 1..n from a goroutine, racing the response; "manual" notifies through
// test_notify; "fail" returns an *Error; "panic" panics.
type testService struct {
	release     chan struct{} // closed by unblock; test_stuck waits for it
	stuck       atomic.Int32  // test_stuck calls started
	releaseOnce sync.Once

	mu   sync.Mutex
	subs map[string]*Subscription // "manual" subscriptions by ID; guarded by mu
}

func newTestService() *testService {
	return &testService{release: make(chan struct{}), subs: make(map[string]*Subscription)}
}

// unblock releases every test_stuck call, now and later.
func (ts *testService) unblock() {
	ts.releaseOnce.Do(func() { close(ts.release) })
}

func (ts *testService) service() Service {
	return Service{
		Methods: map[string]Method{
			"test_echo": func(ctx context.Context, p Params) (any, error) { return p, nil },
			"test_raw":  func(ctx context.Context, p Params) (any, error) { return p.At(0), nil },
			"test_string": func(ctx context.Context, p Params) (any, error) {
				var s string
				if err := json.Unmarshal(p.At(0), &s); err != nil {
					return nil, InvalidParams("invalid argument 0: %v", err)
				}
				return s, nil
			},
			"test_nil":          func(ctx context.Context, p Params) (any, error) { return nil, nil },
			"test_len":          func(ctx context.Context, p Params) (any, error) { return p.Len(), nil },
			"test_error":        testError,
			"test_plainError":   func(ctx context.Context, p Params) (any, error) { return nil, errors.New("plain failure") },
			"test_wrappedError": testWrappedError,
			"test_codedError":   func(ctx context.Context, p Params) (any, error) { return nil, gethStyleError{} },
			"test_panic":        func(ctx context.Context, p Params) (any, error) { panic("boom") },
			"test_marshalError": func(ctx context.Context, p Params) (any, error) { return badJSON{}, nil },
			"test_big": func(ctx context.Context, p Params) (any, error) {
				n, err := strconv.Atoi(string(p.At(0)))
				return strings.Repeat("x", n), err
			},
			"test_block": func(ctx context.Context, p Params) (any, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			},
			"test_stuck": func(ctx context.Context, p Params) (any, error) {
				ts.stuck.Add(1)
				<-ts.release
				return "released", nil
			},
			"test_notify": ts.notify,
		},
		Subscriptions: map[string]SubscribeFunc{
			"ticks":  ticks,
			"flood":  flood,
			"manual": ts.manual,
			"fail": func(ctx context.Context, p Params, sub *Subscription) error {
				return InvalidParams("fail always fails")
			},
			"panic": func(ctx context.Context, p Params, sub *Subscription) error { panic("boom") },
		},
	}
}

func testError(ctx context.Context, p Params) (any, error) {
	var (
		code int
		msg  string
		data any
	)
	if err := json.Unmarshal(p.At(0), &code); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(p.At(1), &msg); err != nil {
		return nil, err
	}
	if p.Len() > 2 {
		data = p.At(2)
	}
	return nil, &Error{Code: code, Message: msg, Data: data}
}

func testWrappedError(ctx context.Context, p Params) (any, error) {
	return nil, fmt.Errorf("outer: %w", &Error{Code: CodeReverted, Message: "execution reverted", Data: "0x01"})
}

// gethStyleError implements go-ethereum's rpc.Error and rpc.DataError.
type gethStyleError struct{}

func (gethStyleError) Error() string  { return "geth style" }
func (gethStyleError) ErrorCode() int { return -38014 }
func (gethStyleError) ErrorData() any { return map[string]int{"n": 1} }

// badJSON fails to encode.
type badJSON struct{}

func (badJSON) MarshalJSON() ([]byte, error) { return nil, errors.New("marshal error") }

// ticks notifies 1..n before the subscription is confirmed; the server must hold the
// notifications back until the eth_subscribe response is queued.
func ticks(ctx context.Context, p Params, sub *Subscription) error {
	n, err := strconv.Atoi(string(p.At(0)))
	if err != nil {
		return InvalidParams("invalid argument 0: %v", err)
	}
	for i := 1; i <= n; i++ {
		sub.Notify(i)
	}
	return nil
}

// flood notifies 1..n from a goroutine started before the subscription is confirmed.
func flood(ctx context.Context, p Params, sub *Subscription) error {
	n, err := strconv.Atoi(string(p.At(0)))
	if err != nil {
		return InvalidParams("invalid argument 0: %v", err)
	}
	go func() {
		for i := 1; i <= n && sub.Notify(i); i++ {
		}
	}()
	return nil
}

func (ts *testService) manual(ctx context.Context, p Params, sub *Subscription) error {
	ts.mu.Lock()
	ts.subs[sub.ID()] = sub
	ts.mu.Unlock()
	go func() {
		<-sub.Done()
		ts.mu.Lock()
		delete(ts.subs, sub.ID())
		ts.mu.Unlock()
	}()
	return nil
}

func (ts *testService) sub(id string) *Subscription {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.subs[id]
}

func (ts *testService) notify(ctx context.Context, p Params) (any, error) {
	var id string
	if err := json.Unmarshal(p.At(0), &id); err != nil {
		return nil, InvalidParams("invalid argument 0: %v", err)
	}
	sub := ts.sub(id)
	if sub == nil {
		return false, nil
	}
	return sub.Notify(p.At(1)), nil
}

// sequentialIDs returns a generator of the subscription IDs 0x1, 0x2, … so that scripts
// are deterministic.
func sequentialIDs() func() string {
	var (
		mu sync.Mutex
		n  uint64
	)
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return "0x" + strconv.FormatUint(n, 16)
	}
}

// testServer is a Server with the test service, served on a loopback port.
type testServer struct {
	srv  *Server
	svc  *testService
	url  string // http://127.0.0.1:port/
	logs *syncBuffer
}

// startServer starts a test server with cfg; the test's end shuts it down.
func startServer(t testing.TB, cfg Config) *testServer {
	t.Helper()
	logs := new(syncBuffer)
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	svc := newTestService()
	srv := newServer(cfg, svc.service(), sequentialIDs())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve returned %v, want http.ErrServerClosed", err)
		}
	})
	t.Cleanup(svc.unblock) // runs first: unblock test_stuck before shutdown
	return &testServer{srv: srv, svc: svc, url: "http://" + ln.Addr().String() + "/", logs: logs}
}

// syncBuffer is a bytes.Buffer safe for concurrent use, for captured logs.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
