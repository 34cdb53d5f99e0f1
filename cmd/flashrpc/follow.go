package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/core"

	"github.com/flashrpc/flashrpc/internal/api"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/flashblocks"
	"github.com/flashrpc/flashrpc/internal/follow"
	"github.com/flashrpc/flashrpc/internal/fork"
	"github.com/flashrpc/flashrpc/internal/health"
	"github.com/flashrpc/flashrpc/internal/logs"
	"github.com/flashrpc/flashrpc/internal/metrics"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/remote"
)

// defaultMaxLag is --health.max-lag's default (decisions.md "Follow mode").
const defaultMaxLag = 2

// followOptions are the follow command's flags.
type followOptions struct {
	serverFlags
	upstream   string
	upstreamWS string
	feedURL    string
	genesis    string
	sequencer  string
	state      string
	maxLag     uint64
	poll       time.Duration
	feed       feedFlags // feed.go: the republished feed
}

func followFlags(out io.Writer) (*flag.FlagSet, *followOptions) {
	o := new(followOptions)
	fs := flag.NewFlagSet("flashrpc follow", flag.ContinueOnError)
	fs.SetOutput(out)
	o.register(fs, "directory that keeps the replica's chain across restarts (default: a temporary directory removed on exit)")
	fs.StringVar(&o.upstream, "upstream", "", "JSON-RPC URL (HTTP) of a node of the chain to follow: whole blocks are fetched from it (required)")
	fs.StringVar(&o.upstreamWS, "upstream.ws", "", "WebSocket URL whose newHeads subscription announces the upstream's blocks (default: --upstream with the ws scheme; off: poll only); where it fails the head is polled every --upstream.poll")
	fs.StringVar(&o.feedURL, "feed", "", "WebSocket URL of the sequencer's flashblocks feed (FlashblocksPayloadV1, JSON or brotli); without it pending is the sealed head")
	fs.StringVar(&o.genesis, "genesis", "", "genesis file of the chain (flashrpc dev writes <datadir>/genesis.json); required unless --datadir holds the chain already")
	fs.StringVar(&o.sequencer, "sequencer", "", "JSON-RPC URL eth_sendRawTransaction and eth_sendRawTransactionSync are forwarded to (default: --upstream)")
	fs.StringVar(&o.state, "state", "local", "where state comes from: local (every block replayed from genesis, needs --genesis) or remote (read from the upstream at each sealed block, for chains too large to replay; docs/deploy.md)")
	fs.Uint64Var(&o.maxLag, "health.max-lag", defaultMaxLag, "blocks the replica may be behind its upstream before GET /health answers 503")
	fs.DurationVar(&o.poll, "upstream.poll", follow.DefaultPollInterval, "how often the upstream's head is asked for when it cannot be subscribed to")
	o.feed.register(fs)
	fs.Usage = func() {
		fmt.Fprintf(out, "Usage: flashrpc follow --upstream URL [--feed WSURL] [--genesis FILE | --state remote] [--sequencer URL] [flags]\n\nRuns a replica: sealed blocks from the upstream, each executed and checked against its header's\nroots before it is served; pre-confirmations from the feed, each re-executed and served only when\nit gives what the sequencer published; transactions forwarded to the sequencer. The verified feed\nis published again on --feed.port. With --state remote the state is read from the upstream at each\nsealed block instead (no genesis, no replay; docs/deploy.md says what is then verified).\n\nFlags:\n")
		fs.PrintDefaults()
	}
	return fs, o
}

// runFollow runs a replica until SIGINT or SIGTERM.
func runFollow(args []string, stdout, stderr io.Writer) error {
	fs, o := followFlags(helpOutput(args, stdout, stderr))
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "flashrpc follow: unexpected argument %q\n", fs.Arg(0))
		return errUsage
	}
	if o.upstream == "" {
		fmt.Fprintln(stderr, "flashrpc follow: --upstream is required")
		return errUsage
	}
	switch {
	case o.state != "local" && o.state != "remote":
		fmt.Fprintf(stderr, "flashrpc follow: --state %q: want local or remote\n", o.state)
		return errUsage
	case o.state == "remote" && o.genesis != "":
		fmt.Fprintln(stderr, "flashrpc follow: --genesis does not apply with --state remote: the state is the upstream's")
		return errUsage
	}
	if err := o.check(); err != nil {
		return err
	}
	logger, err := o.logger(stderr)
	if err != nil {
		return err
	}
	n, err := startFollow(o, logger)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "flashrpc replica of %s (chain id %d, head block %d)\n", o.upstream, n.chain.Config().ChainID, n.chain.Head().Number)
	for _, ep := range n.endpoints {
		fmt.Fprintf(stdout, "  %-14s %s\n", ep.name, ep.url())
	}
	if n.feed != nil {
		fmt.Fprintf(stdout, "  %-14s %s  (verified flashblocks, %s)\n", "feed", n.feed.url(), n.feed.encoding())
	}
	if u := n.ops.metricsURL(); u != "" {
		fmt.Fprintf(stdout, "  %-14s %s\n", "metrics", u)
	}
	err = serveUntilSignal(logger, n.endpoints)
	if cerr := n.close(); cerr != nil {
		return errors.Join(err, fmt.Errorf("close chain: %w", cerr))
	}
	logger.Info("stopped", "head", n.chain.Head().Number.Uint64())
	return err
}

