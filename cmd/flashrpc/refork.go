package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/flashrpc/flashrpc/internal/fork"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// Refork: anvil_reset with forking params (internal/devapi will call Refork). The node's chain
// is replaced by a new fork, and everything built on the chain with it (the block in progress,
// the pool, the sequencer, the log index, both endpoints' APIs), while the endpoints, the
// flashblocks feed and the metrics keep serving. The new fork is created first, next to the
// current chain; when its creation fails (an unreachable upstream, a block it does not have)
// the node goes on with its chain unchanged.

// ForkRequest names the fork a re-fork makes: the upstream's URL and the block to fork (nil:
// the upstream's latest; negative: that many blocks before it). An empty URL keeps the
// current fork's URL.
type ForkRequest struct {
	URL   string
	Block *int64
}

// Refork replaces the node's chain by a new fork of req, as anvil_reset with forking params
// does. Transactions in the pool and the block in progress are dropped; WebSocket connections
// are closed with status 1012 (service restart), since their subscriptions were of the chain
// that is gone. With --datadir the new fork replaces the datadir's chain; without, it lives
// in a new temporary directory. It is safe to call concurrently with requests; re-forks are
// serialised.
func (n *devNode) Refork(ctx context.Context, req ForkRequest) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	flags := n.o.fork
	if req.URL != "" {
		flags.url = req.URL
	} else if f := fork.Of(n.chain); f != nil && flags.url == "" {
		flags.url = f.Info().URL
	}
	if flags.url == "" {
		return errors.New("re-fork: no upstream URL given and the chain is not a fork")
	}
	flags.block = optionalInt{}
	if req.Block != nil {
		flags.block = optionalInt{v: *req.Block, set: true}
	}
	fc := n.forkConfig(flags)

	// Create the new fork beside the current chain: a failure leaves the node as it was.
	staging := ""
	if n.o.dataDir != "" {
		staging = filepath.Join(n.o.dataDir, "refork")
		if err := os.RemoveAll(staging); err != nil {
			return fmt.Errorf("re-fork: %w", err)
		}
	}
	next, err := fork.Open(ctx, n.chainConfig(staging), fc)
	if err != nil {
		return fmt.Errorf("re-fork: %w", err)
	}
	info := fork.Of(next).Info()

	// Stop what runs on the current chain.
	n.seq.Close()
	n.logs.Close()
	if n.o.dataDir != "" {
		// Move the new chain into the datadir: close both, swap the directories, open it.
		if err := errors.Join(next.Close(), n.chain.Close()); err != nil {
			return fmt.Errorf("re-fork: close: %w", err)
		}
		if err := swapChainData(n.o.dataDir, staging); err != nil {
			return fmt.Errorf("re-fork: %w", err)
		}
		resume := *fc
		resume.UpstreamChainID = info.UpstreamChainID // created a moment ago: no need to ask
		if next, err = fork.Open(ctx, n.chainConfig(n.o.dataDir), &resume); err != nil {
			return fmt.Errorf("re-fork: open the new fork: %w", err)
		}
	} else if err := n.chain.Close(); err != nil { // removes its temporary directory
		n.log.Warn("re-fork: closing the previous chain", "err", err)
	}
	std, pre, err := n.buildCore(next)
	if err != nil {
		return fmt.Errorf("re-fork: %w", err)
	}
	n.services[0].set(std.Service())
	n.services[1].set(pre.Service())
	for _, ep := range n.endpoints {
		ep.server.CloseWebSockets("chain replaced by a re-fork")
	}
	if n.feed != nil {
		n.pre.OnSnapshot(n.feed.publish)
	}
	if err := n.seq.Start(ctx); err != nil {
		return fmt.Errorf("re-fork: start the sequencer: %w", err)
	}
	n.log.Info("re-forked", "url", info.URL, "block", info.Number, "head", n.chain.Head().Number.Uint64())
	return nil
}

// swapChainData makes staging's chain database the datadir's: the current one is moved
// aside first, so that the datadir never holds a half-removed database, then removed.
func swapChainData(dataDir, staging string) error {
	cur, old := filepath.Join(dataDir, "chaindata"), filepath.Join(dataDir, "chaindata.old")
	if err := os.RemoveAll(old); err != nil {
		return err
	}
	if err := os.Rename(cur, old); err != nil {
		return err
	}
	if err := os.Rename(filepath.Join(staging, "chaindata"), cur); err != nil {
		return err
	}
	return errors.Join(os.RemoveAll(old), os.RemoveAll(staging))
}

// serviceSwitch is an endpoint's method table whose implementation can be replaced while the
// server runs: every method and subscription of the table it was made with forwards to the
// current table (one atomic load). A re-fork replaces the table with one of the same names.
type serviceSwitch struct {
	cur  atomic.Pointer[rpc.Service]
	base rpc.Service
}

func newServiceSwitch(svc rpc.Service) *serviceSwitch {
	s := &serviceSwitch{base: svc}
	s.cur.Store(&svc)
	return s
}

// set makes svc the current table.
func (s *serviceSwitch) set(svc rpc.Service) { s.cur.Store(&svc) }

// service returns the forwarding table, for rpc.NewServer.
func (s *serviceSwitch) service() rpc.Service {
	out := rpc.Service{Methods: make(map[string]rpc.Method, len(s.base.Methods)), Subscriptions: make(map[string]rpc.SubscribeFunc, len(s.base.Subscriptions))}
	for name := range s.base.Methods {
		out.Methods[name] = func(ctx context.Context, p rpc.Params) (any, error) {
			m, ok := s.cur.Load().Methods[name]
			if !ok {
				return nil, fmt.Errorf("the method %s does not exist/is not available", name)
			}
			return m(ctx, p)
		}
	}
	for kind := range s.base.Subscriptions {
		out.Subscriptions[kind] = func(ctx context.Context, p rpc.Params, sub *rpc.Subscription) error {
			fn, ok := s.cur.Load().Subscriptions[kind]
			if !ok {
				return fmt.Errorf("no %q subscription", kind)
			}
			return fn(ctx, p, sub)
		}
	}
	return out
}
