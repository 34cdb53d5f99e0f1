package follow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/metrics"
	"github.com/flashrpc/flashrpc/internal/networks"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// Sealed sync: the upstream's blocks are fetched whole, by number, and inserted; inserting
// executes each block on its parent's state and refuses it unless the result has the
// header's state root, receipts root, bloom and gas used (go-ethereum's block validator), so
// nothing the upstream sends is served unverified. Blocks the replica sealed itself from
// verified flashblocks (flash.go) are compared with the upstream's when it has them; a
// difference is a reorg.

// progressEvery is how often catch-up logs its progress.
const progressEvery = 5 * time.Second

// progress tracks a catch-up for its log lines.
type progress struct {
	start, last time.Time
	from        uint64 // head when it started
	blocks, gas uint64 // since start
}

// sync brings the chain to the upstream's head. It returns early on an upstream error or a
// block that does not verify (logged; the next poll tries again).
func (f *Follower) sync(ctx context.Context) {
	target, ok := f.UpstreamHead()
	if !ok || time.Since(f.refused.at) < refuseBackoff {
		return
	}
	// The batches after the one being inserted are fetched meanwhile (catchup.go); what is
	// still in flight when sync returns is cancelled, and waited for.
	ahead := &lookahead{f: f}
	defer ahead.close()
	for ctx.Err() == nil {
		if !f.checkOwn(ctx, target) {
			return
		}
		head := f.chain.Head()
		if head.Number.Uint64() >= target {
			f.endProgress()
			return
		}
		from := head.Number.Uint64() + 1
		to := min(target, from+syncBatch-1)
		blocks, err := ahead.take(ctx, from, to, target)
		if err != nil {
			f.refuseBlock(from, err)
		}
		for len(blocks) == int(to-from+1) && len(blocks) < syncInsertMax { // inserted together
			more := ahead.ready(to)
			if more == nil {
				break
			}
			blocks, to = append(blocks, more...), more[len(more)-1].NumberU64()
		}
		blocks = linked(blocks)
		if len(blocks) == 0 {
			return
		}
		if blocks[0].ParentHash() != head.Hash() {
			if !f.rewind(ctx, head.Number.Uint64()) {
				return
			}
			continue
		}
		if len(blocks) == int(to-from+1) {
			ahead.fill(ctx, to, target)
		}
		if !f.insert(ctx, blocks) {
			return
		}
		f.logProgress(blocks, target)
		if len(blocks) < int(to-from+1) {
			return
		}
	}
}

// checkOwn compares the blocks above checkedTo (sealed from flashblocks, or kept from before a
// restart) with the upstream's, up to target, and rewinds at the first difference. It
// returns false when the upstream cannot be asked.
func (f *Follower) checkOwn(ctx context.Context, target uint64) bool {
	head := f.chain.Head().Number.Uint64()
	last := min(head, target)
	if f.checkedTo >= last {
		return true
	}
	hashes, err := f.up.headerHashes(ctx, f.checkedTo+1, last)
	if err != nil {
		f.log.Warn("cannot compare blocks with the upstream", "from", f.checkedTo+1, "to", last, "err", err)
		return false
	}
	for i, h := range hashes {
		n := f.checkedTo + 1
		if h == (common.Hash{}) { // the upstream does not have it yet
			return true
		}
		if ours := f.chain.CanonicalHash(n); h != ours {
			f.log.Warn("block differs from the upstream's: reorg", "number", n, "ours", ours.TerminalString(), "upstream", h.TerminalString(), "index", i)
			return f.rewind(ctx, n-1)
		}
		f.checkedTo = n
	}
	return true
}

