package node

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

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
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// discard is the logger of a node configured without one.
var discard = slog.New(slog.DiscardHandler)

// Dev is a running dev node: a chain, its sequencer and both endpoints (listening, not yet
// serving: Endpoints().Serve does that), the flashblocks feed and the metrics. The chain and
// what is built on it (the core: block in progress, pool, sequencer, log index, the
// endpoints' APIs) can be replaced while the endpoints keep serving (Refork). Its methods are
// safe for concurrent use.
type Dev struct {
	cfg      DevConfig // after adopting a stored chain's settings; its cadence is cur's
	given    cadence   // the block time and pre-confirmation interval as the flags gave them
	log      *slog.Logger
	accounts []devaccounts.Account
	mnemonic string
	upstream *metrics.Upstream // a fork's upstream requests; nil without metrics or a fork at start

	mu     sync.Mutex // serialises Refork and Close; guards cur, spec and closed against them
	cur    *devCore   // what runs on the current chain
	closed bool
	spec   chainSpec // how cur.chain was opened: a failed re-fork reopens it with it

	services  [2]*serviceSwitch // the standard and pre-confirmed endpoints' method tables
	endpoints Endpoints
	feed      *feed // nil without a feed
	ops       *ops
	stack     closers // undoes the start, in reverse; its entries close cur's parts
}

// devCore is what a dev node builds on its chain; a re-fork builds a new one.
type devCore struct {
	chain  *chain.Chain
	pre    *preconf.Preconf
	pool   *txpool.Pool
	seq    *sequencer.Sequencer
	logs   *logs.Index // nil without the log index
	std    *api.API
	preAPI *api.API
	health *health.Checker
	cad    cadence // the chain's cadence: the given one, Denim's when the chain runs Denim
}

// cadence is how often a dev chain pre-confirms and seals.
type cadence struct{ blockTime, preconfInterval time.Duration }

// StartDev opens the dev chain (new, stored in cfg.DataDir, or a fork), starts the sequencer,
// the feed and the metrics, and opens both endpoints' sockets. A failure undoes what was
// started and returns the error.
func StartDev(cfg DevConfig) (_ *Dev, err error) {
	if err := resolveChain(&cfg); err != nil {
		return nil, err
	}
	given := cadence{cfg.BlockTime, cfg.PreconfInterval}
	if err := newChainRules(&cfg, time.Now()); err != nil {
		return nil, err
	}
	n := &Dev{cfg: cfg, given: given, log: cfg.Logger, mnemonic: cfg.Mnemonic}
	if n.log == nil {
		n.log = discard
	}
	if n.mnemonic == "" {
		n.mnemonic = devaccounts.TestMnemonic
	}
	if n.accounts, err = devaccounts.Derive(n.mnemonic, cfg.Accounts); err != nil {
		return nil, fmt.Errorf("dev accounts: %w", err)
	}
	defer n.stack.unwindOnError(&err)
	if n.ops, err = startOps(&cfg.Server, n.log); err != nil {
		return nil, err
	}
	n.stack.push(n.ops.close)
	var c *chain.Chain
	if cfg.Fork.URL != "" {
		n.upstream = n.ops.upstream()
		n.spec = n.forkSpec(cfg.DataDir, n.forkConfig(cfg.Fork))
		c, err = n.spec.open(context.Background())
	} else {
		c, n.spec, err = openDevChain(&n.cfg, n.funded(), n.log) // resumes a fork a datadir holds
	}
	if err != nil {
		return nil, err
	}
	n.stack.push(func() error { return closeChain(n.cur.chain) })
	n.cur = &devCore{chain: c}
	if _, err := n.cadenceOf(c); err != nil {
		if cfg.Fork.URL != "" && cfg.DataDir != "" {
			// Whether the upstream runs Denim is known only once the fork is made.
			err = fmt.Errorf("%w; the fork is stored in --datadir %s already: run again without --preconf-interval to continue it, or remove the directory", err, cfg.DataDir)
		}
		return nil, err
	}
	n.warnOmitted()
	k, err := n.buildCore(c)
	if err != nil {
		return nil, err
	}
	n.cur = k
	n.stack.push(func() error { return n.cur.logs.Close() })
	n.services = [2]*serviceSwitch{newServiceSwitch(k.std.Service()), newServiceSwitch(k.preAPI.Service())}
	if n.endpoints, err = listen(&n.cfg.Server, n.ops, n.services[0].service(), n.services[1].service()); err != nil {
		return nil, err
	}
	n.stack.push(n.endpoints.closeListeners)
	if n.feed, err = startFeed(cfg.Feed, n.log); err != nil {
		return nil, err
	}
	n.stack.push(n.feed.close)
	n.stack.pushFunc(func() { n.cur.seq.Close() })
	n.install(k)
	if err := k.seq.Start(context.Background()); err != nil {
		return nil, err
	}
	return n, nil
}

