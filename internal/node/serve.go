package node

import (
	"context"
	"log/slog"

	"github.com/flashrpc/flashrpc/internal/api"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/exec"
	"github.com/flashrpc/flashrpc/internal/fork"
	"github.com/flashrpc/flashrpc/internal/health"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// Serve is a running node that serves a stored chain without a sequencer: nothing is
// pre-confirmed, so the pending tag is the next block as forecast on both endpoints.
type Serve struct {
	chain     *chain.Chain
	endpoints Endpoints
	ops       *ops
	stack     closers
}

// StartServe opens the chain stored in cfg.DataDir, its log index and the metrics, and opens
// both endpoints' sockets. A failure undoes what was started and returns the error.
func StartServe(cfg Server) (_ *Serve, err error) {
	logger := cfg.Logger
	if logger == nil {
		logger = discard
	}
	n := new(Serve)
	defer n.stack.unwindOnError(&err)
	if n.ops, err = startOps(&cfg, logger); err != nil {
		return nil, err
	}
	n.stack.push(n.ops.close)
	if n.chain, err = fork.Open(context.Background(), chain.Config{DataDir: cfg.DataDir, CacheMB: cfg.DBCacheMB, StateCacheMB: cfg.StateCacheMB, Logger: logger}, nil); err != nil {
		return nil, err
	}
	n.stack.push(func() error { return closeChain(n.chain) })
	// Nothing to fall behind: a stored chain is fit to serve while it is open.
	n.ops.health.Store(health.New(health.Config{Probes: []health.Probe{health.Head(n.chain)}}))
	ix, err := openLogIndex(cfg.LogsIndex, n.chain, logger)
	if err != nil {
		return nil, err
	}
	n.stack.push(ix.Close)
	backend := backendOf(&cfg, n.chain)
	backend.Logs = ix
	if m := n.ops.metrics; m != nil {
		m.WatchChain(n.chain)
		m.WatchPool(backend.Pool)
	}
	std, pre := apiConfig(&cfg, false, logger), apiConfig(&cfg, true, logger)
	if n.endpoints, err = listen(&cfg, n.ops, api.New(std, backend).Service(), api.New(pre, backend).Service()); err != nil {
		return nil, err
	}
	n.stack.push(n.endpoints.closeListeners)
	return n, nil
}

// backendOf returns the parts of an api.Backend the configuration decides: the pool, and the
// EVM limiter and filter slots both endpoints share; on a fork, its routing to the upstream
// too.
func backendOf(cfg *Server, c *chain.Chain) api.Backend {
	return api.Backend{
		Chain: c,
		Pool:  txpool.New(c.Config(), cfg.TxPool),
		EVM:   exec.NewLimiter(cfg.EVMConcurrency, cfg.EVMQueue),
		// Filters are per endpoint, their number per node.
		Filters:  api.NewFilterSlots(cfg.FiltersMax),
		Upstream: fork.NewAPI(c),
	}
}

// apiConfig returns the API configuration of the standard or pre-confirmed endpoint.
func apiConfig(cfg *Server, pending bool, logger *slog.Logger) api.Config {
	c := cfg.API
	c.Pending, c.Logger = pending, logger
	return c
}

// Chain returns the chain served.
func (n *Serve) Chain() *chain.Chain { return n.chain }

// Endpoints returns the standard and pre-confirmed endpoints.
func (n *Serve) Endpoints() Endpoints { return n.endpoints }

// MetricsURL returns the URL of GET /metrics, "" without metrics.
func (n *Serve) MetricsURL() string { return n.ops.metricsURL() }

// Close closes the endpoints' sockets, the log index, the chain and the metrics listener,
// and returns every error. Shut the endpoints down first when they were served.
func (n *Serve) Close() error { return n.stack.close() }
