package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/flashrpc/flashrpc/internal/follow"
	"github.com/flashrpc/flashrpc/internal/fork"
	"github.com/flashrpc/flashrpc/internal/networks"
	"github.com/flashrpc/flashrpc/internal/node"
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
	network    string
	maxLag     uint64
	poll       time.Duration
	feed       node.Feed  // feed.go: the republished feed
	scheme     stateFlags // statescheme.go
}

func followFlags(out io.Writer) (*flag.FlagSet, *followOptions) {
	o := new(followOptions)
	fs := newFlagSet("flashrpc follow", out, "Usage: flashrpc follow --upstream URL [--feed WSURL] [--genesis FILE | --state remote] [--sequencer URL] [flags]\n\nRuns a replica: sealed blocks from the upstream, each executed and checked against its header's\nroots before it is served; pre-confirmations from the feed, each re-executed and served only when\nit gives what the sequencer published; transactions forwarded to the sequencer. The verified feed\nis published again on --feed.port. With --state remote the state is read from the upstream at each\nsealed block instead (no genesis, no replay; docs/deploy.md says what is then verified).\n\nFlags:\n")
	o.register(fs, "directory that keeps the replica's chain across restarts (default: a temporary directory removed on exit)")
	fs.StringVar(&o.upstream, "upstream", "", "JSON-RPC URL (HTTP) of a node of the chain to follow: whole blocks are fetched from it (required)")
	fs.StringVar(&o.upstreamWS, "upstream.ws", "", "WebSocket URL whose newHeads subscription announces the upstream's blocks (default: --upstream with the ws scheme; off: poll only); where it fails the head is polled every --upstream.poll")
	fs.StringVar(&o.feedURL, "feed", "", "WebSocket URL of the sequencer's flashblocks feed (FlashblocksPayloadV1, JSON or brotli); without it the replica serves sealed blocks only and pending is the next block as forecast, as on a chain without pre-confirmations")
	fs.StringVar(&o.genesis, "genesis", "", "genesis file of the chain (flashrpc dev writes <datadir>/genesis.json); required unless --datadir holds the chain already")
	fs.StringVar(&o.sequencer, "sequencer", "", "JSON-RPC URL eth_sendRawTransaction and eth_sendRawTransactionSync are forwarded to (default: --upstream)")
	fs.StringVar(&o.state, "state", "local", "where state comes from: local (every block replayed from genesis, needs --genesis) or remote (read from the upstream at each sealed block, for chains too large to replay; docs/deploy.md)")
	o.scheme.register(fs)
	fs.StringVar(&o.network, "network", "", "the network whose rules the replica runs (`flashrpc networks` lists them): the chain decides (its genesis, or with --state remote the upstream's chain id), and a --network that disagrees is refused, naming both; for a chain id that is no network's (a local chain such as `flashrpc dev --network op-mainnet`), the genesis must have the network's rules, and with --state remote the replica runs them as of now")
	fs.Uint64Var(&o.maxLag, "health.max-lag", defaultMaxLag, "blocks the replica may be behind its upstream before GET /health answers 503")
	fs.DurationVar(&o.poll, "upstream.poll", follow.DefaultPollInterval, "how often the upstream's head is asked for when it cannot be subscribed to")
	registerFeed(fs, &o.feed)
	return fs, o
}

// runFollow runs a replica until SIGINT or SIGTERM.
func runFollow(args []string, stdout, stderr io.Writer) error {
	fs, o := followFlags(helpOutput(args, stdout, stderr))
	if err := parseFlags(fs, args); err != nil {
		return err
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
	shared := ""
	if o.state == "remote" {
		shared = "--state remote"
	}
	if err := o.scheme.check(fs, shared); err != nil {
		return err
	}
	logger, err := o.logger(stderr)
	if err != nil {
		return err
	}
	n, err := node.StartFollow(o.config(logger))
	if err != nil {
		return err
	}
	c := n.Chain()
	fmt.Fprintf(stdout, "flashrpc replica of %s (chain id %d, head block %d)\n", o.upstream, c.Config().ChainID, c.Head().Number)
	switch nw, known := networks.Lookup(c.Config().ChainID.Uint64()); {
	case known && networks.IsLocalChain(nw.ChainID, c.Genesis().Hash()):
		what := "its genesis file's"
		if f := fork.Of(c); f != nil {
			what = f.Info().Network
		}
		fmt.Fprintf(stdout, "  rules: %s (a local chain with %s's chain id: its genesis hash is not %s's)\n", what, nw.Name, nw.Name)
	case known:
		fmt.Fprintf(stdout, "  rules: %s's (%s)\n", nw.Name, nw.Source)
	case o.network != "":
		fmt.Fprintf(stdout, "  rules: --network %s's (chain id of no known network)\n", o.network)
	}
	printEndpoints(stdout, n.Endpoints(), n.Feed(), "verified flashblocks", n.MetricsURL())
	err = serveUntilSignal(logger, n.Endpoints())
	if cerr := n.Close(); cerr != nil {
		return errors.Join(err, cerr)
	}
	logger.Info("stopped", "head", c.Head().Number.Uint64())
	return err
}

// config returns the replica's node configuration.
func (o *followOptions) config(logger *slog.Logger) node.FollowConfig {
	server := o.serverFlags.config(logger)
	o.scheme.apply(&server)
	return node.FollowConfig{
		Server: server, Feed: o.feed,
		Upstream: o.upstream, UpstreamWS: o.upstreamWS, Poll: o.poll, FeedURL: o.feedURL, Sequencer: o.sequencer,
		Genesis: o.genesis, RemoteState: o.state == "remote", MaxLag: o.maxLag, Network: o.network,
	}
}
