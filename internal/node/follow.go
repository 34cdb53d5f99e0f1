package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/api"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/flashblocks"
	"github.com/flashrpc/flashrpc/internal/follow"
	"github.com/flashrpc/flashrpc/internal/fork"
	"github.com/flashrpc/flashrpc/internal/health"
	"github.com/flashrpc/flashrpc/internal/logs"
	"github.com/flashrpc/flashrpc/internal/metrics"
	"github.com/flashrpc/flashrpc/internal/networks"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/remote"
)

// followStartTimeout bounds the follower's start (its first contact with the upstream).
const followStartTimeout = 30 * time.Second

// Follow is a running replica: its chain, the follower that keeps it in step with the
// upstream, both endpoints (listening, not yet serving) and the republished feed.
type Follow struct {
	chain     *chain.Chain
	logs      *logs.Index
	pre       *preconf.Preconf
	follower  *follow.Follower
	endpoints Endpoints
	feed      *feed
	ops       *ops
	stack     closers
}

// StartFollow opens the replica's chain, starts following and opens both endpoints'
// sockets. A failure undoes what was started and returns the error.
func StartFollow(cfg FollowConfig) (_ *Follow, err error) {
	logger := cfg.Logger
	if logger == nil {
		logger = discard
	}
	n := new(Follow)
	defer n.stack.unwindOnError(&err)
	if n.ops, err = startOps(&cfg.Server, logger); err != nil {
		return nil, err
	}
	n.stack.push(n.ops.close)
	var obs remote.Observer // a remote-state replica's upstream state reads, in the metrics
	if cfg.RemoteState {
		if m := n.ops.upstream(); m != nil {
			obs = newUpstreamObserver(m)
		}
	}
	if n.chain, err = openFollowChain(&cfg, obs, logger); err != nil {
		return nil, err
	}
	n.stack.push(func() error { return closeChain(n.chain) })
	n.pre = preconf.New(n.chain)
	var fm *metrics.Follow
	if m := n.ops.metrics; m != nil {
		m.WatchChain(n.chain)
		m.WatchPreconf(n.pre)
		fm = metrics.NewFollow(n.ops.reg)
	}
	if n.follower, err = follow.New(follow.Config{
		Upstream: cfg.Upstream, UpstreamWS: cfg.UpstreamWS, Feed: cfg.FeedURL, Sequencer: cfg.Sequencer, PollInterval: cfg.Poll,
		Logger: logger.With("component", "follow"), Metrics: fm,
		// The verified feed is published again as the upstream sent it (n.feed is set below,
		// before Start).
		Verified: func(p *flashblocks.Payload, text []byte) { n.feed.republish(p, text) },
	}, n.chain, n.pre); err != nil {
		return nil, err
	}
	probes := []health.Probe{health.Head(n.chain), health.Pending(n.pre), health.Upstream(n.follower.UpstreamHead)}
	if cfg.FeedURL != "" {
		probes = append(probes, health.Feed(n.follower.FeedConnected))
	}
	n.ops.health.Store(health.New(health.Config{Probes: probes, Rules: []health.Rule{health.MaxLag(cfg.MaxLag), health.FeedConnected()}}))
	if n.logs, err = openLogIndex(cfg.LogsIndex, n.chain, logger); err != nil {
		return nil, err
	}
	n.stack.push(n.logs.Close)
	backend := backendOf(&cfg.Server, n.chain)
	backend.Preconf, backend.Logs, backend.Forward = n.pre, n.logs, n.follower
	std, pre := apiConfig(&cfg.Server, false, logger), apiConfig(&cfg.Server, true, logger)
	if n.endpoints, err = listen(&cfg.Server, n.ops, api.New(std, backend).Service(), api.New(pre, backend).Service()); err != nil {
		return nil, err
	}
	n.stack.push(n.endpoints.closeListeners)
	if n.feed, err = startFeed(cfg.Feed, logger); err != nil {
		return nil, err
	}
	n.stack.push(n.feed.close)
	n.stack.push(n.follower.Close)
	ctx, cancel := context.WithTimeout(context.Background(), followStartTimeout)
	defer cancel()
	if err := n.follower.Start(ctx); err != nil {
		return nil, err
	}
	return n, nil
}

