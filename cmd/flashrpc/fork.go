package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"time"

	"github.com/flashrpc/flashrpc/internal/node"
	"github.com/flashrpc/flashrpc/internal/remote"
)

// forkFlags are the dev command's fork mode flags, anvil's names and meanings
// (decisions.md "Fork mode").
type forkFlags struct {
	url     string
	block   optionalInt
	chainID uint64 // --fork-chain-id
	retries int
	backoff backoffFlag
	noCache bool
}

func (f *forkFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.url, "fork-url", "", "continue the chain at this JSON-RPC URL from --fork-block-number: state the local chain has not written is read from it (and cached in the datadir), blocks up to that number are its (default: no fork)")
	fs.Var(&f.block, "fork-block-number", "upstream block to fork; negative counts back from the upstream's latest (default: its latest when the fork is created)")
	fs.Uint64Var(&f.chainID, "fork-chain-id", 0, "the upstream's chain id, taken without asking it; a restart then starts offline from the datadir's cache (it must match the datadir's fork)")
	fs.IntVar(&f.retries, "fork-retries", remote.DefaultRetries, "how often a failed upstream request (error, timeout, HTTP 429 or 5xx) is retried before the call fails")
	f.backoff = backoffFlag{d: remote.DefaultBackoff, warn: func(note string) { fmt.Fprintf(fs.Output(), "flashrpc: %s\n", note) }}
	fs.Var(&f.backoff, "fork-retry-backoff", "how long to wait (a `duration`, e.g. 500ms) before the first retry of an upstream request; it doubles with each retry (a bare integer, the old form, is milliseconds)")
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

// config returns the node's fork configuration.
func (f *forkFlags) config() node.Fork {
	fc := node.Fork{URL: f.url, UpstreamChainID: f.chainID, Retries: f.retries, Backoff: f.backoff.d, NoCache: f.noCache}
	if f.block.set {
		fc.Block = &f.block.v
	}
	return fc
}

// backoffFlag is --fork-retry-backoff: a duration. A bare integer, the flag's old form, is
// still taken as milliseconds, with a note that it is deprecated.
type backoffFlag struct {
	d    time.Duration
	warn func(string)
}

func (b *backoffFlag) String() string {
	if b == nil {
		return ""
	}
	return b.d.String()
}

func (b *backoffFlag) Set(s string) error {
	if ms, err := strconv.ParseUint(s, 10, 63); err == nil {
		b.d = time.Duration(ms) * time.Millisecond
		if b.warn != nil {
			b.warn(fmt.Sprintf("--fork-retry-backoff %s: a bare number of milliseconds is deprecated; write %s", s, b.d))
		}
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return fmt.Errorf("want a duration such as 500ms or 2s, got %q", s)
	}
	b.d = d
	return nil
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
