package fork

import (
	"context"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/triedb"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// ErrForkStateRead wraps an upstream failure met while executing a block: the block is not
// bad, its state could not be read; inserting it again later may succeed.
var ErrForkStateRead = errors.New("fork: state read failed")

// Insert implements chain.Upstream: a replica's block is checked and written without
// executing it (replica.go), any other is executed (forkInsert).
func (f *Upstream) Insert(block *types.Block) error {
	if f.info.Replica {
		return f.replicaInsert(block)
	}
	return f.forkInsert(block)
}

// Write implements chain.Upstream: the state of a block its caller executed is written with
// the fork's records, as a block the fork executed itself.
func (f *Upstream) Write(block *types.Block, receipts types.Receipts, st *state.StateDB) error {
	cfg := f.bc.Config()
	return f.write(block, receipts, st, nil, f.bc.TrieDB(), cfg.IsCancun(block.Number(), block.Time()), cfg.IsEIP158(block.Number()))
}

// forkInsert executes and validates block on its parent's fork state as core.BlockChain's
// InsertChain would (same engine, processor and validator), writes it with its state and
// records, and makes it the head with BlockChain.SetCanonical. Its parent must be the head.
func (f *Upstream) forkInsert(block *types.Block) error {
	head := f.bc.CurrentBlock()
	if block.ParentHash() != head.Hash() {
		return fmt.Errorf("fork: block %d builds on %s, not on the head %d (%s)", block.NumberU64(), block.ParentHash().TerminalString(), head.Number.Uint64(), head.Hash().TerminalString())
	}
	ctx := f.Context(f.bc)
	if err := f.engine.VerifyHeader(ctx, block.Header()); err != nil {
		return fmt.Errorf("header: %w", err)
	}
	if err := f.bc.Validator().ValidateBody(block); err != nil {
		return fmt.Errorf("body: %w", err)
	}
	st, err := f.forkBlockState(head, f.bc.Config(), block.NumberU64(), block.Time())
	if err != nil {
		return err
	}
	var wiped []common.Address
	hooks := &tracing.Hooks{OnNonceChangeV2: func(addr common.Address, _, _ uint64, reason tracing.NonceChangeReason) {
		if reason == tracing.NonceChangeSelfdestruct {
			wiped = append(wiped, addr)
		}
	}}
	// BaseTime's implementation, before a Denim block's transactions, when the state lacks
	// it (as the chain's own processor does).
	if err := chain.EnsureBaseTime(f.denim, block.Time(), st); err != nil {
		return fmt.Errorf("block %d: %w", block.NumberU64(), err)
	}
	// The fork's blocks execute with the precompiles every other EVM of the chain runs.
	res, err := core.NewStateProcessor(ctx).Process(context.Background(), block, st, oprollup.VMConfig(f.bc.Config(), vm.Config{Tracer: hooks}))
	// An upstream read that failed left zeros in the state: the result says nothing about
	// the block, so the failure is reported first.
	if serr := st.Error(); serr != nil {
		return fmt.Errorf("%w: %w", ErrForkStateRead, serr)
	}
	if err != nil {
		return fmt.Errorf("process: %w", err)
	}
	if err := f.bc.Validator().ValidateState(block, st, res, false); err != nil {
		return fmt.Errorf("validate: %w", err)
	}
	if err := f.write(block, res.Receipts, st, wiped, f.bc.TrieDB(), f.bc.Config().IsCancun(block.Number(), block.Time()), f.bc.Config().IsEIP158(block.Number())); err != nil {
		return err
	}
	if _, err := f.bc.SetCanonical(block); err != nil {
		return fmt.Errorf("set canonical: %w", err)
	}
	return nil
}

// write commits block's state st into the trie database (and flushes it: archive), then
// writes the block, its receipts, the records of what it wrote (records.go) and its state
// root in one batch. wiped are the accounts a tracer saw self-destruct (a destroyed and
// recreated account looks like an update in the commit's report).
func (f *Upstream) write(block *types.Block, receipts types.Receipts, st *state.StateDB, wiped []common.Address, tdb *triedb.Database, cancun, eip158 bool) error {
	number := block.NumberU64()
	// A StateDB asks its database for the reader of the new root right after committing.
	f.setRoot(block.Root(), number)
	root, update, err := st.CommitWithUpdate(number, eip158, cancun)
	if err != nil {
		return fmt.Errorf("commit state of block %d: %w", number, err)
	}
	if root != block.Root() {
		return fmt.Errorf("commit state of block %d: root %s, the header says %s", number, root, block.Root())
	}
	if err := tdb.Commit(root, false); err != nil {
		return fmt.Errorf("flush state of block %d: %w", number, err)
	}
	tu, err := update.ToTracingUpdate()
	if err != nil {
		return err
	}
	slots := make(map[common.Address][]common.Hash, len(tu.StorageChanges))
	for addr, changes := range tu.StorageChanges {
		for key := range changes {
			if cancun { // plain slot keys (no storage wiping); before Cancun they are hashes
				key = crypto.Keccak256Hash(key[:])
			}
			slots[addr] = append(slots[addr], key)
		}
	}
	for addr, ch := range tu.AccountChanges {
		if ch.New == nil {
			wiped = append(wiped, addr)
		}
	}
	batch := f.db.NewBatch()
	rawdb.WriteBlock(batch, block)
	rawdb.WriteReceipts(batch, block.Hash(), number, receipts)
	if err := f.rec.add(tableWriter{batch, forkPrefix}, number, root, slots, wiped); err != nil {
		return err
	}
	if err := batch.Write(); err != nil {
		return fmt.Errorf("write block %d: %w", number, err)
	}
	return nil
}

// tableWriter writes into a batch of the whole database under a table's prefix, so that a
// block and its records land in one batch.
type tableWriter struct {
	batch  interface{ Put(key, value []byte) error }
	prefix string
}

func (w tableWriter) Put(key, value []byte) error {
	return w.batch.Put(append([]byte(w.prefix), key...), value)
}

func (w tableWriter) Delete(key []byte) error {
	return errors.New("fork: tableWriter does not delete")
}

var _ consensus.ChainHeaderReader = forkContext{}
