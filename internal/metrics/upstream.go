package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Upstream are the metrics of the reads a node sends to an upstream JSON-RPC (fork mode,
// and replicas with --state remote) and of the cache in front of them. The mode that reads
// registers them with [NewUpstream] and resolves a [UpstreamMethod] per method it calls
// and a [Cache] per kind of thing it caches, once, at start.
type Upstream struct {
	requests *prometheus.CounterVec   // method
	duration *prometheus.HistogramVec // method
	errors   *prometheus.CounterVec   // method
	hits     *prometheus.CounterVec   // kind
	misses   *prometheus.CounterVec   // kind
}

// NewUpstream registers the upstream metrics with reg.
func NewUpstream(reg prometheus.Registerer) *Upstream {
	u := &Upstream{}
	register(reg, u.table())
	return u
}

// table is the registration table of the upstream metrics.
func (u *Upstream) table() []metric {
	byMethod, byKind := []string{"method"}, []string{"kind"}
	return []metric{
		{kind: counter, subsystem: "upstream", name: "requests_total", labels: byMethod, into: &u.requests,
			help: "Calls sent to the upstream JSON-RPC, by method (a batch counts each call)."},
		{kind: histogram, subsystem: "upstream", name: "request_duration_seconds", labels: byMethod, into: &u.duration,
			help: "Time the upstream took to answer, by method (a batch is observed once, under its first method)."},
		{kind: counter, subsystem: "upstream", name: "errors_total", labels: byMethod, into: &u.errors,
			help: "Upstream calls that failed (transport error or JSON-RPC error), by method."},
		{kind: counter, subsystem: "upstream", name: "cache_hits_total", labels: byKind, into: &u.hits,
			help: "Reads answered from the upstream cache in the datadir, by kind (account, storage, code, block, ...)."},
		{kind: counter, subsystem: "upstream", name: "cache_misses_total", labels: byKind, into: &u.misses,
			help: "Reads the cache could not answer, sent to the upstream, by kind."},
	}
}

// UpstreamMethod observes the calls of one upstream method.
type UpstreamMethod struct {
	requests prometheus.Counter
	duration prometheus.Observer
	errors   prometheus.Counter
}

// Method returns the observer of upstream calls of method; resolve it once, at start.
func (u *Upstream) Method(method string) *UpstreamMethod {
	return &UpstreamMethod{
		requests: u.requests.WithLabelValues(method),
		duration: u.duration.WithLabelValues(method),
		errors:   u.errors.WithLabelValues(method),
	}
}

// Observe records n calls of the method answered in d, and whether they failed.
func (m *UpstreamMethod) Observe(n int, d time.Duration, failed bool) {
	m.requests.Add(float64(n))
	m.duration.Observe(d.Seconds())
	if failed {
		m.errors.Inc()
	}
}

// Count records n calls of the method sent in a request observed under another method (a
// batch's duration is observed once, under its first method), and whether it failed.
func (m *UpstreamMethod) Count(n int, failed bool) {
	m.requests.Add(float64(n))
	if failed {
		m.errors.Inc()
	}
}

// Cache counts the hits and misses of one kind of cached read.
type Cache struct {
	hits, misses prometheus.Counter
}

// Cache returns the counters of one kind of cached read; resolve it once, at start.
func (u *Upstream) Cache(kind string) *Cache {
	return &Cache{hits: u.hits.WithLabelValues(kind), misses: u.misses.WithLabelValues(kind)}
}

// Hit counts a read the cache answered.
func (c *Cache) Hit() { c.hits.Inc() }

// Miss counts a read sent to the upstream.
func (c *Cache) Miss() { c.misses.Inc() }
