package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/flashrpc/flashrpc/internal/api"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/devaccounts"
	"github.com/flashrpc/flashrpc/internal/devapi"
	"github.com/flashrpc/flashrpc/internal/health"
	"github.com/flashrpc/flashrpc/internal/logs"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/sequencer"
)

// runDev runs the embedded dev chain until SIGINT or SIGTERM.
func runDev(args []string, stdout, stderr io.Writer) error {
	fs, o := devFlags(helpOutput(args, stdout, stderr))
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "flashrpc dev: unexpected argument %q\n", fs.Arg(0))
		return errUsage
	}
	if o.blockTime < 0 || o.preconfInterval < 0 {
		return errors.New("--block-time and --preconf-interval must not be negative")
	}
	if err := o.check(); err != nil {
		return err
	}
	o.given = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.given[f.Name] = true })
	logger, err := o.logger(stderr)
	if err != nil {
		return err
	}
	if err := o.chainFlags.checkChain(); err != nil {
		return err
	}
	n, err := startDev(o, logger)
	if err != nil {
		return err
	}
	printDevBanner(stdout, o, n)
	err = serveUntilSignal(logger, n.endpoints)
	// The endpoints are closed: stop the sequencer and the feed, flush and close storage.
	if cerr := n.close(); cerr != nil {
		return errors.Join(err, fmt.Errorf("close chain: %w", cerr))
	}
	logger.Info("stopped", "head", n.chain.Head().Number.Uint64())
	return err
}

// devNode is a running dev chain: chain, sequencer and both endpoints (listening, not yet
// serving: serveUntilSignal or serve does that).
type devNode struct {
	chain     *chain.Chain
	logs      *logs.Index // nil with --logs.index=false
	pre       *preconf.Preconf
	seq       *sequencer.Sequencer
	endpoints []*endpoint
	feed      *feed // nil with --feed.port -1
	ops       *ops  // metrics listener, health
	accounts  []devaccounts.Account
	mnemonic  string
}

// startDev opens the dev chain, starts the sequencer and opens both endpoints' sockets.
func startDev(o *devOptions, logger *slog.Logger) (n *devNode, err error) {
	n = &devNode{mnemonic: o.mnemonic}
	if n.mnemonic == "" {
		n.mnemonic = devaccounts.TestMnemonic
	}
	if n.accounts, err = devaccounts.Derive(n.mnemonic, o.accounts); err != nil {
		return nil, fmt.Errorf("dev accounts: %w", err)
	}
	funded := make([]common.Address, len(n.accounts))
	for i, acc := range n.accounts {
		funded[i] = acc.Address
	}
	x, err := o.startOps(logger)
	if err != nil {
		return nil, err
	}
	c, err := openDevChain(o, funded, logger)
	if err != nil {
		x.close()
		return nil, err
	}
	n.chain, n.ops = c, x
	pre := preconf.New(c)
	n.pre = pre
	backend := o.backend(c)
	seqCfg := sequencer.Config{
		BlockTime:       o.blockTime,
		PreconfInterval: o.preconfInterval,
		ExtraData:       []byte("flashrpc"),
		Logger:          logger,
	}
	if oprollup.IsOP(c.Config()) {
		seqCfg.L1 = &oprollup.DevL1{GenesisTime: c.Genesis().Time(), BaseFee: o.l1BaseFee.v, BlobBaseFee: o.l1BlobBaseFee.v}
	}
	if m := x.metrics; m != nil {
		m.WatchChain(c)
		m.WatchPreconf(pre)
		m.WatchPool(backend.Pool)
		seqCfg.ObserveBuild = m.ObserveBuild
	}
	// Fit to serve while the sequencer seals (health.Sealing; docs/operations.md).
	x.health = health.New(health.Config{
		Probes: []health.Probe{health.Head(c), health.Pending(pre)},
		Rules:  []health.Rule{health.Sealing(c, o.blockTime, nil)},
	})
	n.seq = sequencer.New(seqCfg, c, pre, backend.Pool)
	// Every sealed block of a single-sequencer dev chain is final.
	c.OnHead(func(ev chain.HeadEvent) {
		c.SetSafe(ev.Block.Header())
		c.SetFinalized(ev.Block.Header())
	})
	// The head at start (genesis or a restored head) is final too: `safe` and `finalized`
	// answer it before the first block is sealed (viem and ethers ask for them).
	c.SetSafe(c.Head())
	c.SetFinalized(c.Head())
	if n.logs, err = openLogIndex(&o.serverFlags, c, logger); err != nil {
		c.Close()
		x.close()
		return nil, err
	}
	backend.Preconf, backend.Sequencer, backend.Logs = pre, n.seq, n.logs
	stdCfg, preCfg := o.apiConfig(false, logger), o.apiConfig(true, logger)
	stdCfg.Dev, preCfg.Dev = true, true
	if o.clientVersion != "" {
		stdCfg.ClientVersion, preCfg.ClientVersion = o.clientVersion, o.clientVersion
	}
	dev := devapi.New(devapi.Config{Accounts: n.accounts}, devapi.Backend{Chain: c, Preconf: pre, Pool: backend.Pool, Sequencer: n.seq})
	stdCfg.Extend, preCfg.Extend = dev.Register, dev.Register
	if n.endpoints, err = listen(&o.serverFlags, x, api.New(stdCfg, backend), api.New(preCfg, backend)); err != nil {
		n.logs.Close()
		c.Close()
		x.close()
		return nil, err
	}
	if n.feed, err = startFeed(&o.feed, pre, logger); err != nil {
		for _, ep := range n.endpoints {
			ep.ln.Close()
		}
		n.logs.Close()
		c.Close()
		x.close()
		return nil, err
	}
	if err := n.seq.Start(context.Background()); err != nil {
		n.feed.close()
		for _, ep := range n.endpoints {
			ep.ln.Close()
		}
		n.logs.Close()
		c.Close()
		x.close()
		return nil, err
	}
	return n, nil
}

