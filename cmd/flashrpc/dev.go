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
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/flashrpc/flashrpc/internal/api"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/devaccounts"
	"github.com/flashrpc/flashrpc/internal/devapi"
	"github.com/flashrpc/flashrpc/internal/fork"
	"github.com/flashrpc/flashrpc/internal/health"
	"github.com/flashrpc/flashrpc/internal/logs"
	"github.com/flashrpc/flashrpc/internal/metrics"
	"github.com/flashrpc/flashrpc/internal/networks"
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
	if err := o.fork.check(o.given); err != nil {
		return err
	}
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
// serving: serveUntilSignal or serve does that). The chain and what is built on it (the
// core: block in progress, pool, sequencer, log index, the endpoints' APIs) can be replaced
// while the endpoints keep serving (refork, refork.go).
type devNode struct {
	o   *devOptions
	log *slog.Logger

	mu       sync.Mutex // serialises refork; guards the core fields below against it
	chain    *chain.Chain
	logs     *logs.Index // nil with --logs.index=false
	pre      *preconf.Preconf
	seq      *sequencer.Sequencer
	services [2]*serviceSwitch // the standard and pre-confirmed endpoints' method tables

	endpoints []*endpoint
	feed      *feed // nil with --feed.port -1
	ops       *ops  // metrics listener, health
	upstream  *metrics.Upstream
	accounts  []devaccounts.Account
	mnemonic  string
}

// startDev opens the dev chain, starts the sequencer and opens both endpoints' sockets.
func startDev(o *devOptions, logger *slog.Logger) (n *devNode, err error) {
	n = &devNode{o: o, log: logger, mnemonic: o.mnemonic}
	if n.mnemonic == "" {
		n.mnemonic = devaccounts.TestMnemonic
	}
	if n.accounts, err = devaccounts.Derive(n.mnemonic, o.accounts); err != nil {
		return nil, fmt.Errorf("dev accounts: %w", err)
	}
	x, err := o.startOps(logger)
	if err != nil {
		return nil, err
	}
	n.ops = x
	if x.reg != nil && o.fork.url != "" {
		n.upstream = metrics.NewUpstream(x.reg)
	}
	var c *chain.Chain
	if o.fork.url != "" {
		c, err = fork.Open(context.Background(), n.chainConfig(o.dataDir), n.forkConfig(o.fork))
	} else {
		c, err = openDevChain(o, n.funded(), logger) // chaintype.go; resumes a fork a datadir holds
	}
	if err != nil {
		x.close()
		return nil, err
	}
	std, pre, err := n.buildCore(c)
	if err != nil {
		c.Close()
		x.close()
		return nil, err
	}
	n.services = [2]*serviceSwitch{newServiceSwitch(std.Service()), newServiceSwitch(pre.Service())}
	fail := func(err error) (*devNode, error) {
		n.feed.close()
		for _, ep := range n.endpoints {
			ep.ln.Close()
		}
		n.logs.Close()
		c.Close()
		x.close()
		return nil, err
	}
	if n.endpoints, err = listenServices(&o.serverFlags, x, n.services[0].service(), n.services[1].service()); err != nil {
		return fail(err)
	}
	if n.feed, err = startFeed(&o.feed, n.pre, logger); err != nil {
		return fail(err)
	}
	if err := n.seq.Start(context.Background()); err != nil {
		return fail(err)
	}
	return n, nil
}

// funded returns the dev accounts' addresses.
func (n *devNode) funded() []common.Address {
	funded := make([]common.Address, len(n.accounts))
	for i, acc := range n.accounts {
		funded[i] = acc.Address
	}
	return funded
}

// chainConfig returns the configuration of a fork's chain in dataDir (a fork writes its own
// block 0: no genesis).
func (n *devNode) chainConfig(dataDir string) chain.Config {
	return chain.Config{DataDir: dataDir, CacheMB: n.o.dbCache, Logger: n.log}
}

// forkConfig returns the chain's fork configuration of f, nil without a URL.
func (n *devNode) forkConfig(f forkFlags) *fork.Config {
	var chainID uint64
	if n.o.given["chain-id"] {
		chainID = n.o.chainID
	}
	fc := f.config(chainID, n.funded(), n.upstream)
	if fc != nil && n.o.given["chain-type"] {
		fc.Kind = networks.Kind(n.o.chainType) // the rules of an unknown upstream chain
	}
	return fc
}