// warnOmitted logs, for a chain named after a network, each fork of the network flashrpc
// does not run and the chain runs without (Base's Beryl and Cobalt), with what it lacks.
func (n *Dev) warnOmitted() {
	for _, f := range n.cfg.omits {
		n.log.Warn("this local chain runs without a fork of "+n.cfg.Network+" that flashrpc does not run", "fork", f.Name, "activation", *f.Time, "effect", f.LocalEffect)
	}
}

// Omitted returns the forks of the network the chain is named after (DevConfig.Network) that
// it runs without, each with its activation time and what the chain lacks (Fork.LocalEffect):
// Base's Beryl and Cobalt. The slice is shared.
func (n *Dev) Omitted() []networks.Fork { return n.cfg.omits }

// closeChain closes c, naming the step in its error.
func closeChain(c *chain.Chain) error {
	if err := c.Close(); err != nil {
		return fmt.Errorf("close chain: %w", err)
	}
	return nil
}

// funded returns the dev accounts' addresses.
func (n *Dev) funded() []common.Address {
	funded := make([]common.Address, len(n.accounts))
	for i, acc := range n.accounts {
		funded[i] = acc.Address
	}
	return funded
}

// forkSpec returns what the fork fc is opened from in dataDir (a fork writes its own block 0:
// no genesis).
func (n *Dev) forkSpec(dataDir string, fc *fork.Config) chainSpec {
	return chainSpec{chain: chain.Config{DataDir: dataDir, CacheMB: n.cfg.DBCacheMB, StateCacheMB: n.cfg.StateCacheMB, Logger: n.log, NoCodeSizeLimit: n.cfg.NoCodeSizeLimit}, fork: fc}
}

// forkConfig returns the chain's fork configuration of f, which names an upstream.
func (n *Dev) forkConfig(f Fork) *fork.Config {
	fc := &fork.Config{
		URL:             f.URL,
		Block:           f.Block,
		UpstreamChainID: f.UpstreamChainID,
		Retries:         f.Retries,
		Backoff:         f.Backoff,
		NoCache:         f.NoCache,
		Funded:          n.funded(),
		Balance:         chain.DevAccountBalance,
	}
	if n.cfg.Explicit.ChainID {
		fc.ChainID = n.cfg.ChainID
	}
	if n.cfg.Explicit.ChainType {
		fc.Kind = n.cfg.ChainType // the rules of an unknown upstream chain
	}
	fc.Network = f.Network
	if n.upstream != nil {
		fc.Observer = newUpstreamObserver(n.upstream)
	}
	return fc
}

