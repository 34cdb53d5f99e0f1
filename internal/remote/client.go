package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of Config, anvil's where anvil has the same setting (--fork-retries,
// --fork-retry-backoff, --timeout).
const (
	DefaultRetries = 5
	DefaultBackoff = time.Second
	DefaultTimeout = 45 * time.Second
	// DefaultMaxBatch is the most calls one JSON-RPC batch carries: providers cap batches
	// (geth's default cap is 1,000, some providers' 100).
	DefaultMaxBatch = 100
	// maxBackoff bounds one wait between two attempts.
	maxBackoff = 30 * time.Second
	// maxInFlight bounds the batches one Batch call sends at once.
	maxInFlight = 8
	// maxAnswer bounds an answer's size (a block with all its transactions, a wide
	// eth_getLogs); a larger one is an error, not a memory exhaustion.
	maxAnswer = 256 << 20
)

// Config configures a Client.
type Config struct {
	// URL is the upstream's HTTP(S) JSON-RPC endpoint.
	URL string
	// Retries is how often a failed request is sent again (transport errors, timeouts, HTTP
	// 429 and 5xx, JSON-RPC rate-limit errors); 0 means none. Negative means DefaultRetries.
	Retries int
	// Backoff is the wait before the first retry; each later wait doubles it, up to 30 s.
	// Zero means DefaultBackoff.
	Backoff time.Duration
	// Timeout bounds one HTTP request; zero means DefaultTimeout.
	Timeout time.Duration
	// MaxBatch is the most calls in one JSON-RPC batch; zero means DefaultMaxBatch.
	MaxBatch int
	// Observer is told of every request and cache read; nil observes nothing.
	Observer Observer
	// Logger, when set, gets a warning for every failed attempt that is retried, so that a
	// slow failure is visible as it happens.
	Logger *slog.Logger
}

// Observer is told what a Client sends and what a cache answers, for metrics. Its methods
// must be safe for concurrent use and quick.
type Observer interface {
	// UpstreamRequest is called once per HTTP request (a batch or a single call; retries
	// count again): calls holds how many calls of each method it carried, took how long the
	// upstream took to answer, failed whether the request failed.
	UpstreamRequest(calls map[string]int, first string, took time.Duration, failed bool)
	// CacheRead is called once per read a cache answered (hit) or sent upstream (miss), by
	// kind: "account", "storage", "header", "history".
	CacheRead(kind string, hit bool)
}

// Call is one JSON-RPC call of a batch.
type Call struct {
	Method string
	Params []any
}

// Result is the answer to one call: Raw on success, Err when the upstream answered a
// JSON-RPC error.
type Result struct {
	Raw json.RawMessage
	Err *RPCError
}

// Client sends JSON-RPC calls to the upstream over HTTP, alone or in batches, and retries
// what may succeed later with exponential backoff. It is safe for concurrent use.
type Client struct {
	cfg  Config
	http *http.Client

	requests atomic.Int64 // HTTP requests sent, retries included
	calls    atomic.Int64 // JSON-RPC calls sent, retries included
}

// NewClient returns a client of cfg.URL.
func NewClient(cfg Config) *Client {
	if cfg.Retries < 0 {
		cfg.Retries = DefaultRetries
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = DefaultBackoff
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxBatch <= 0 {
		cfg.MaxBatch = DefaultMaxBatch
	}
	return &Client{cfg: cfg, http: &http.Client{
		Timeout:   cfg.Timeout,
		Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, MaxIdleConnsPerHost: 2 * maxInFlight, IdleConnTimeout: 90 * time.Second},
	}}
}

// URL returns the upstream's URL.
func (c *Client) URL() string { return c.cfg.URL }

// Stats are a Client's counters since it was created.
type Stats struct {
	Requests int64 // HTTP requests, retries included
	Calls    int64 // JSON-RPC calls inside them
}

// Stats returns the counters.
func (c *Client) Stats() Stats {
	return Stats{Requests: c.requests.Load(), Calls: c.calls.Load()}
}

