// Package metrics holds flashrpc's Prometheus metrics (prometheus/client_golang). Every name
// starts with flashrpc_; docs/operations.md lists them, and deploy/grafana/flashrpc.json is a
// dashboard over them.
//
// Nothing is package-level: [New] registers the node's metrics with the registry
// internal/node passes in, and the follow and fork modes register theirs with [NewFollow] and
// [NewUpstream] when they run. It imports chain, preconf and txpool to read them; nothing in
// flashrpc imports it but internal/node and internal/follow.
//
// Cost: the request path of internal/rpc reaches a [CallObserver] resolved when the server
// was built (one per method and endpoint, label children included), so a call costs two
// clock reads, a counter increment and a histogram observation: no map lookup, formatting or
// allocation. Values that exist anyway (the sealed head, the pool's size, the age of the
// last pre-confirmation) are read when Prometheus scrapes, not kept up to date.
//
// All types are safe for concurrent use.
package metrics
