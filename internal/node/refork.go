package node

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/fork"
)

// ForkRequest names the fork a re-fork makes: the upstream's URL and the block to fork (nil:
// the upstream's latest; negative: that many blocks before it). An empty URL keeps the
// current fork's URL.
type ForkRequest struct {
	URL   string
	Block *int64
}

// reforkStep names a step of a re-fork that can fail; a test injects a failure at each.
type reforkStep string

const (
	stepOpen     reforkStep = "open the new fork"
	stepCloseNew reforkStep = "close the new fork"               // with a datadir
	stepStopOld  reforkStep = "stop the current chain"           // with a datadir
	stepSwap     reforkStep = "swap the chain data"              // with a datadir
	stepReopen   reforkStep = "open the new fork in the datadir" // with a datadir
	stepBuild    reforkStep = "build the new fork's core"
	stepStart    reforkStep = "start the sequencer"
)

// Refork replaces the node's chain by a new fork of req, as anvil_reset with forking params
// does, and everything built on the chain with it (the block in progress, the pool, the
// sequencer, the log index, both endpoints' APIs), while the endpoints, the flashblocks feed
// and the metrics keep serving. Transactions in the pool and the block in progress are
// dropped; WebSocket connections are closed with status 1012 (service restart), since their
// subscriptions were of the chain that is gone. With a data directory the new fork replaces
// the directory's chain; without, it lives in a new temporary directory.
//
// Refork is atomic: when any step fails (an unreachable upstream, a block it does not have,
// a file system error), the node goes on serving the chain it served, with its sequencer
// running. It is safe to call concurrently with requests; re-forks are serialised.
func (n *Dev) Refork(ctx context.Context, req ForkRequest) error {
	return n.refork(ctx, req, nil)
}

// refork is Refork with fail, when not nil, called before each step: an error it returns is
// that step's failure, and the step does not run.
func (n *Dev) refork(ctx context.Context, req ForkRequest, fail func(reforkStep) error) (err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return errors.New("re-fork: the node is closed")
	}
	fc, err := n.reforkConfig(req)
	if err != nil {
		return fmt.Errorf("re-fork: %w", err)
	}
	tx := &reforkTx{ctx: ctx, n: n, fail: fail, dataDir: n.cfg.DataDir}
	defer func() {
		if err != nil {
			err = errors.Join(fmt.Errorf("re-fork: %w", err), tx.undo.close())
		}
	}()
	next, nextCfg, err := tx.open(fc)
	if err != nil {
		return err
	}
	var k *devCore
	if err := tx.step(stepBuild, func() (err error) { k, err = n.buildCore(next); return err }); err != nil {
		return err
	}
	tx.undo.push(k.stop)
	if err := tx.step(stepStart, func() error { return k.seq.Start(ctx) }); err != nil {
		return err
	}
	tx.commit(k, nextCfg)
	info := fork.Of(next).Info()
	n.log.Info("re-forked", "url", info.URL, "block", info.Number, "head", next.Head().Number.Uint64())
	return nil
}

// reforkConfig returns the chain's fork configuration of req: the node's fork settings with
// req's URL (or the current fork's) and block.
func (n *Dev) reforkConfig(req ForkRequest) (*fork.Config, error) {
	f := n.cfg.Fork
	if req.URL != "" {
		f.URL = req.URL
	} else if cf := fork.Of(n.cur.chain); cf != nil && f.URL == "" {
		f.URL = cf.Info().URL
	}
	if f.URL == "" {
		return nil, errors.New("no upstream URL given and the chain is not a fork")
	}
	f.Block = req.Block
	return n.forkConfig(f), nil
}

// reforkTx is one re-fork under way: its steps, and what puts the node back as it was when
// one fails.
type reforkTx struct {
	ctx     context.Context // bounds what the new fork asks its upstream while it opens
	n       *Dev
	fail    func(reforkStep) error // nil: no failure injected
	dataDir string                 // the node's; "" means the new fork lives in a temporary directory
	undo    closers                // runs when a step fails
	ran     bool                   // whether the last step's work ran (not an injected failure)
}

