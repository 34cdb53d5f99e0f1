package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/fork"
	"github.com/flashrpc/flashrpc/internal/metrics"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/remote"
)

// forkFlags are the dev command's fork mode flags, anvil's names and meanings
// (decisions.md "Fork mode").
type forkFlags struct {
	url       string
	block     optionalInt
	chainID   uint64 // --fork-chain-id
	retries   int
	backoffMS uint64
	noCache   bool
}

func (f *forkFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.url, "fork-url", "", "continue the chain at this JSON-RPC URL from --fork-block-number: state the local chain has not written is read from it (and cached in the datadir), blocks up to that number are its (default: no fork)")
	fs.Var(&f.block, "fork-block-number", "upstream block to fork; negative counts back from the upstream's latest (default: its latest when the fork is created)")
	fs.Uint64Var(&f.chainID, "fork-chain-id", 0, "the upstream's chain id, taken without asking it; a restart then starts offline from the datadir's cache (it must match the datadir's fork)")
	fs.IntVar(&f.retries, "fork-retries", remote.DefaultRetries, "how often a failed upstream request (error, timeout, HTTP 429 or 5xx) is retried before the call fails")
	fs.Uint64Var(&f.backoffMS, "fork-retry-backoff", uint64(remote.DefaultBackoff/time.Millisecond), "wait in milliseconds before the first retry of an upstream request; it doubles with each retry")
	fs.BoolVar(&f.noCache, "no-storage-caching", false, "keep what is read from the upstream in memory only (a restart reads it again)")
}

// check validates the fork flags; given holds the names of the flags on the command line.
func (f *forkFlags) check(given map[string]bool) error {
	if f.url == "" && (f.block.set || f.chainID != 0 || f.noCache) {
		return errors.New("--fork-block-number, --fork-chain-id and --no-storage-caching need --fork-url")
	}
	if f.url != "" && given["gas-limit"] {
		return errors.New("--gas-limit does not apply with --fork-url: a fork keeps the upstream's gas limit")
	}
	if f.retries < 0 {
		return errors.New("--fork-retries must not be negative")
	}
	return nil
}

// config returns the chain's fork configuration, nil without --fork-url. chainID is --chain-id
// when it was given (zero: the upstream's).
func (f *forkFlags) config(chainID uint64, funded []common.Address, m *metrics.Upstream) *fork.Config {
	if f.url == "" {
		return nil
	}
	fc := &fork.Config{
		URL:             f.url,
		ChainID:         chainID,
		UpstreamChainID: f.chainID,
		Retries:         f.retries,
		Backoff:         time.Duration(f.backoffMS) * time.Millisecond,
		NoCache:         f.noCache,
		Funded:          funded,
		Balance:         chain.DevAccountBalance,
	}
	if f.block.set {
		fc.Block = &f.block.v
	}
	if m != nil {
		fc.Observer = newUpstreamObserver(m)
	}
	return fc
}

// optionalInt is an integer flag that is unset until given.
type optionalInt struct {
	v   int64
	set bool
}

func (o *optionalInt) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.FormatInt(o.v, 10)
}

func (o *optionalInt) Set(s string) error {
	v, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		return fmt.Errorf("want a block number, got %q", s)
	}
	o.v, o.set = v, true
	return nil
}

// upstreamObserver feeds the fork's upstream requests and cache reads to the metrics, with the
// label children resolved once per method and kind.
type upstreamObserver struct {
	m       *metrics.Upstream
	methods sync.Map // method -> *metrics.UpstreamMethod
	caches  sync.Map // kind -> *metrics.Cache
}

func newUpstreamObserver(m *metrics.Upstream) *upstreamObserver { return &upstreamObserver{m: m} }

func (o *upstreamObserver) method(name string) *metrics.UpstreamMethod {
	if v, ok := o.methods.Load(name); ok {
		return v.(*metrics.UpstreamMethod)
	}
	v, _ := o.methods.LoadOrStore(name, o.m.Method(name))
	return v.(*metrics.UpstreamMethod)
}

// UpstreamRequest counts a request's calls by method; its duration is observed once, under
// its first method.
func (o *upstreamObserver) UpstreamRequest(calls map[string]int, first string, took time.Duration, failed bool) {
	for name, n := range calls {
		if name == first {
			o.method(name).Observe(n, took, failed)
		} else {
			o.method(name).Count(n, failed)
		}
	}
}

// CacheRead counts a hit or a miss of one kind of cached read.
func (o *upstreamObserver) CacheRead(kind string, hit bool) {
	v, ok := o.caches.Load(kind)
	if !ok {
		v, _ = o.caches.LoadOrStore(kind, o.m.Cache(kind))
	}
	if c := v.(*metrics.Cache); hit {
		c.Hit()
	} else {
		c.Miss()
	}
}

// devL1 returns the dev L1 of an OP Stack chain c for the sequencer: on a fork, the fork
// block's L1 attributes continued (fork.Upstream.L1), with --l1.base-fee and --l1.blob-base-fee
// replacing its fees only when given; otherwise the dev L1 from c's genesis time.
func devL1(c *chain.Chain, o *devOptions) (*oprollup.DevL1, error) {
	f := fork.Of(c)
	if f == nil {
		return &oprollup.DevL1{GenesisTime: c.Genesis().Time(), BaseFee: o.l1BaseFee.v, BlobBaseFee: o.l1BlobBaseFee.v}, nil
	}
	l1, err := f.L1()
	if err != nil {
		return nil, err
	}
	if o.given["l1.base-fee"] {
		l1.BaseFee = o.l1BaseFee.v
	}
	if o.given["l1.blob-base-fee"] {
		l1.BlobBaseFee = o.l1BlobBaseFee.v
	}
	return l1, nil
}

// adoptStoredFork checks the flags given on the command line against the fork stored in the
// data directory, started without --fork-url (it resumes), and sets the options to the fork's.
func adoptStoredFork(c *chain.Chain, o *devOptions) error {
	cfg, info := c.Config(), fork.Of(c).Info()
	stored := chainTypeL1
	if oprollup.IsOP(cfg) {
		stored = chainTypeOP
	}
	describe := fmt.Sprintf("the fork of %s at block %d in %s (chain id %d, %s)", info.URL, info.Number, o.dataDir, cfg.ChainID, chainTypeName(stored))
	switch {
	case info.Replica:
		return fmt.Errorf("%s is a remote-state replica's (flashrpc follow --state remote), not a dev chain; use another --datadir", o.dataDir)
	case o.given["chain-type"] && o.chainType != stored:
		return fmt.Errorf("--chain-type %s conflicts with %s; use another --datadir", o.chainType, describe)
	case o.given["chain-id"] && o.chainID != cfg.ChainID.Uint64():
		return fmt.Errorf("--chain-id %d conflicts with %s; use another --datadir", o.chainID, describe)
	case o.given["gas-limit"]:
		return fmt.Errorf("--gas-limit does not apply to %s: a fork keeps the upstream's gas limit", describe)
	case stored == chainTypeL1 && (o.given["l1.base-fee"] || o.given["l1.blob-base-fee"]):
		return fmt.Errorf("--l1.base-fee and --l1.blob-base-fee apply to OP Stack chains only, and %s is not one", describe)
	}
	o.chainType, o.chainID = stored, cfg.ChainID.Uint64()
	return nil
}