// devL1 returns the dev L1 of an OP Stack chain c for the sequencer: on a fork, the fork
// block's L1 attributes continued (fork.Upstream.L1), with the configured L1 fees replacing its
// fees only when explicit; otherwise the dev L1 from c's genesis time.
func (n *Dev) devL1(c *chain.Chain) (*oprollup.DevL1, error) {
	baseFee, blobBaseFee := n.cfg.L1BaseFee, n.cfg.L1BlobBaseFee
	if baseFee == nil {
		baseFee = oprollup.DefaultL1BaseFee
	}
	if blobBaseFee == nil {
		blobBaseFee = oprollup.DefaultL1BlobBaseFee
	}
	f := fork.Of(c)
	if f == nil {
		l1 := &oprollup.DevL1{GenesisTime: c.Genesis().Time(), BaseFee: baseFee, BlobBaseFee: blobBaseFee}
		if g := c.Genesis(); c.Config().IsJovian(g.Time()) && !bytes.Equal(g.Extra(), oprollup.ExtraData(c.Config(), g.Time())) {
			// A network's EIP-1559 parameters (--network), as the genesis has them, in every
			// block, also when the chain is resumed without --network.
			l1.Extra = g.Extra()
		}
		return l1, nil
	}
	l1, err := f.L1()
	if err != nil {
		return nil, err
	}
	if n.cfg.Explicit.L1BaseFee {
		l1.BaseFee = baseFee
	}
	if n.cfg.Explicit.L1BlobBaseFee {
		l1.BlobBaseFee = blobBaseFee
	}
	return l1, nil
}

// cadenceOf returns chain c's cadence: the given one, with Denim's (denimCadence) when c runs
// Denim, which a datadir keeps and a fork takes from its upstream. A re-fork asks it again of
// the new chain, which may run Denim where the previous one did not, or the reverse.
func (n *Dev) cadenceOf(c *chain.Chain) (cadence, error) {
	cfg := n.cfg
	cfg.BlockTime, cfg.PreconfInterval = n.given.blockTime, n.given.preconfInterval
	if err := denimCadence(&cfg, c.Denim()); err != nil {
		return cadence{}, err
	}
	return cadence{cfg.BlockTime, cfg.PreconfInterval}, nil
}

// buildCore builds what runs on chain c: the block in progress, the pool, the sequencer (not
// started), the log index and the two endpoints' APIs. It changes nothing the node serves
// (install does); on failure it closes what it opened, not c.
func (n *Dev) buildCore(c *chain.Chain) (*devCore, error) {
	cfg := &n.cfg
	cad, err := n.cadenceOf(c)
	if err != nil {
		return nil, err
	}
	backend := backendOf(&cfg.Server, c)
	k := &devCore{chain: c, pre: preconf.New(c), pool: backend.Pool, cad: cad}
	seqCfg := sequencer.Config{
		BlockTime:       cad.blockTime,
		PreconfInterval: cad.preconfInterval,
		ExtraData:       []byte("flashrpc"),
		Logger:          n.log,
		// A chain that runs Denim has Base's blocks since then: the BaseTime deposit, the
		// millisecond schedule, no pre-confirmations.
		Denim:              c.Denim(),
		NoPreconfirmations: c.Denim() != nil,
	}
	if n.cur != nil && n.cur.seq != nil {
		// A re-fork replaces the sequencer: the mining controls set at runtime carry over
		// (evm_setAutomine, evm_setIntervalMining), as anvil_reset keeps anvil's mining mode;
		// a block time that is still the previous chain's cadence is the new chain's instead.
		if bt := n.cur.seq.BlockTime(); bt != n.cur.cad.blockTime {
			seqCfg.BlockTime = bt
		}
		seqCfg.Automine = n.cur.seq.Automine()
	}
	if oprollup.IsOP(c.Config()) {
		l1, err := n.devL1(c)
		if err != nil {
			return nil, err
		}
		seqCfg.L1 = l1
	}
	if m := n.ops.metrics; m != nil {
		seqCfg.ObserveBuild = m.ObserveBuild
	}
	k.seq = sequencer.New(seqCfg, c, k.pre, k.pool)
	// Fit to serve while the sequencer's timer seals (health.SealingTimer; docs/operations.md):
	// its block time changes with evm_setIntervalMining and evm_setAutomine.
	k.health = health.New(health.Config{
		Probes: []health.Probe{health.Head(c), health.Pending(k.pre)},
		Rules:  []health.Rule{health.SealingTimer(c, k.seq.Timer, nil)},
	})
	// Every sealed block of a single-sequencer dev chain is final.
	c.OnHead(func(ev chain.HeadEvent) {
		c.SetSafe(ev.Block.Header())
		c.SetFinalized(ev.Block.Header())
	})
	// The head at start (genesis or a restored head) is final too: `safe` and `finalized`
	// answer it before the first block is sealed (viem and ethers ask for them).
	c.SetSafe(c.Head())
	c.SetFinalized(c.Head())
	ix, err := openLogIndex(cfg.LogsIndex, c, n.log)
	if err != nil {
		return nil, err
	}
	k.logs = ix
	backend.Preconf, backend.Logs = k.pre, ix
	stdCfg, preCfg := apiConfig(&cfg.Server, false, n.log), apiConfig(&cfg.Server, true, n.log)
	refork := func(ctx context.Context, url string, block *int64) error {
		// Not the request's context: the new fork's sequencer outlives the request.
		return n.Refork(context.WithoutCancel(ctx), ForkRequest{URL: url, Block: block})
	}
	hardhat := strings.HasPrefix(cfg.API.ClientVersion, "HardhatNetwork")
	dev := devapi.New(devapi.Config{Accounts: n.accounts, Refork: refork, HardhatIntervalMining: hardhat}, devapi.Backend{Chain: c, Preconf: k.pre, Pool: k.pool, Sequencer: k.seq})
	stdCfg.Extend, preCfg.Extend = dev.Register, dev.Register
	k.std, k.preAPI = api.New(stdCfg, backend), api.New(preCfg, backend)
	return k, nil
}