// close stops the sequencer and closes the chain. The endpoints must be shut down first.
func (n *devNode) close() error {
	n.seq.Close()
	n.feed.close()
	n.logs.Close()
	err := n.chain.Close()
	n.ops.close()
	return err
}

func printDevBanner(w io.Writer, o *devOptions, n *devNode) {
	c, eps, accounts, mnemonic := n.chain, n.endpoints, n.accounts, n.mnemonic
	var b strings.Builder
	fmt.Fprintf(&b, "flashrpc dev chain (chain id %d, head block %d)\n\n", c.Config().ChainID, c.Head().Number)
	if oprollup.IsOP(c.Config()) {
		fmt.Fprintf(&b, "  OP Stack chain configured as Base: forks through Jovian, Base's fee scalars; dev L1 base fee %s wei, blob base fee %s wei (docs/opstack.md)\n", o.l1BaseFee.String(), o.l1BlobBaseFee.String())
	} else {
		fmt.Fprintf(&b, "  plain Ethereum chain (--chain-type l1)\n")
	}
	fmt.Fprintf(&b, "  genesis: %s\n\n", filepath.Join(c.DataDir(), genesisFileName))
	for _, ep := range eps {
		fmt.Fprintf(&b, "  %-14s %s  (WebSocket: ws://%s)\n", ep.name, ep.url(), ep.ln.Addr())
	}
	if n.feed != nil {
		fmt.Fprintf(&b, "  %-14s %s  (flashblocks, %s)\n", "feed", n.feed.url(), n.feed.encoding())
	}
	if u := n.ops.metricsURL(); u != "" {
		fmt.Fprintf(&b, "  %-14s %s\n", "metrics", u)
	}
	fmt.Fprintf(&b, "\n  live view: open %s/ in a browser; health: %s/health\n", eps[1].url(), eps[1].url())
	timing := func(d interface{ String() string }, zero string) string {
		if d.String() == "0s" {
			return zero
		}
		return "every " + d.String()
	}
	fmt.Fprintf(&b, "\n  pre-confirmations %s, blocks sealed %s\n", timing(o.preconfInterval, "on request (dev_preconfirm)"), timing(o.blockTime, "on request (dev_seal)"))
	if o.dataDir == "" {
		fmt.Fprintf(&b, "  chain data: temporary, removed on exit (use --datadir to keep it)\n")
	} else {
		fmt.Fprintf(&b, "  chain data: %s\n", o.dataDir)
	}
	fmt.Fprintf(&b, "\nDev accounts (10,000 ETH each at genesis):\n\n")
	for i, acc := range accounts {
		fmt.Fprintf(&b, "  (%d) %s  private key %s\n", i, acc.Address.Hex(), hexutil.Encode(crypto.FromECDSA(acc.Key)))
	}
	fmt.Fprintf(&b, "\nMnemonic: %s\nDerivation path: m/44'/60'/0'/0/<index>\n\nPress Ctrl-C to stop.\n", mnemonic)
	fmt.Fprint(w, b.String())
}