// followNode is a running replica.
type followNode struct {
	chain     *chain.Chain
	logs      *logs.Index
	pre       *preconf.Preconf
	follower  *follow.Follower
	endpoints []*endpoint
	feed      *feed
	ops       *ops
}

// startFollow opens the replica's chain, starts following and opens both endpoints' sockets.
func startFollow(o *followOptions, logger *slog.Logger) (n *followNode, err error) {
	n = &followNode{}
	var closers []func()
	defer func() {
		if err != nil {
			for i := len(closers) - 1; i >= 0; i-- {
				closers[i]()
			}
		}
	}()
	if n.ops, err = o.startOps(logger); err != nil {
		return nil, err
	}
	closers = append(closers, n.ops.close)
	var obs remote.Observer // --state remote: the upstream state reads, in the metrics
	if n.ops.reg != nil && o.state == "remote" {
		obs = newUpstreamObserver(metrics.NewUpstream(n.ops.reg))
	}
	if n.chain, err = openFollowChain(o, obs, logger); err != nil {
		return nil, err
	}
	closers = append(closers, func() { n.chain.Close() })
	n.pre = preconf.New(n.chain)
	var fm *metrics.Follow
	if m := n.ops.metrics; m != nil {
		m.WatchChain(n.chain)
		m.WatchPreconf(n.pre)
		fm = metrics.NewFollow(n.ops.reg)
	}
	if n.follower, err = follow.New(follow.Config{
		Upstream: o.upstream, UpstreamWS: o.upstreamWS, Feed: o.feedURL, Sequencer: o.sequencer, PollInterval: o.poll,
		Logger: logger.With("component", "follow"), Metrics: fm,
		// The verified feed is published again as the upstream sent it (n.feed is set below,
		// before Start).
		Verified: func(p *flashblocks.Payload, text []byte) { n.feed.republish(p, text) },
	}, n.chain, n.pre); err != nil {
		return nil, err
	}
	probes := []health.Probe{health.Head(n.chain), health.Pending(n.pre), health.Upstream(n.follower.UpstreamHead)}
	if o.feedURL != "" {
		probes = append(probes, health.Feed(n.follower.FeedConnected))
	}
	n.ops.health.Store(health.New(health.Config{Probes: probes, Rules: []health.Rule{health.MaxLag(o.maxLag), health.FeedConnected()}}))
	if n.logs, err = openLogIndex(&o.serverFlags, n.chain, logger); err != nil {
		return nil, err
	}
	closers = append(closers, func() { n.logs.Close() })
	backend := o.backend(n.chain)
	backend.Preconf, backend.Logs, backend.Forward = n.pre, n.logs, n.follower
	if n.endpoints, err = listen(&o.serverFlags, n.ops, api.New(o.apiConfig(false, logger), backend), api.New(o.apiConfig(true, logger), backend)); err != nil {
		return nil, err
	}
	closers = append(closers, func() {
		for _, ep := range n.endpoints {
			ep.ln.Close()
		}
	})
	if n.feed, err = startFeed(&o.feed, nil, logger); err != nil {
		return nil, err
	}
	closers = append(closers, n.feed.close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := n.follower.Start(ctx); err != nil {
		return nil, err
	}
	return n, nil
}

// close stops following and closes the chain. The endpoints must be shut down first.
func (n *followNode) close() error {
	n.follower.Close()
	n.feed.close()
	n.logs.Close()
	err := n.chain.Close()
	n.ops.close()
	return err
}

// openFollowChain opens the replica's chain: the one stored in --datadir, or a new one from
// --genesis (which must then match a stored one). With --state remote it is a fork of the
// upstream at its head that follows it without executing its blocks (fork.Config.Replica),
// created in --datadir or resumed from it; obs (nil: none) is told of its upstream requests.
func openFollowChain(o *followOptions, obs remote.Observer, logger *slog.Logger) (*chain.Chain, error) {
	if o.state == "remote" {
		return fork.Open(context.Background(), chain.Config{DataDir: o.dataDir, CacheMB: o.dbCache, Logger: logger}, &fork.Config{
			URL: o.upstream, Retries: remote.DefaultRetries, Backoff: remote.DefaultBackoff, Replica: true, Observer: obs,
		})
	}
	var g *core.Genesis
	if o.genesis != "" {
		data, err := os.ReadFile(o.genesis)
		if err != nil {
			return nil, fmt.Errorf("--genesis: %w", err)
		}
		g = new(core.Genesis)
		if err := json.Unmarshal(data, g); err != nil {
			return nil, fmt.Errorf("--genesis %s: %w", o.genesis, err)
		}
	}
	c, err := fork.Open(context.Background(), chain.Config{DataDir: o.dataDir, Genesis: g, CacheMB: o.dbCache, Logger: logger}, nil)
	if errors.Is(err, chain.ErrNoChain) || (err != nil && g == nil && strings.Contains(err.Error(), "no chain")) {
		return nil, errors.New("the replica needs the chain's genesis: give --genesis FILE (flashrpc dev writes <datadir>/genesis.json), or --state remote to read the state from the upstream")
	}
	if err == nil && fork.Of(c) != nil {
		err = fmt.Errorf("--datadir %s holds a fork (of %s), not a replica with local state: use another datadir, or --state remote for a remote-state replica's", o.dataDir, fork.Of(c).Info().URL)
		return nil, errors.Join(err, c.Close())
	}
	return c, err
}
