package follow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/flashblocks"
	"github.com/flashrpc/flashrpc/internal/fork"
	"github.com/flashrpc/flashrpc/internal/metrics"
	"github.com/flashrpc/flashrpc/internal/networks"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/remote"
)

// Defaults of Config's zero values.
const (
	DefaultPollInterval = 100 * time.Millisecond
	DefaultParentWait   = time.Second
	// DefaultStaleAfter is how long the upstream may fail to answer before its head counts as
	// unknown (and /health answers 503).
	DefaultStaleAfter = 3 * time.Second
	// payloadQueue bounds the flashblocks received and not yet handled; the feed reader drops
	// (and the sequence check then refuses) what does not fit.
	payloadQueue = 256
	// syncBatch is how many blocks one upstream batch fetches during catch-up.
	syncBatch = 16
)

// Config says what a Follower follows.
type Config struct {
	// Upstream is the JSON-RPC URL (HTTP) of a node of the chain: whole blocks are fetched
	// from it by number. Required.
	Upstream string
	// UpstreamWS is the WebSocket URL new heads are subscribed to (eth_subscribe newHeads);
	// empty means Upstream's URL with the ws scheme, "off" polls only. Where the subscription
	// fails the upstream's head is polled every PollInterval, and the subscription is tried
	// again every ResubscribeEvery.
	UpstreamWS string
	// Feed is the WebSocket URL of the flashblocks feed; empty follows sealed blocks only,
	// as on a chain without pre-confirmations: New hides p's Views (preconf.Preconf.Hide),
	// so `pending` is the next block as forecast on both endpoints.
	Feed string
	// Sequencer is the JSON-RPC URL transactions are forwarded to; empty means Upstream.
	Sequencer string
	// PollInterval is how often the upstream's head is asked for when it cannot be
	// subscribed to; zero means DefaultPollInterval.
	PollInterval time.Duration
	// ParentWait is how long a flashblock whose parent the replica lacks waits for it; zero
	// means DefaultParentWait.
	ParentWait time.Duration
	// StaleAfter is how long the upstream may fail before its head counts as unknown; zero
	// means DefaultStaleAfter.
	StaleAfter time.Duration
	// Verified, when set, is given each flashblock that verified and was published to
	// `pending`, with its JSON text as the feed sent it (republishing, byte for byte). It runs
	// on the writer goroutine and must not block.
	Verified func(p *flashblocks.Payload, text []byte)
	// Logger receives sync progress and every refusal with its reason; nil discards.
	Logger *slog.Logger
	// Metrics, when set, are fed (internal/metrics Follow).
	Metrics *metrics.Follow
}

// Follower keeps a chain and its block in progress in step with an upstream sequencer. It is
// safe for concurrent use; its writer runs on its own goroutine between Start and Close.
type Follower struct {
	cfg   Config
	chain *chain.Chain
	pre   *preconf.Preconf
	up    *upstream
	seq   *upstream
	wsURL string // "" : polling only
	log   *slog.Logger
	m     *metrics.Follow // nil: no metrics
	// remote: the chain is a remote-state replica's (fork.Upstream.Replica, remote.go):
	// sealed blocks are the upstream's, never sealed here, and flashblocks take the
	// sequencer's state root. fork is the chain's fork, nil when it is none.
	remote bool
	fork   *fork.Upstream
	// rules refuses a block at which a fork flashrpc does not run is active, derived once
	// from the chain's configuration (it is checked on every block).
	rules *networks.RuleCheck

	upHead     atomic.Uint64 // the upstream's newest head, valid while upKnown
	upKnown    atomic.Bool
	upLastOK   atomic.Int64 // Unix nanoseconds of the last answer of the upstream
	subscribed atomic.Bool  // new heads come by subscription (heads.go)
	feedUp     atomic.Bool
	lost       atomic.Bool // a flashblock was lost since the writer last looked (feed.go)

	payloads chan received
	nudge    chan struct{}
	cancel   context.CancelFunc
	wg       sync.WaitGroup

	// Owned by the writer goroutine (run).
	cur       *sequence // the flashblock sequence being applied; nil: waiting for an index 0
	checkedTo uint64    // highest block known to equal the upstream's
	progress  progress  // catch-up progress (sync.go)
	refused   refusal   // the last upstream block refused (sync.go)

	// Owned by the heads goroutine (heads.go).
	lastUpErr time.Time // when an unanswered upstream was last logged
}

