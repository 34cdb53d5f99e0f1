package chain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/flashrpc/flashrpc/internal/networks"
)

// importBatch is how many blocks one InsertChain call takes (go-ethereum's import uses 2500).
const importBatch = 2500

// ImportProgress reports an import under way.
type ImportProgress struct {
	Done, Total int           // blocks inserted so far, blocks in the file
	Elapsed     time.Duration // since the import started
}

// Rate returns blocks per second so far.
func (p ImportProgress) Rate() float64 {
	if p.Elapsed <= 0 {
		return 0
	}
	return float64(p.Done) / p.Elapsed.Seconds()
}

// ETA estimates the time left at the rate so far.
func (p ImportProgress) ETA() time.Duration {
	rate := p.Rate()
	if rate == 0 {
		return 0
	}
	return time.Duration(float64(p.Total-p.Done) / rate * float64(time.Second))
}

// DecodeBlocks reads RLP-encoded blocks stored back to back (go-ethereum's export format, the
// genesis block excluded). A malformed file gives an error naming the block that failed.
func DecodeBlocks(r io.Reader) (types.Blocks, error) {
	stream := rlp.NewStream(r, 0)
	var blocks types.Blocks
	for i := 0; ; i++ {
		var b types.Block
		if err := stream.Decode(&b); errors.Is(err, io.EOF) {
			return blocks, nil
		} else if err != nil {
			return nil, fmt.Errorf("decode block %d of the file (after block %s): %w", i+1, lastNumber(blocks), err)
		}
		blocks = append(blocks, &b)
	}
}

func lastNumber(blocks types.Blocks) string {
	if len(blocks) == 0 {
		return "none"
	}
	return fmt.Sprint(blocks[len(blocks)-1].NumberU64())
}

// Import executes, validates and inserts blocks, calling progress after every batch. On a
// failure the chain is rewound to the head it had before, so the database is left as it was;
// the error names the failing block and the reason. A block at which a fork flashrpc does not
// run is active (networks.RuleCheck) is refused before any block is executed.
func (c *Chain) Import(ctx context.Context, blocks types.Blocks, progress func(ImportProgress)) error {
	rules := networks.NewRuleCheck(c.Config())
	for _, b := range blocks {
		if err := rules.Check(b.NumberU64(), b.Time()); err != nil {
			return fmt.Errorf("import: block %d (%s): %w", b.NumberU64(), b.Hash().TerminalString(), err)
		}
	}
	before := c.Head()
	start := time.Now()
	for done := 0; done < len(blocks); {
		if err := ctx.Err(); err != nil {
			return errors.Join(fmt.Errorf("import interrupted: %w", err), c.rewind(before))
		}
		end := min(done+importBatch, len(blocks))
		if err := c.InsertBlocks(blocks[done:end]); err != nil {
			return errors.Join(fmt.Errorf("import: %w", err), c.rewind(before))
		}
		done = end
		if progress != nil {
			progress(ImportProgress{Done: done, Total: len(blocks), Elapsed: time.Since(start)})
		}
	}
	return nil
}

// rewind sets the head back to before, deleting what an import added.
func (c *Chain) rewind(before *types.Header) error {
	if c.Head().Hash() == before.Hash() {
		return nil
	}
	if err := c.setHead(before.Number.Uint64()); err != nil { // reorg.go: announces the dropped blocks
		return fmt.Errorf("rewind to block %d: %w", before.Number.Uint64(), err)
	}
	return c.db.SyncKeyValue()
}

// SetForkchoice sets the head, safe and finalized blocks, as an engine API forkchoice update
// does. Each hash must be a block of the chain; the head must be canonical.
func (c *Chain) SetForkchoice(head, safe, finalized common.Hash) error {
	h := c.HeaderByHash(head)
	if h == nil {
		return fmt.Errorf("forkchoice: unknown head block %s", head)
	}
	if c.CanonicalHash(h.Number.Uint64()) != head {
		return fmt.Errorf("forkchoice: head block %s is not canonical", head)
	}
	if c.Head().Hash() != head {
		if err := c.setHead(h.Number.Uint64()); err != nil { // reorg.go: announces the dropped blocks
			return fmt.Errorf("forkchoice: set head to %d: %w", h.Number.Uint64(), err)
		}
	}
	for _, m := range []struct {
		name string
		hash common.Hash
		set  func(*types.Header)
	}{{"safe", safe, c.SetSafe}, {"finalized", finalized, c.SetFinalized}} {
		if m.hash == (common.Hash{}) {
			continue
		}
		hdr := c.HeaderByHash(m.hash)
		if hdr == nil {
			return fmt.Errorf("forkchoice: unknown %s block %s", m.name, m.hash)
		}
		m.set(hdr)
	}
	return c.db.SyncKeyValue()
}
