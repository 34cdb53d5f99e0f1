package events

import (
	"time"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/logs"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// Defaults of Config's eth_getLogs limits, go-ethereum's where it has one.
const (
	DefaultLogsMaxResult = 10_000
	DefaultLogsMaxRange  = 1_000_000
	DefaultLogsTimeout   = 10 * time.Second
)

// Config is the events' part of an endpoint's configuration (api.Config, where each field is
// described).
type Config struct {
	// LogsMaxResults is the most logs eth_getLogs returns; zero means DefaultLogsMaxResult.
	LogsMaxResults int
	// LogsMaxRange is the widest block range eth_getLogs accepts; zero means
	// DefaultLogsMaxRange.
	LogsMaxRange uint64
	// LogsTimeout bounds one eth_getLogs; zero means DefaultLogsTimeout.
	LogsTimeout time.Duration
	// FilterTimeout is how long a polling filter lives without being polled; zero means
	// DefaultFilterTimeout.
	FilterTimeout time.Duration
	// FilterMaxBytes bounds the changes one polling filter holds between polls; zero means
	// DefaultFilterMaxBytes.
	FilterMaxBytes int
	// Now is the clock filter expiry reads; nil means time.Now.
	Now func() time.Time
}

// Backend is what the events read and drive beyond the Core.
type Backend struct {
	// Logs is the log index behind eth_getLogs; nil makes every query scan.
	Logs *logs.Index
	// Filters bounds the polling filters of the node, shared by both endpoints; nil gives
	// the endpoint its own, of DefaultFiltersMax.
	Filters *FilterSlots
	// Forward, when set, takes the signed transactions of eth_sendRawTransaction and its
	// Sync variant instead of the pool (forward.go).
	Forward Forwarder
}

// API holds the events of one endpoint (logs, polling filters, subscriptions) and the sends,
// whose Sync variant waits on the endpoint's streams. It is safe for concurrent use.
type API struct {
	*core.Core
	cfg     Config
	index   *logs.Index
	fwd     Forwarder    // nil: transactions go to the pool
	streams *streams     // subscriptions and sync-send waits (streams.go)
	filters *filterTable // polling filters (filters.go)
}

// New returns the events of the endpoint c and connects them to its writers (streams.go).
func New(c *core.Core, cfg Config, b Backend) *API {
	if cfg.LogsMaxResults == 0 {
		cfg.LogsMaxResults = DefaultLogsMaxResult
	}
	if cfg.LogsMaxRange == 0 {
		cfg.LogsMaxRange = DefaultLogsMaxRange
	}
	if cfg.LogsTimeout == 0 {
		cfg.LogsTimeout = DefaultLogsTimeout
	}
	a := &API{Core: c, cfg: cfg, index: b.Logs, fwd: b.Forward}
	a.filters = newFilterTable(cfg, b.Filters)
	a.startStreams()
	return a
}

// Subscriptions adds the endpoint's subscription kinds to kinds (subscriptions.go).
func (a *API) Subscriptions(kinds map[string]rpc.SubscribeFunc) { a.streams.register(kinds) }