// New returns a Follower of chain c and its block in progress p. p must have no other
// writer. Nothing runs before Start.
func New(cfg Config, c *chain.Chain, p *preconf.Preconf) (*Follower, error) {
	if cfg.Upstream == "" {
		return nil, errors.New("follow: no upstream URL")
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.ParentWait <= 0 {
		cfg.ParentWait = DefaultParentWait
	}
	if cfg.StaleAfter <= 0 {
		cfg.StaleAfter = DefaultStaleAfter
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	f := &Follower{
		cfg: cfg, chain: c, pre: p, log: logger, m: cfg.Metrics,
		up:       newUpstream(cfg.Upstream),
		payloads: make(chan received, payloadQueue),
		nudge:    make(chan struct{}, 1),
	}
	f.seq = f.up
	if cfg.Feed == "" {
		p.Hide() // no block in progress is ever built here
	}
	f.rules = networks.NewRuleCheck(c.Config())
	f.fork = fork.Of(c)
	f.remote = f.fork != nil && f.fork.Replica()
	switch cfg.UpstreamWS {
	case "":
		f.wsURL = remote.WebSocketURL(cfg.Upstream)
	case "off":
	default:
		f.wsURL = cfg.UpstreamWS
	}
	if cfg.Sequencer != "" && cfg.Sequencer != cfg.Upstream {
		f.seq = newUpstream(cfg.Sequencer)
	}
	return f, nil
}

// Start checks the upstream's chain against the local one and starts following: the head
// poller, the feed reader and the writer. It fails when the upstream does not answer or
// serves another chain (its genesis differs).
func (f *Follower) Start(ctx context.Context) error {
	hashes, err := f.up.headerHashes(ctx, 0, 0)
	if err != nil {
		return fmt.Errorf("follow: upstream %s: %w", f.cfg.Upstream, err)
	}
	if g := f.chain.Genesis().Hash(); hashes[0] != g {
		return fmt.Errorf("follow: upstream %s serves another chain: its genesis is %s, the local genesis %s (is --genesis the upstream's?)", f.cfg.Upstream, hashes[0], g)
	}
	f.checkedTo = 0 // the local head is checked against the upstream's before it is built on
	if f.remote {
		// Blocks up to the fork block are the upstream's: the chain checked its hash.
		f.checkedTo = f.fork.Number()
	}
	run, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	f.wg.Add(2)
	go func() { defer f.wg.Done(); f.watchHeads(run) }()
	go func() { defer f.wg.Done(); f.run(run) }()
	if f.cfg.Feed != "" {
		f.wg.Add(1)
		go func() { defer f.wg.Done(); f.readFeed(run) }()
	}
	return nil
}

// Close stops following and waits for the goroutines. The block in progress stays as it is.
func (f *Follower) Close() error {
	if f.cancel != nil {
		f.cancel()
		f.wg.Wait()
	}
	return nil
}

// UpstreamHead returns the upstream's newest head; ok is false before its first answer and
// once it has not answered for Config.StaleAfter (while subscribed to its new heads, the
// subscription's connection counts as an answer: heads may be further apart).
func (f *Follower) UpstreamHead() (n uint64, ok bool) {
	fresh := time.Since(time.Unix(0, f.upLastOK.Load())) <= f.cfg.StaleAfter
	if !f.upKnown.Load() || !(fresh || f.subscribed.Load()) {
		return 0, false
	}
	return f.upHead.Load(), true
}

// FeedConnected reports whether the flashblocks feed is connected. Without a feed it is true:
// nothing is missing.
func (f *Follower) FeedConnected() bool { return f.cfg.Feed == "" || f.feedUp.Load() }

// wake tells the writer to sync; it never blocks.
func (f *Follower) wake() {
	select {
	case f.nudge <- struct{}{}:
	default:
	}
}

// run is the writer: the only goroutine that changes the chain and the block in progress.
func (f *Follower) run(ctx context.Context) {
	markers := time.NewTicker(2 * time.Second)
	defer markers.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case r := <-f.payloads:
			f.onPayload(ctx, r)
		case <-f.nudge:
			f.sync(ctx)
		case <-markers.C:
			f.sync(ctx)
			f.followMarkers(ctx)
		}
	}
}

// followMarkers copies the upstream's safe and finalized blocks when the local chain has
// them.
func (f *Follower) followMarkers(ctx context.Context) {
	for _, m := range []struct {
		tag string
		cur func() common.Hash
		set func(common.Hash)
	}{
		{"safe", func() common.Hash { return hashOf(f.chain.Safe()) }, func(h common.Hash) { f.chain.SetSafe(f.chain.HeaderByHash(h)) }},
		{"finalized", func() common.Hash { return hashOf(f.chain.Finalized()) }, func(h common.Hash) { f.chain.SetFinalized(f.chain.HeaderByHash(h)) }},
	} {
		n, hash, ok, err := f.up.marker(ctx, m.tag)
		if err != nil || !ok || hash == m.cur() {
			continue
		}
		if n <= f.checkedTo && f.chain.CanonicalHash(n) == hash {
			m.set(hash)
		}
	}
}

func hashOf(h *types.Header) common.Hash {
	if h == nil {
		return common.Hash{}
	}
	return h.Hash()
}
