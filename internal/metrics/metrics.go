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
	m := &Metrics{reg: reg}
	var buildInfo prometheus.Gauge
	register(reg, m.table(&buildInfo))
	buildInfo.Set(1)
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// table is the registration table of the node's metrics; the build information gauge goes
// to buildInfo.
func (m *Metrics) table(buildInfo *prometheus.Gauge) []metric {
	endpointMethod := []string{"endpoint", "method"}
	endpoint := []string{"endpoint"}
	info := buildinfo.Read()
	return []metric{
		{kind: counter, subsystem: "rpc", name: "requests_total", labels: endpointMethod, into: &m.requests,
			help: "JSON-RPC calls answered, by endpoint and method (a batch counts each call; method=\"unknown\": not a method of the endpoint)."},
		{kind: histogram, subsystem: "rpc", name: "request_duration_seconds", labels: endpointMethod, into: &m.duration,
			help: "Time to answer one JSON-RPC call, from dispatch to encoded result, by endpoint and method."},
		{kind: counter, subsystem: "rpc", name: "errors_total", labels: []string{"endpoint", "code"}, into: &m.errors,
			help: "JSON-RPC calls answered with an error, by endpoint and error code."},
		{kind: gauge, subsystem: "ws", name: "connections", labels: endpoint, into: &m.wsConns,
			help: "Open WebSocket connections, by endpoint."},
		{kind: gauge, subsystem: "ws", name: "subscriptions", labels: endpoint, into: &m.subs,
			help: "Active eth_subscribe subscriptions, by endpoint."},
		{kind: counter, subsystem: "ws", name: "slow_consumers_total", labels: endpoint, into: &m.slow,
			help: "WebSocket connections closed as slow consumers (unread backlog over --ws.send-queue-bytes for --ws.slow-consumer-timeout, or at four times it), by endpoint."},
		{kind: counter, subsystem: "chain", name: "head_updates_total", into: &m.blocks,
			help: "Blocks that became the sealed head (sealed by the sequencer, or imported)."},
		{kind: counter, subsystem: "preconf", name: "published_total", into: &m.preconfs,
			help: "Pre-confirmations (flashblocks) published, index 0 included."},
		{kind: histogram, subsystem: "flashblock", name: "build_seconds", into: &m.build,
			help: "Time the sequencer took to build one pre-confirmation: select and execute the pool's transactions and publish them (without the wait for the publication deadline)."},
		{kind: histogram, subsystem: "flashblock", name: "apply_seconds", into: &m.apply,
			help: "Time to apply one pre-confirmation to the block in progress and publish it: assemble the partial block (roots, hash) and its snapshot; in follow mode also re-executing and verifying a received flashblock."},
		{kind: gauge, subsystem: "preconf", name: "index", into: &m.lastIndex,
			help: "Index of the newest pre-confirmation of the block in progress (0 opens a block)."},
		{kind: gauge, name: "build_info", into: buildInfo,
			help:        "Always 1; the labels say which build runs (flashrpc version, commit, op-geth version).",
			constLabels: prometheus.Labels{"version": info.Version, "commit": info.Commit, "modified": boolLabel(info.Modified), "opgeth": info.OPGeth, "goethereum": info.GoEthereum, "goversion": info.Go}},
	}
}

func boolLabel(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