// Call sends one call and returns its result. A JSON-RPC error answer is returned as a
// *RPCError; a failure to get an answer as an *UpstreamError.
func (c *Client) Call(ctx context.Context, method string, params ...any) (json.RawMessage, error) {
	if params == nil {
		params = []any{}
	}
	res, err := c.send(ctx, []Call{{Method: method, Params: params}}, false)
	if err != nil {
		return nil, err
	}
	if res[0].Err != nil {
		return nil, res[0].Err
	}
	return res[0].Raw, nil
}

// Batch sends calls in JSON-RPC batches of at most Config.MaxBatch, up to 8 batches at once,
// and returns the results in order. Any call answered with an error fails the whole: the
// error is an *UpstreamError naming the call.
func (c *Client) Batch(ctx context.Context, calls []Call) ([]json.RawMessage, error) {
	res, err := c.BatchResults(ctx, calls)
	if err != nil {
		return nil, err
	}
	out := make([]json.RawMessage, len(res))
	for i, r := range res {
		if r.Err != nil {
			return nil, c.fail(calls[i].Method, r.Err.Error(), r.Err)
		}
		out[i] = r.Raw
	}
	return out, nil
}

// BatchResults is Batch that returns each call's JSON-RPC error as its result instead of
// failing.
func (c *Client) BatchResults(ctx context.Context, calls []Call) ([]Result, error) {
	if len(calls) <= c.cfg.MaxBatch {
		return c.send(ctx, calls, len(calls) > 1)
	}
	out := make([]Result, len(calls))
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		sem   = make(chan struct{}, maxInFlight)
	)
	for start := 0; start < len(calls); start += c.cfg.MaxBatch {
		end := min(start+c.cfg.MaxBatch, len(calls))
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			res, err := c.send(ctx, calls[start:end], true)
			if err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
				return
			}
			copy(out[start:end], res)
		}()
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	return out, nil
}

// send sends calls as one request (a batch when batch is set), retrying with backoff.
func (c *Client) send(ctx context.Context, calls []Call, batch bool) ([]Result, error) {
	body, err := encodeRequest(calls, batch)
	if err != nil {
		return nil, c.fail(calls[0].Method, "encode request", err)
	}
	wait := c.cfg.Backoff
	var last *attemptError
	for attempt := 0; attempt <= c.cfg.Retries; attempt++ {
		if attempt > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, c.fail(calls[0].Method, fmt.Sprintf("%s (gave up after %d attempts: %v)", last.reason, attempt, ctx.Err()), ctx.Err())
			}
			wait = min(2*wait, maxBackoff)
		}
		res, aerr := c.attempt(ctx, calls, body, batch)
		if aerr == nil {
			return res, nil
		}
		last = aerr
		if !aerr.retry || ctx.Err() != nil {
			break
		}
		if c.cfg.Logger != nil && attempt < c.cfg.Retries {
			c.cfg.Logger.Warn("upstream request failed; retrying", "url", c.cfg.URL, "method", calls[0].Method,
				"attempt", fmt.Sprintf("%d/%d", attempt+1, c.cfg.Retries+1), "retry_in", wait, "err", aerr.reason)
		}
	}
	reason := last.reason
	if last.retry && c.cfg.Retries > 0 {
		reason = fmt.Sprintf("%s (%d attempts)", reason, c.cfg.Retries+1)
	}
	return nil, c.fail(calls[0].Method, reason, last.err)
}

func (c *Client) fail(method, reason string, err error) *UpstreamError {
	return &UpstreamError{URL: c.cfg.URL, Method: method, Reason: reason, Err: err}
}

// attemptError is one failed attempt: whether it is worth another.
type attemptError struct {
	reason string
	retry  bool
	err    error
}

