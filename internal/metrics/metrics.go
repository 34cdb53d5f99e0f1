package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/flashrpc/flashrpc/internal/buildinfo"
)

// namespace prefixes every metric name.
const namespace = "flashrpc"

// Metrics are the node's metrics: requests of both endpoints, the chain, the block in
// progress, the pool. Follow and fork mode add their own ([Follow], [Upstream]).
type Metrics struct {
	reg prometheus.Registerer

	// Requests (rpc.go).
	requests *prometheus.CounterVec   // endpoint, method
	duration *prometheus.HistogramVec // endpoint, method
	errors   *prometheus.CounterVec   // endpoint, code
	wsConns  *prometheus.GaugeVec     // endpoint
	subs     *prometheus.GaugeVec     // endpoint
	slow     *prometheus.CounterVec   // endpoint

	// The node (node.go).
	blocks    prometheus.Counter
	preconfs  prometheus.Counter
	build     prometheus.Histogram
	apply     prometheus.Histogram
	lastIndex prometheus.Gauge
	watched   watched // what the gauges read (node.go)
}

// latencyBuckets are the upper bounds of the request and flashblock histograms, in
// seconds: 50 µs (a cached read) to 10 s (a long eth_getLogs or eth_call).
var latencyBuckets = []float64{0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// New registers the node's metrics with reg, together with Go's runtime and process
// collectors and flashrpc_build_info. It panics when a name is already registered with reg
// (a programming error, as prometheus.MustRegister).
func New(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "rpc", Name: "requests_total",
			Help: "JSON-RPC calls answered, by endpoint and method (a batch counts each call; method=\"unknown\": not a method of the endpoint).",
		}, []string{"endpoint", "method"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Subsystem: "rpc", Name: "request_duration_seconds",
			Help:    "Time to answer one JSON-RPC call, from dispatch to encoded result, by endpoint and method.",
			Buckets: latencyBuckets,
		}, []string{"endpoint", "method"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "rpc", Name: "errors_total",
			Help: "JSON-RPC calls answered with an error, by endpoint and error code.",
		}, []string{"endpoint", "code"}),
		wsConns: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: namespace, Subsystem: "ws", Name: "connections",
			Help: "Open WebSocket connections, by endpoint.",
		}, []string{"endpoint"}),
		subs: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: namespace, Subsystem: "ws", Name: "subscriptions",
			Help: "Active eth_subscribe subscriptions, by endpoint.",
		}, []string{"endpoint"}),
		slow: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "ws", Name: "slow_consumers_total",
			Help: "WebSocket connections closed because they fell behind their send queue (--ws.send-queue, --ws.send-queue-bytes), by endpoint.",
		}, []string{"endpoint"}),
		blocks: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "chain", Name: "head_updates_total",
			Help: "Blocks that became the sealed head (sealed by the sequencer, or imported).",
		}),
		preconfs: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "preconf", Name: "published_total",
			Help: "Pre-confirmations (flashblocks) published, index 0 included.",
		}),
		build: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: namespace, Subsystem: "flashblock", Name: "build_seconds",
			Help:    "Time the sequencer took to build one pre-confirmation: select and execute the pool's transactions and publish them (without the wait for the publication deadline).",
			Buckets: latencyBuckets,
		}),
		apply: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: namespace, Subsystem: "flashblock", Name: "apply_seconds",
			Help:    "Time to apply one pre-confirmation to the block in progress and publish it: assemble the partial block (roots, hash) and its snapshot; in follow mode also re-executing and verifying a received flashblock.",
			Buckets: latencyBuckets,
		}),
		lastIndex: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: namespace, Subsystem: "preconf", Name: "index",
			Help: "Index of the newest pre-confirmation of the block in progress (0 opens a block).",
		}),
	}
	info := buildinfo.Read()
	buildInfo := prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: namespace, Name: "build_info",
		Help:        "Always 1; the labels say which build runs (flashrpc version, commit, op-geth version).",
		ConstLabels: prometheus.Labels{"version": info.Version, "commit": info.Commit, "modified": boolLabel(info.Modified), "opgeth": info.OPGeth, "goethereum": info.GoEthereum, "goversion": info.Go},
	})
	buildInfo.Set(1)
	reg.MustRegister(m.requests, m.duration, m.errors, m.wsConns, m.subs, m.slow,
		m.blocks, m.preconfs, m.build, m.apply, m.lastIndex, buildInfo,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func boolLabel(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
