package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/flashblocks"
	"github.com/flashrpc/flashrpc/internal/fork"
	"github.com/flashrpc/flashrpc/internal/networks"
	"github.com/flashrpc/flashrpc/internal/node"
	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// runDev runs the embedded dev chain until SIGINT or SIGTERM.
func runDev(args []string, stdout, stderr io.Writer) error {
	o, err := parseDev(args, stdout, stderr)
	if err != nil {
		return err
	}
	logger, err := o.logger(stderr)
	if err != nil {
		return err
	}
	n, err := node.StartDev(o.config(logger))
	if err != nil {
		return err
	}
	printDevBanner(stdout, o, n)
	err = serveUntilSignal(logger, n.Endpoints())
	// The endpoints are closed: stop the sequencer and the feed, flush and close storage.
	if cerr := n.Close(); cerr != nil {
		return errors.Join(err, cerr)
	}
	logger.Info("stopped", "head", n.Chain().Head().Number.Uint64())
	return err
}

// parseDev parses and checks the dev command's flags; the node checks the chain they describe
// (node.StartDev) and applies --network's settings.
func parseDev(args []string, stdout, stderr io.Writer) (*devOptions, error) {
	fs, o := devFlags(helpOutput(args, stdout, stderr))
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "flashrpc dev: unexpected argument %q\n", fs.Arg(0))
		return nil, errUsage
	}
	if o.blockTime < 0 || o.preconfInterval < 0 {
		return nil, errors.New("--block-time and --preconf-interval must not be negative")
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	if err := o.codeSize.check(); err != nil {
		return nil, err
	}
	shared := ""
	if o.fork.url != "" {
		shared = "--fork-url"
	}
	if err := o.stateScheme.check(fs, shared); err != nil {
		return nil, err
	}
	o.given = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.given[f.Name] = true })
	if err := o.fork.check(o.given); err != nil {
		return nil, err
	}
	if err := o.parseFeedFormat(); err != nil {
		return nil, err
	}
	return o, nil
}

// parseFeedFormat parses --feed.format into the feed's format; without it the feed has
// Base's format, or the --network's (node.DevConfig.Network).
func (o *devOptions) parseFeedFormat() error {
	if o.feedFormat == "" {
		return nil
	}
	f, err := flashblocks.ParseFormat(o.feedFormat)
	if err != nil {
		return fmt.Errorf("--feed.format %q: want base or subblocks", o.feedFormat)
	}
	o.feed.Format = f
	return nil
}

// config returns the dev node's configuration: the flags, and which of them were given.
func (o *devOptions) config(logger *slog.Logger) node.DevConfig {
	server := o.serverFlags.config(logger)
	o.stateScheme.apply(&server)
	return node.DevConfig{
		Server: server, Feed: o.feed, Fork: o.fork.config(),
		ChainType: networks.Kind(o.chainType), ChainID: o.chainID, GasLimit: o.gasLimit, Network: o.network,
		L1BaseFee: o.l1BaseFee.v, L1BlobBaseFee: o.l1BlobBaseFee.v,
		Explicit: node.Explicit{
			ChainType: o.given["chain-type"], ChainID: o.given["chain-id"], GasLimit: o.given["gas-limit"],
			L1BaseFee: o.given["l1.base-fee"], L1BlobBaseFee: o.given["l1.blob-base-fee"],
			Accounts:  o.given["accounts"] || o.given["mnemonic"],
			BlockTime: o.given["block-time"], PreconfInterval: o.given["preconf-interval"],
			FeedFormat: o.given["feed.format"],
		},
		Accounts: o.accounts, Mnemonic: o.mnemonic,
		BlockTime: o.blockTime, PreconfInterval: o.preconfInterval,
		NoCodeSizeLimit: o.codeSize.lifted(),
	}
}

