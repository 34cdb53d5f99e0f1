package metrics

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/flashrpc/flashrpc/internal/rpc"
)

// Endpoint observes one endpoint's server; it implements [rpc.Observer].
type Endpoint struct {
	m       *Metrics
	name    string
	wsConns prometheus.Gauge
	subs    prometheus.Gauge
	slow    prometheus.Counter
	errors  *errorCounters
}

var _ rpc.Observer = (*Endpoint)(nil)

// Endpoint returns the observer of the endpoint called name ("standard", "pre-confirmed"),
// for rpc.Config.Observer.
func (m *Metrics) Endpoint(name string) *Endpoint {
	return &Endpoint{
		m:       m,
		name:    name,
		wsConns: m.wsConns.WithLabelValues(name),
		subs:    m.subs.WithLabelValues(name),
		slow:    m.slow.WithLabelValues(name),
		errors:  newErrorCounters(m.errors, name),
	}
}

// Method implements rpc.Observer: the counters of one method, whose series appear at its
// first call, so that a node exports series for the methods called, not for every method it
// has (a histogram each: thousands of series on a fresh node). Calls of methods the endpoint
// does not have ("") are counted as method="unknown", so that clients cannot grow the label
// set.
func (e *Endpoint) Method(name string) rpc.CallObserver {
	if name == "" {
		name = "unknown"
	}
	return &call{endpoint: e, method: name, errors: e.errors}
}

// WebSocketConns implements rpc.Observer.
func (e *Endpoint) WebSocketConns(delta int) { e.wsConns.Add(float64(delta)) }

// Subscriptions implements rpc.Observer.
func (e *Endpoint) Subscriptions(delta int) { e.subs.Add(float64(delta)) }

// SlowConsumer implements rpc.Observer.
func (e *Endpoint) SlowConsumer() { e.slow.Inc() }

// call observes one method of one endpoint; its series are resolved at the first call.
type call struct {
	endpoint *Endpoint
	method   string
	errors   *errorCounters

	once     sync.Once
	requests prometheus.Counter  // set by once
	duration prometheus.Observer // set by once
}

// ObserveCall implements rpc.CallObserver.
func (c *call) ObserveCall(d time.Duration, code int) {
	c.once.Do(func() {
		c.requests = c.endpoint.m.requests.WithLabelValues(c.endpoint.name, c.method)
		c.duration = c.endpoint.m.duration.WithLabelValues(c.endpoint.name, c.method)
	})
	c.requests.Inc()
	c.duration.Observe(d.Seconds())
	if code != 0 {
		c.errors.inc(code)
	}
}

// knownCodes are the error codes flashrpc answers with (internal/rpc/errors.go), most
// frequent first; their counters are resolved at their first error.
var knownCodes = []int{
	rpc.CodeReverted, rpc.CodeInvalidParams, rpc.CodeServer, rpc.CodeMethodNotFound,
	rpc.CodeLimitExceeded, rpc.CodeTimeout, rpc.CodeInvalidRequest, rpc.CodeParseError,
	rpc.CodeInternal, rpc.CodeResponseTooLarge, rpc.CodeTxSyncTimeout, rpc.CodeVMError,
	rpc.CodeNonceTooLow, rpc.CodeNonceTooHigh, rpc.CodeFeeCapTooLow, rpc.CodeIntrinsicGas,
	rpc.CodeInsufficientFunds, rpc.CodeBlockGasLimit, rpc.CodeBlockNumberOrder,
	rpc.CodeBlockTimestampOrder, rpc.CodeMovePrecompileSelf, rpc.CodeMovePrecompileDup,
	rpc.CodeSenderNotEOA, rpc.CodeMaxInitCode, rpc.CodeClientLimit,
}

// errorCounters are one endpoint's error counters by code.
type errorCounters struct {
	vec      *prometheus.CounterVec
	endpoint string
	known    []atomic.Pointer[prometheus.Counter] // known[i] counts knownCodes[i] once resolved

	mu    sync.Mutex
	other map[int]prometheus.Counter // codes not in knownCodes; guarded by mu
}

func newErrorCounters(vec *prometheus.CounterVec, endpoint string) *errorCounters {
	return &errorCounters{vec: vec, endpoint: endpoint, known: make([]atomic.Pointer[prometheus.Counter], len(knownCodes)), other: make(map[int]prometheus.Counter)}
}

// inc counts one error with code: a short scan of the known codes (errors only), then,
// for a code flashrpc does not define, a locked lookup. A code's series appears at its first
// error.
func (ec *errorCounters) inc(code int) {
	for i, k := range knownCodes {
		if k == code {
			c := ec.known[i].Load()
			if c == nil {
				v := ec.vec.WithLabelValues(ec.endpoint, strconv.Itoa(code)) // the same child for racing callers
				c = &v
				ec.known[i].Store(c)
			}
			(*c).Inc()
			return
		}
	}
	ec.mu.Lock()
	c := ec.other[code]
	if c == nil {
		c = ec.vec.WithLabelValues(ec.endpoint, strconv.Itoa(code))
		ec.other[code] = c
	}
	ec.mu.Unlock()
	c.Inc()
}