// buildCore builds what runs on chain c: the block in progress, the pool, the sequencer (not
// started), the log index and the two endpoints' APIs, and sets them as the node's.
func (n *devNode) buildCore(c *chain.Chain) (std, pre *api.API, err error) {
	o, x := n.o, n.ops
	p := preconf.New(c)
	backend := o.backend(c)
	seqCfg := sequencer.Config{
		BlockTime:       o.blockTime,
		PreconfInterval: o.preconfInterval,
		ExtraData:       []byte("flashrpc"),
		Logger:          n.log,
	}
	if n.seq != nil {
		// A re-fork replaces the sequencer: the mining controls set at runtime carry over
		// (evm_setAutomine, evm_setIntervalMining), as anvil_reset keeps anvil's mining mode.
		seqCfg.BlockTime, seqCfg.Automine = n.seq.BlockTime(), n.seq.Automine()
	}
	if oprollup.IsOP(c.Config()) {
		l1, err := devL1(c, o)
		if err != nil {
			return nil, nil, err
		}
		seqCfg.L1 = l1
	}
	if m := x.metrics; m != nil {
		m.WatchChain(c)
		m.WatchPreconf(p)
		m.WatchPool(backend.Pool)
		seqCfg.ObserveBuild = m.ObserveBuild
	}
	seq := sequencer.New(seqCfg, c, p, backend.Pool)
	// Fit to serve while the sequencer's timer seals (health.SealingTimer; docs/operations.md):
	// its block time changes with evm_setIntervalMining and evm_setAutomine.
	x.health.Store(health.New(health.Config{
		Probes: []health.Probe{health.Head(c), health.Pending(p)},
		Rules:  []health.Rule{health.SealingTimer(c, seq.Timer, nil)},
	}))
	// Every sealed block of a single-sequencer dev chain is final.
	c.OnHead(func(ev chain.HeadEvent) {
		c.SetSafe(ev.Block.Header())
		c.SetFinalized(ev.Block.Header())
	})
	// The head at start (genesis or a restored head) is final too: `safe` and `finalized`
	// answer it before the first block is sealed (viem and ethers ask for them).
	c.SetSafe(c.Head())
	c.SetFinalized(c.Head())
	ix, err := openLogIndex(&o.serverFlags, c, n.log)
	if err != nil {
		return nil, nil, err
	}
	backend.Preconf, backend.Logs = p, ix
	stdCfg, preCfg := o.apiConfig(false, n.log), o.apiConfig(true, n.log)
	if o.clientVersion != "" {
		stdCfg.ClientVersion, preCfg.ClientVersion = o.clientVersion, o.clientVersion
	}
	refork := func(ctx context.Context, url string, block *int64) error {
		// Not the request's context: the new fork's sequencer outlives the request.
		return n.Refork(context.WithoutCancel(ctx), ForkRequest{URL: url, Block: block})
	}
	hardhat := strings.HasPrefix(o.clientVersion, "HardhatNetwork")
	dev := devapi.New(devapi.Config{Accounts: n.accounts, Refork: refork, HardhatIntervalMining: hardhat}, devapi.Backend{Chain: c, Preconf: p, Pool: backend.Pool, Sequencer: seq})
	stdCfg.Extend, preCfg.Extend = dev.Register, dev.Register
	n.chain, n.pre, n.seq, n.logs = c, p, seq, ix
	return api.New(stdCfg, backend), api.New(preCfg, backend), nil
}

// close stops the sequencer and closes the chain. The endpoints must be shut down first.
func (n *devNode) close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
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
		if oprollup.IsOP(c.Config()) {
			fmt.Fprintf(&b, "  OP Stack chain configured as Base: forks through Jovian, Base's fee scalars; dev L1 base fee %s wei, blob base fee %s wei (docs/opstack.md)\n", o.l1BaseFee.String(), o.l1BlobBaseFee.String())
		} else {
			fmt.Fprintf(&b, "  plain Ethereum chain (--chain-type l1)\n")
		}
		fmt.Fprintf(&b, "  genesis: %s\n\n", filepath.Join(c.DataDir(), genesisFileName))
	}
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