func printDevBanner(w io.Writer, o *devOptions, n *node.Dev) {
	c, eps, accounts, mnemonic := n.Chain(), n.Endpoints(), n.Accounts(), n.Mnemonic()
	var b strings.Builder
	if f := fork.Of(c); f != nil {
		info := f.Info()
		fmt.Fprintf(&b, "flashrpc dev chain: a fork of %s at block %d (chain id %d, head block %d)\n", info.URL, info.Number, c.Config().ChainID, c.Head().Number)
		fmt.Fprintf(&b, "  rules: %s\n  blocks up to %d are the upstream's; state the local chain has not written is read from it at block %d\n", info.Network, info.Number, info.Number)
		if oprollup.IsOP(c.Config()) {
			fmt.Fprintf(&b, "  OP Stack: every block opens with its L1-attributes deposit, continuing block %d's L1 origin and fee parameters\n", info.Number)
		}
		fmt.Fprintf(&b, "\n")
	} else {
		fmt.Fprintf(&b, "flashrpc dev chain (chain id %d, head block %d)\n\n", c.Config().ChainID, c.Head().Number)
		switch {
		case o.network != "":
			nw, _ := networks.LookupName(o.network)
			fmt.Fprintf(&b, "  %s's rules as of now (--network %s: %s) and cadence; chain id %d, not the network's\n", nw.Name, nw.ID, latestFork(nw, time.Now()), c.Config().ChainID)
			if oprollup.IsOP(c.Config()) {
				fmt.Fprintf(&b, "  dev L1 base fee %s wei, blob base fee %s wei (docs/opstack.md)\n", o.l1BaseFee.String(), o.l1BlobBaseFee.String())
			}
			writeOmitted(&b, nw, n.Omitted())
		case oprollup.IsOP(c.Config()):
			fmt.Fprintf(&b, "  OP Stack chain with Base's fee settings: forks through Jovian and Azul, Base's fee scalars; dev L1 base fee %s wei, blob base fee %s wei (docs/opstack.md)\n", o.l1BaseFee.String(), o.l1BlobBaseFee.String())
		default:
			fmt.Fprintf(&b, "  plain Ethereum chain (--chain-type l1)\n")
		}
		fmt.Fprintf(&b, "  genesis: %s\n\n", filepath.Join(c.DataDir(), node.GenesisFileName))
	}
	if d := c.Denim(); d != nil {
		from := "from genesis"
		if *d != 0 {
			from = fmt.Sprintf("from %d", *d)
		}
		fmt.Fprintf(&b, "  Denim (Base's 200 ms blocks) %s: header timestamps in whole seconds (five blocks share one), the BaseTime deposit as every block's transaction 1, timestampMs and blockTimestampMs in the RPC; gas limit %d per block (docs/denim.md)\n\n", from, c.Head().GasLimit)
	}
	for _, ep := range eps {
		fmt.Fprintf(&b, "  %-14s %s  (WebSocket: ws://%s)\n", ep.Name, ep.URL(), ep.Addr())
	}
	if f := n.Feed(); f != nil {
		quiet := ""
		if c.Denim() != nil {
			quiet = "; publishes nothing: no pre-confirmations"
		}
		fmt.Fprintf(&b, "  %-14s %s  (flashblocks, %s format, %s%s)\n", "feed", f.URL, f.Format, f.Encoding, quiet)
	}
	if u := n.MetricsURL(); u != "" {
		fmt.Fprintf(&b, "  %-14s %s\n", "metrics", u)
	}
	fmt.Fprintf(&b, "\n  live view: open %s/ in a browser; health: %s/health\n", eps[1].URL(), eps[1].URL())
	timing := func(d interface{ String() string }, zero string) string {
		if d.String() == "0s" {
			return zero
		}
		return "every " + d.String()
	}
	if cfg := n.Config(); c.Denim() != nil {
		fmt.Fprintf(&b, "\n  no pre-confirmations (Base publishes none since Denim), blocks sealed %s\n", timing(cfg.BlockTime, "on request (dev_seal)"))
	} else {
		fmt.Fprintf(&b, "\n  pre-confirmations %s, blocks sealed %s\n", timing(cfg.PreconfInterval, "on request (dev_preconfirm)"), timing(cfg.BlockTime, "on request (dev_seal)"))
	}
	if o.DataDir == "" {
		fmt.Fprintf(&b, "  chain data: temporary, removed on exit (use --datadir to keep it)\n")
	} else {
		fmt.Fprintf(&b, "  chain data: %s\n", o.DataDir)
	}
	switch {
	case c.Scheme() == chain.SchemePath && c.StateHistory() == 0:
		fmt.Fprintf(&b, "  state: path scheme, the state history of every block kept (--history.state 0)\n")
	case c.Scheme() == chain.SchemePath:
		fmt.Fprintf(&b, "  state: path scheme, the state of the last %d blocks kept (--history.state; older reads are refused)\n", c.StateHistory())
	default:
		fmt.Fprintf(&b, "  state: hash scheme, every block's state kept (an archive: the datadir grows with every block)\n")
	}
	if up := c.Upstream(); up != nil {
		fmt.Fprintf(&b, "\nDev accounts (10,000 ETH each in the first forked block, %d):\n\n", up.Number()+1)
	} else {
		fmt.Fprintf(&b, "\nDev accounts (10,000 ETH each at genesis):\n\n")
	}
	for i, acc := range accounts {
		fmt.Fprintf(&b, "  (%d) %s  private key %s\n", i, acc.Address.Hex(), hexutil.Encode(crypto.FromECDSA(acc.Key)))
	}
	fmt.Fprintf(&b, "\nMnemonic: %s\nDerivation path: m/44'/60'/0'/0/<index>\n\nPress Ctrl-C to stop.\n", mnemonic)
	fmt.Fprint(w, b.String())
}

// writeOmitted writes the warning of a chain named after nw that runs without omitted, forks
// of nw flashrpc does not run (Base's Beryl and Cobalt): each with its activation and what
// the chain lacks.
func writeOmitted(b *strings.Builder, nw networks.Network, omitted []networks.Fork) {
	if len(omitted) == 0 {
		return
	}
	fmt.Fprintf(b, "  WARNING: this chain runs without these forks of %s, which flashrpc does not run:\n", nw.Name)
	for _, f := range omitted {
		fmt.Fprintf(b, "    %s (active on %s since %d, %s): %s\n", f.Name, nw.ID, *f.Time, time.Unix(int64(*f.Time), 0).UTC().Format("2006-01-02 15:04 UTC"), f.LocalEffect)
	}
}

// latestFork names the newest fork of nw flashrpc runs that is active at now: "forks through
// karst".
func latestFork(nw networks.Network, now time.Time) string {
	latest := ""
	for _, f := range nw.Forks() {
		if !f.Runs {
			continue
		}
		if f.Block != nil || (f.Time != nil && *f.Time <= uint64(now.Unix())) {
			latest = f.Name
		}
	}
	return "forks through " + latest
}
