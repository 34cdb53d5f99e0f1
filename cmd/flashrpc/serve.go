package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/flashrpc/flashrpc/internal/node"
)

// runServe serves a stored chain without a sequencer until SIGINT or SIGTERM.
func runServe(args []string, stdout, stderr io.Writer) error {
	f := new(serverFlags)
	fs := newFlagSet("flashrpc serve", helpOutput(args, stdout, stderr), "Usage: flashrpc serve --datadir DIR [flags]\n\nServes a stored chain without a sequencer: nothing is pre-confirmed, so the pending tag is the\nlatest sealed block on both endpoints. Transactions sent are validated and held, never included.\n\nFlags:\n")
	f.register(fs, "directory of the chain to serve (required; see flashrpc dev --datadir)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if f.DataDir == "" {
		fmt.Fprintln(stderr, "flashrpc serve: --datadir is required")
		return errUsage
	}
	if err := f.check(); err != nil {
		return err
	}
	logger, err := f.logger(stderr)
	if err != nil {
		return err
	}
	n, err := node.StartServe(f.config(logger))
	if err != nil {
		return err
	}
	c := n.Chain()
	fmt.Fprintf(stdout, "flashrpc serving %s (chain id %d, head block %d)\n", f.DataDir, c.Config().ChainID, c.Head().Number)
	printEndpoints(stdout, n.Endpoints(), nil, "", n.MetricsURL())
	err = serveUntilSignal(logger, n.Endpoints())
	return errors.Join(err, n.Close())
}

// printEndpoints prints the endpoints, the feed (nil: none; what describes it) and the
// metrics URL ("": none) of a banner.
func printEndpoints(w io.Writer, eps node.Endpoints, feed *node.FeedInfo, what, metricsURL string) {
	for _, ep := range eps {
		fmt.Fprintf(w, "  %-14s %s\n", ep.Name, ep.URL())
	}
	if feed != nil {
		fmt.Fprintf(w, "  %-14s %s  (%s, %s)\n", "feed", feed.URL, what, feed.Encoding)
	}
	if metricsURL != "" {
		fmt.Fprintf(w, "  %-14s %s\n", "metrics", metricsURL)
	}
}
