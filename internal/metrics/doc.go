// Package metrics holds flashrpc's Prometheus metrics (prometheus/client_golang). Every name
// starts with flashrpc_; docs/operations.md lists them, and deploy/grafana/flashrpc.json is a
// dashboard over them.
//
// Nothing is package-level: [New] registers the node's metrics with the registry
// internal/node passes in, and the follow and fork modes register theirs with [NewFollow] and
// [NewUpstream] when they run. Each subsystem's metrics are written once, as a table of rows
// (name, help, labels, kind and the field that holds the metric): the node's (metrics.go),
// the gauges read from the chain, the block in progress and the pool (node.go), a replica's
// (follow.go) and the upstream's (upstream.go). One function, register (register.go), makes
// and registers the rows of a table. It imports chain, preconf and txpool to read them;
// nothing in flashrpc imports it but internal/node and internal/follow.
//
// Cost: the request path of internal/rpc reaches an [rpc.CallObserver] resolved when the server
// was built (one per method and endpoint, label children included), so a call costs two
// clock reads, a counter increment and a histogram observation: no map lookup, formatting or
// allocation. Values that exist anyway (the sealed head, the pool's size, the age of the
// last pre-confirmation) are read when Prometheus scrapes, not kept up to date.
//
// All types are safe for concurrent use.
//
// Imports: prometheus/client_golang, and chain, preconf, txpool (read by the gauges), rpc
// (the observer it implements) and buildinfo. The code that assembles a node and
// internal/follow (which feeds [Follow]) import it.
package metrics