// rewind finds the newest block at or below from that the upstream has too and rewinds the
// chain to it; the chain announces the dropped blocks' logs as removed. It returns false when
// the upstream cannot be asked.
func (f *Follower) rewind(ctx context.Context, from uint64) bool {
	n := from
	for {
		lo := n - min(n, syncBatch-1)
		hashes, err := f.up.headerHashes(ctx, lo, n)
		if err != nil {
			f.log.Warn("cannot find the common ancestor with the upstream", "from", lo, "to", n, "err", err)
			return false
		}
		for i := len(hashes) - 1; i >= 0; i-- {
			k := lo + uint64(i)
			if hashes[i] != f.chain.CanonicalHash(k) {
				continue
			}
			if k == f.chain.Head().Number.Uint64() {
				// The upstream changed under the question (its own reorg): ask again later.
				return false
			}
			f.discard()
			dropped := f.chain.Head().Number.Uint64() - k
			if err := f.chain.SetForkchoice(hashes[i], common.Hash{}, common.Hash{}); err != nil {
				f.log.Error("cannot rewind to the common ancestor", "number", k, "err", err)
				return false
			}
			f.checkedTo = min(f.checkedTo, k)
			f.log.Warn("reorg: rewound to the common ancestor with the upstream", "ancestor", k, "dropped", dropped)
			return true
		}
		if lo == 0 {
			f.log.Error("the upstream shares no block with the local chain")
			return false
		}
		n = lo - 1
	}
}

// insert inserts blocks that build on the head. When the block in progress is the first of
// them, pre-confirmed up to the very block (same hash), it is sealed instead, so `pending`
// never goes back to the parent in between. It returns false when a block does not verify.
func (f *Follower) insert(ctx context.Context, blocks []*types.Block) bool {
	blocks, refused := f.runnable(blocks)
	if len(blocks) == 0 {
		f.discard()
		f.refuseBlock(refused.Number, refused)
		return false
	}
	if !f.insertRunnable(ctx, blocks) {
		return false
	}
	if refused != nil {
		f.refuseBlock(refused.Number, refused)
		return false
	}
	return true
}

// runnable returns the blocks before the first one at which a fork flashrpc does not run is
// active (the chain configuration's networks.RuleCheck), and that block's refusal (nil
// when every block runs): a replica never executes a block with rules older than the chain's.
func (f *Follower) runnable(blocks []*types.Block) ([]*types.Block, *networks.NotRunError) {
	for i, b := range blocks {
		var nr *networks.NotRunError
		if err := f.rules.Check(b.NumberU64(), b.Time()); errors.As(err, &nr) {
			return blocks[:i], nr
		}
	}
	return blocks, nil
}

// insertRunnable inserts blocks that build on the head, as insert says.
func (f *Follower) insertRunnable(ctx context.Context, blocks []*types.Block) bool {
	if last := f.pre.Last(); last != nil {
		if f.remote && last.Block.Hash() == blocks[0].Hash() {
			// A replica on remote state does not seal: the upstream's block, the one
			// pre-confirmed, becomes the head, and the View drops the block in progress with
			// it; it is discarded after.
			defer f.discard()
		} else if last.Block.Hash() == blocks[0].Hash() {
			sealed, err := f.pre.Seal(ctx)
			if err != nil {
				f.refuseBlock(blocks[0].NumberU64(), err)
				f.discard()
				return false
			}
			f.logBlock("block sealed from its verified pre-confirmations", sealed)
			f.cur = nil
			f.checkedTo = blocks[0].NumberU64()
			blocks = blocks[1:]
		} else if last.Number() == blocks[0].NumberU64() {
			// The sequencer sealed other than it pre-confirmed, or a feed without roots left
			// the sealed block to be checked here: retract the difference.
			f.cur = nil
			mismatch, err := f.pre.ReplaceWith(ctx, blocks[0])
			f.reportMismatch(blocks[0], mismatch)
			if err != nil {
				f.refuseBlock(blocks[0].NumberU64(), err)
				return false
			}
			f.checkedTo = blocks[0].NumberU64()
			blocks = blocks[1:]
		} else {
			f.discard()
		}
	}
	if len(blocks) == 0 {
		return true
	}
	err := f.chain.InsertBlocks(blocks)
	head := f.chain.Head().Number.Uint64()
	if head >= blocks[0].NumberU64() {
		f.checkedTo = head
	}
	if err != nil {
		f.refuseBlock(head+1, err)
		return false
	}
	if len(blocks) <= 2 { // following; catch-up logs its progress instead
		for _, b := range blocks {
			f.logBlock("block from the upstream", b)
		}
	}
	return true
}

