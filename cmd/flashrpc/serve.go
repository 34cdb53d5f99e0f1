package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/flashrpc/flashrpc/internal/api"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/fork"
	"github.com/flashrpc/flashrpc/internal/health"
)

// runServe serves a stored chain without a sequencer until SIGINT or SIGTERM.
func runServe(args []string, stdout, stderr io.Writer) error {
	f := new(serverFlags)
	fs := flag.NewFlagSet("flashrpc serve", flag.ContinueOnError)
	fs.SetOutput(helpOutput(args, stdout, stderr))
	f.register(fs, "directory of the chain to serve (required; see flashrpc dev --datadir)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: flashrpc serve --datadir DIR [flags]\n\nServes a stored chain without a sequencer: nothing is pre-confirmed, so the pending tag is the\nlatest sealed block on both endpoints. Transactions sent are validated and held, never included.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if f.dataDir == "" {
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
	x, err := f.startOps(logger)
	if err != nil {
		return err
	}
	defer x.close()
	c, err := fork.Open(context.Background(), chain.Config{DataDir: f.dataDir, CacheMB: f.dbCache, Logger: logger}, nil)
	if err != nil {
		return err
	}
	defer c.Close()
	// Nothing to fall behind: a stored chain is fit to serve while it is open.
	x.health.Store(health.New(health.Config{Probes: []health.Probe{health.Head(c)}}))
	ix, err := openLogIndex(f, c, logger)
	if err != nil {
		return err
	}
	defer ix.Close()
	backend := f.backend(c)
	backend.Logs = ix
	if m := x.metrics; m != nil {
		m.WatchChain(c)
		m.WatchPool(backend.Pool)
	}
	eps, err := listen(f, x, api.New(f.apiConfig(false, logger), backend), api.New(f.apiConfig(true, logger), backend))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "flashrpc serving %s (chain id %d, head block %d)\n", f.dataDir, c.Config().ChainID, c.Head().Number)
	for _, ep := range eps {
		fmt.Fprintf(stdout, "  %-14s %s\n", ep.name, ep.url())
	}
	if u := x.metricsURL(); u != "" {
		fmt.Fprintf(stdout, "  %-14s %s\n", "metrics", u)
	}
	return serveUntilSignal(logger, eps)
}