// install makes k what the node serves: the endpoints' method tables, the health check, the
// metrics and the feed follow it. It cannot fail.
func (n *Dev) install(k *devCore) {
	n.cur = k
	n.cfg.BlockTime, n.cfg.PreconfInterval = k.cad.blockTime, k.cad.preconfInterval
	if m := n.ops.metrics; m != nil {
		m.WatchChain(k.chain)
		m.WatchPreconf(k.pre)
		m.WatchPool(k.pool)
	}
	n.ops.health.Store(k.health)
	n.services[0].set(k.std.Service())
	n.services[1].set(k.preAPI.Service())
	n.feed.watch(k.pre)
}

// stop stops what runs on k's chain, not the chain.
func (k *devCore) stop() error {
	k.seq.Close()
	return k.logs.Close()
}

// Close stops the sequencer, the feed and the metrics, closes the endpoints' sockets and the
// chain, and returns every error. Shut the endpoints down first (Endpoints.Shutdown) when they
// were served. A second call does nothing.
func (n *Dev) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.closed = true
	return n.stack.close()
}

// Endpoints returns the standard and pre-confirmed endpoints.
func (n *Dev) Endpoints() Endpoints { return n.endpoints }

// Chain returns the current chain (a re-fork replaces it).
func (n *Dev) Chain() *chain.Chain {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.cur.chain
}

// Preconf returns the current block in progress.
func (n *Dev) Preconf() *preconf.Preconf {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.cur.pre
}

// Sequencer returns the current sequencer.
func (n *Dev) Sequencer() *sequencer.Sequencer {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.cur.seq
}

// Accounts returns the dev accounts; the slice is the node's.
func (n *Dev) Accounts() []devaccounts.Account { return n.accounts }

// Mnemonic returns the mnemonic the dev accounts derive from.
func (n *Dev) Mnemonic() string { return n.mnemonic }

// Feed describes the flashblocks feed; nil without one.
func (n *Dev) Feed() *FeedInfo { return n.feed.info() }

// MetricsURL returns the URL of GET /metrics, "" without metrics.
func (n *Dev) MetricsURL() string { return n.ops.metricsURL() }

// Config returns the node's configuration, with the settings of a stored chain adopted and
// the current chain's cadence.
func (n *Dev) Config() DevConfig {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.cfg
}