// attempt sends the request once.
func (c *Client) attempt(ctx context.Context, calls []Call, body []byte, batch bool) (res []Result, aerr *attemptError) {
	start := time.Now()
	defer func() { c.observe(calls, time.Since(start), aerr != nil) }()
	c.requests.Add(1)
	c.calls.Add(int64(len(calls)))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.URL, bytes.NewReader(body))
	if err != nil {
		return nil, &attemptError{reason: err.Error(), err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, &attemptError{reason: err.Error(), retry: true, err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, &attemptError{reason: "read answer: " + err.Error(), retry: true, err: err}
	}
	if len(data) > maxAnswer {
		return nil, &attemptError{reason: fmt.Sprintf("answer larger than %d bytes", maxAnswer)}
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		return nil, &attemptError{reason: "HTTP 429 Too Many Requests", retry: true}
	case resp.StatusCode >= 500:
		return nil, &attemptError{reason: fmt.Sprintf("HTTP %d %s", resp.StatusCode, snippet(data)), retry: true}
	case resp.StatusCode != http.StatusOK:
		// A JSON-RPC server may answer an error object with another status (geth: 413 for
		// a large body); anything else is final.
		if res, aerr := decodeAnswer(data, len(calls), batch); aerr == nil {
			return res, nil
		}
		return nil, &attemptError{reason: fmt.Sprintf("HTTP %d %s", resp.StatusCode, snippet(data))}
	}
	res, aerr = decodeAnswer(data, len(calls), batch)
	if aerr != nil {
		return nil, aerr
	}
	for i, r := range res {
		if r.Err != nil && r.Err.rateLimited() {
			return nil, &attemptError{reason: fmt.Sprintf("%s: rate limited: %s", calls[i].Method, r.Err), retry: true, err: r.Err}
		}
	}
	return res, nil
}

func (c *Client) observe(calls []Call, took time.Duration, failed bool) {
	o := c.cfg.Observer
	if o == nil {
		return
	}
	counts := make(map[string]int, 4)
	for _, call := range calls {
		counts[call.Method]++
	}
	o.UpstreamRequest(counts, calls[0].Method, took, failed)
}

// request is a JSON-RPC request as sent.
type request struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int    `json:"id"`
	Method  string `json:"method"`
	Params  []any  `json:"params"`
}

// response is a JSON-RPC response as received.
type response struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *RPCError       `json:"error"`
}

func encodeRequest(calls []Call, batch bool) ([]byte, error) {
	reqs := make([]request, len(calls))
	for i, call := range calls {
		params := call.Params
		if params == nil {
			params = []any{}
		}
		reqs[i] = request{JSONRPC: "2.0", ID: i, Method: call.Method, Params: params}
	}
	if !batch {
		return json.Marshal(reqs[0])
	}
	return json.Marshal(reqs)
}

// decodeAnswer decodes the answer to n calls: a batch answer (any order, matched by id) or,
// for a single call, one response object. A batch answered with one error object (a
// provider refusing the batch) fails the attempt; rate limits are retried.
func decodeAnswer(data []byte, n int, batch bool) ([]Result, *attemptError) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '{' {
		var r response
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, &attemptError{reason: "undecodable answer: " + snippet(data), err: err}
		}
		if batch {
			if r.Error != nil {
				return nil, &attemptError{reason: "batch refused: " + r.Error.Error(), retry: r.Error.rateLimited(), err: r.Error}
			}
			return nil, &attemptError{reason: "a batch answered with one object: " + snippet(data)}
		}
		return oneResult(r)
	}
	var rs []response
	if err := json.Unmarshal(data, &rs); err != nil {
		return nil, &attemptError{reason: "undecodable answer: " + snippet(data), err: err}
	}
	if len(rs) != n {
		return nil, &attemptError{reason: fmt.Sprintf("%d calls answered with %d responses", n, len(rs))}
	}
	out := make([]Result, n)
	seen := make([]bool, n)
	for _, r := range rs {
		var id int
		if err := json.Unmarshal(r.ID, &id); err != nil || id < 0 || id >= n || seen[id] {
			return nil, &attemptError{reason: fmt.Sprintf("answer with an unknown id %s", r.ID)}
		}
		seen[id] = true
		res, aerr := oneResult(r)
		if aerr != nil {
			return nil, aerr
		}
		out[id] = res[0]
	}
	return out, nil
}

func oneResult(r response) ([]Result, *attemptError) {
	if r.Error != nil {
		return []Result{{Err: r.Error}}, nil
	}
	if r.Result == nil {
		return nil, &attemptError{reason: "a response without result or error"}
	}
	return []Result{{Raw: r.Result}}, nil
}

// snippet returns the start of an answer for an error message.
func snippet(data []byte) string {
	const max = 200
	s := string(bytes.TrimSpace(data))
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// IsUpstream reports whether err is (or wraps) an *UpstreamError.
func IsUpstream(err error) bool {
	var u *UpstreamError
	return errors.As(err, &u)
}