// openFollowChain opens the replica's chain: the one stored in cfg.DataDir, or a new one
// from cfg.Genesis (which must then match a stored one). With cfg.RemoteState it is a fork of
// the upstream at its head that follows it without executing its blocks
// (fork.Config.Replica), created in the datadir or resumed from it; obs (nil: none) is
// told of its upstream requests.
func openFollowChain(cfg *FollowConfig, obs remote.Observer, logger *slog.Logger) (*chain.Chain, error) {
	if cfg.RemoteState {
		return fork.Open(context.Background(), chain.Config{DataDir: cfg.DataDir, CacheMB: cfg.DBCacheMB, StateCacheMB: cfg.StateCacheMB, Logger: logger}, &fork.Config{
			URL: cfg.Upstream, Retries: remote.DefaultRetries, Backoff: remote.DefaultBackoff, Replica: true, Observer: obs,
			Network: cfg.Network,
		})
	}
	var g *core.Genesis
	var denim *uint64
	if cfg.Genesis != "" {
		var err error
		if g, denim, err = readGenesisFile(cfg.Genesis); err != nil { // genesisfile.go
			return nil, fmt.Errorf("--genesis: %w", err)
		}
	}
	c, err := fork.Open(context.Background(), chain.Config{DataDir: cfg.DataDir, Genesis: g, Denim: denim, CacheMB: cfg.DBCacheMB, StateCacheMB: cfg.StateCacheMB, Logger: logger, StateScheme: cfg.StateScheme, StateHistory: cfg.StateHistory}, nil)
	if errors.Is(err, chain.ErrNoChain) {
		return nil, errors.New("the replica needs the chain's genesis: give --genesis FILE (flashrpc dev writes <datadir>/genesis.json), or --state remote to read the state from the upstream")
	}
	if err != nil {
		return nil, err
	}
	if f := fork.Of(c); f != nil {
		err = fmt.Errorf("--datadir %s holds a fork (of %s), not a replica with local state: use another datadir, or --state remote for a remote-state replica's", cfg.DataDir, f.Info().URL)
		return nil, errors.Join(err, c.Close())
	}
	if cfg.Network != "" {
		if err = checkNetwork(c.Config(), cfg.Network); err != nil {
			return nil, errors.Join(err, c.Close())
		}
	}
	return c, nil
}

// checkNetwork refuses a replica's --network that disagrees with its chain's configuration
// (its genesis decides): another network's chain id, or for a chain id that is no network's,
// other rules than the network's (networks.Network.Agrees).
func checkNetwork(cfg *params.ChainConfig, name string) error {
	nw, known, err := networks.ForUpstream(cfg.ChainID.Uint64(), name)
	if err != nil {
		if _, ok := networks.LookupName(name); !ok {
			return networks.UnknownNameError(name)
		}
		return fmt.Errorf("the replica's genesis: %w", err)
	}
	if _, upKnown := networks.Lookup(cfg.ChainID.Uint64()); known && !upKnown {
		if err := nw.Agrees(cfg); err != nil {
			return fmt.Errorf("the replica's genesis (chain id %s) does not have %s's rules: %w", cfg.ChainID, nw.ID, err)
		}
	}
	return nil
}

// Chain returns the replica's chain.
func (n *Follow) Chain() *chain.Chain { return n.chain }

// Follower returns the follower that keeps the chain in step with the upstream.
func (n *Follow) Follower() *follow.Follower { return n.follower }

// Endpoints returns the standard and pre-confirmed endpoints.
func (n *Follow) Endpoints() Endpoints { return n.endpoints }

// Feed describes the republished feed; nil without one.
func (n *Follow) Feed() *FeedInfo { return n.feed.info() }

// MetricsURL returns the URL of GET /metrics, "" without metrics.
func (n *Follow) MetricsURL() string { return n.ops.metricsURL() }

// Close stops following, the feed and the metrics, closes the endpoints' sockets, the log
// index and the chain, and returns every error. Shut the endpoints down first when they were
// served. A second call does nothing.
func (n *Follow) Close() error { return n.stack.close() }

// Preconf returns the replica's block in progress.
func (n *Follow) Preconf() *preconf.Preconf { return n.pre }