// reportMismatch logs and counts a sealed block that does not begin with the transactions
// and receipts the replica pre-confirmed for it (nil: it does, and may add more).
func (f *Follower) reportMismatch(b *types.Block, m *preconf.Mismatch) {
	if m == nil {
		f.log.Debug("sealed block begins with its pre-confirmations", "number", b.NumberU64(), "hash", b.Hash(), "txs", len(b.Transactions()))
		return
	}
	f.log.Warn("sealed block differs from its pre-confirmations: retracted the difference", "number", b.NumberU64(), "hash", b.Hash(),
		"index", m.Index, "preconfirmed", m.Preconfirmed, "sealed", m.Sealed, "reason", m.Reason)
	if f.m != nil {
		f.m.PreconfMismatch()
	}
}

// logBlock logs one block the replica made its head.
func (f *Follower) logBlock(msg string, b *types.Block) {
	f.log.Info(msg, "number", b.NumberU64(), "hash", b.Hash(), "txs", len(b.Transactions()), "gasUsed", b.GasUsed())
}

// discard drops the block in progress and the flashblock sequence.
func (f *Follower) discard() {
	if f.pre.Last() != nil {
		f.pre.Discard()
	}
	f.cur = nil
}

// refuseBlock logs a block that could not be fetched or did not verify, once per block
// number and refuseLogEvery, and holds sync back for refuseBackoff: the upstream is asked
// again then, not at every poll.
func (f *Follower) refuseBlock(n uint64, err error) {
	now := time.Now()
	if n != f.refused.number || now.Sub(f.refused.logged) >= refuseLogEvery {
		f.log.Error("upstream block refused: not served", "number", n, "err", err)
		f.refused.number, f.refused.logged = n, now
	}
	f.refused.at = now
	if f.m != nil {
		f.m.VerificationFailed(metrics.FailBlock)
	}
}

// How a refused upstream block is retried and logged.
const (
	refuseBackoff  = time.Second
	refuseLogEvery = 10 * time.Second
)

// refusal is the last refused upstream block.
type refusal struct {
	number     uint64
	at, logged time.Time
}

// logProgress logs catch-up progress every progressEvery: blocks/s, Mgas/s and ETA.
func (f *Follower) logProgress(blocks []*types.Block, target uint64) {
	now := time.Now()
	p := &f.progress
	if p.start.IsZero() {
		p.start, p.last, p.from = now, now, blocks[0].NumberU64()-1
	}
	p.blocks += uint64(len(blocks))
	for _, b := range blocks {
		p.gas += b.GasUsed()
	}
	if now.Sub(p.last) < progressEvery {
		return
	}
	p.last = now
	elapsed := now.Sub(p.start).Seconds()
	rate := float64(p.blocks) / elapsed
	head := blocks[len(blocks)-1].NumberU64()
	eta := time.Duration(float64(target-min(target, head)) / rate * float64(time.Second))
	f.log.Info("catching up with the upstream", "head", head, "upstream", target,
		"blocks/s", fmt.Sprintf("%.0f", rate), "Mgas/s", fmt.Sprintf("%.1f", float64(p.gas)/1e6/elapsed), "eta", eta.Round(time.Second))
}

// endProgress logs the end of a catch-up that logged progress.
func (f *Follower) endProgress() {
	p := &f.progress
	if p.start.IsZero() {
		return
	}
	if p.last != p.start {
		elapsed := time.Since(p.start).Seconds()
		f.log.Info("caught up with the upstream", "head", f.chain.Head().Number.Uint64(), "blocks", p.blocks,
			"blocks/s", fmt.Sprintf("%.0f", float64(p.blocks)/elapsed), "Mgas/s", fmt.Sprintf("%.1f", float64(p.gas)/1e6/elapsed))
	}
	*p = progress{}
}

// linked returns the longest prefix of blocks in which each block's parent is the one
// before it: a batch the upstream answered across its own reorg, or with a block that is not
// what it claims, is inserted up to there (the rest is asked for again).
func linked(blocks []*types.Block) []*types.Block {
	for i := 1; i < len(blocks); i++ {
		if blocks[i].ParentHash() != blocks[i-1].Hash() {
			return blocks[:i]
		}
	}
	return blocks
}