// step runs do unless an injected failure comes first.
func (tx *reforkTx) step(s reforkStep, do func() error) error {
	tx.ran = false
	if tx.fail != nil {
		if err := tx.fail(s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	tx.ran = true
	return do()
}

// open creates the new fork of fc and returns it open, with the configuration it was opened
// with. Without a data directory it lives in a temporary one, beside the current chain, which
// keeps running. With one it is created in a staging directory and moved into the data
// directory, which takes closing the current chain: from then on the undo reopens it.
func (tx *reforkTx) open(fc *fork.Config) (*chain.Chain, chainSpec, error) {
	n := tx.n
	staging := ""
	if tx.dataDir != "" {
		staging = filepath.Join(tx.dataDir, "refork")
		if err := os.RemoveAll(staging); err != nil {
			return nil, chainSpec{}, err
		}
		tx.undo.push(func() error { return os.RemoveAll(staging) })
	}
	cfg := n.forkSpec(staging, fc)
	next, err := tx.openChain(stepOpen, cfg)
	if err != nil || tx.dataDir == "" {
		return next, cfg, err
	}
	info := fork.Of(next).Info()
	tx.undo = tx.undo[:len(tx.undo)-1] // next is closed here, whatever happens
	if err := tx.step(stepCloseNew, next.Close); err != nil {
		if !tx.ran {
			err = errors.Join(err, next.Close())
		}
		return nil, cfg, err
	}
	old := n.cur
	if err := tx.step(stepStopOld, func() error { return errors.Join(old.stop(), old.chain.Close()) }); err != nil {
		if tx.ran {
			err = errors.Join(err, n.restart(old))
		}
		return nil, cfg, err
	}
	tx.undo.push(func() error { return n.restart(old) })
	if err := tx.step(stepSwap, func() error { return swapChainData(tx.dataDir, staging) }); err != nil {
		return nil, cfg, err
	}
	tx.undo.push(func() error { return unswapChainData(tx.dataDir, staging) })
	resume := *fc
	resume.UpstreamChainID = info.UpstreamChainID // created a moment ago: no need to ask
	resume.Offline = "re-fork: reopening the fork just created"
	cfg = n.forkSpec(tx.dataDir, &resume)
	next, err = tx.openChain(stepReopen, cfg)
	return next, cfg, err
}

// openChain opens a chain of cfg as step s; the undo closes it.
func (tx *reforkTx) openChain(s reforkStep, spec chainSpec) (*chain.Chain, error) {
	var c *chain.Chain
	if err := tx.step(s, func() (err error) { c, err = spec.open(tx.ctx); return err }); err != nil {
		return nil, err
	}
	tx.undo.push(func() error { return closeChain(c) })
	return c, nil
}

// commit makes k, started on the new fork, what the node serves, and lets go of the previous
// chain: its failures are logged, the node has moved on. Nothing in it can fail the re-fork.
func (tx *reforkTx) commit(k *devCore, spec chainSpec) {
	n, prev := tx.n, tx.n.cur
	running := tx.dataDir == "" // with a datadir it was stopped before the swap
	if running {
		prev.seq.Close() // before the feed follows the new one
	}
	n.install(k)
	n.spec = spec
	n.endpoints.closeWebSockets("chain replaced by a re-fork")
	if running {
		if err := errors.Join(prev.logs.Close(), prev.chain.Close()); err != nil { // removes its temporary directory
			n.log.Warn("re-fork: closing the previous chain", "err", err)
		}
	} else if err := commitChainData(tx.dataDir, filepath.Join(tx.dataDir, "refork")); err != nil {
		n.log.Warn("re-fork: removing the previous chain's data", "err", err)
	}
}

// restart reopens the chain old ran on, from the configuration it was opened with, and
// builds, installs and starts a core on it again: a failed re-fork's way back after it
// stopped the chain. The chain's head is the same; its pool and block in progress are new.
func (n *Dev) restart(old *devCore) error {
	spec := n.spec
	if f := fork.Of(old.chain); f != nil {
		// Offline (the upstream is not asked): it may be why the re-fork failed.
		info := f.Info()
		resume := fork.Config{URL: info.URL, Retries: -1} // as fork.Open resumes a stored fork
		if spec.fork != nil {
			resume = *spec.fork
		}
		resume.UpstreamChainID = info.UpstreamChainID
		resume.Offline = "re-fork failed: restarting the previous fork"
		spec.fork = &resume
	}
	c, err := spec.open(context.Background())
	if err != nil {
		return fmt.Errorf("reopen the previous chain: %w", err)
	}
	n.cur = old // buildCore carries the mining controls over from it
	k, err := n.buildCore(c)
	if err != nil {
		return errors.Join(fmt.Errorf("restart the previous chain: %w", err), c.Close())
	}
	if err := k.seq.Start(context.Background()); err != nil {
		return errors.Join(fmt.Errorf("restart the previous chain's sequencer: %w", err), k.stop(), c.Close())
	}
	n.install(k)
	n.endpoints.closeWebSockets("chain reopened after a failed re-fork")
	return nil
}

// swapChainData makes staging's chain database the datadir's: the current one is moved
// aside first (chaindata.old), so that the datadir never holds a half-removed database.
// commitChainData removes what was moved aside; unswapChainData puts it back.
func swapChainData(dataDir, staging string) error {
	cur, old := filepath.Join(dataDir, "chaindata"), filepath.Join(dataDir, "chaindata.old")
	if err := os.RemoveAll(old); err != nil {
		return err
	}
	if err := os.Rename(cur, old); err != nil {
		return err
	}
	if err := os.Rename(filepath.Join(staging, "chaindata"), cur); err != nil {
		return errors.Join(err, os.Rename(old, cur))
	}
	return nil
}

// unswapChainData undoes swapChainData: the datadir's chain database is the one moved aside
// again.
func unswapChainData(dataDir, staging string) error {
	cur, old := filepath.Join(dataDir, "chaindata"), filepath.Join(dataDir, "chaindata.old")
	if err := os.Rename(cur, filepath.Join(staging, "chaindata")); err != nil {
		return err
	}
	return os.Rename(old, cur)
}

// commitChainData removes the chain database swapChainData moved aside and the staging
// directory.
func commitChainData(dataDir, staging string) error {
	return errors.Join(os.RemoveAll(filepath.Join(dataDir, "chaindata.old")), os.RemoveAll(staging))
}
