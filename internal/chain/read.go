package chain

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/impersonation"
)

// Head returns the header of the newest sealed block. It may be newer than the published
// Heads for a moment while a block is inserted; a request that must read one consistent
// state of the chain uses Heads.
func (c *Chain) Head() *types.Header { return c.bc.CurrentBlock() }

// Safe returns the safe block's header, or nil when none is set.
func (c *Chain) Safe() *types.Header { return c.bc.CurrentSafeBlock() }

// Finalized returns the finalized block's header, or nil when none is set.
func (c *Chain) Finalized() *types.Header { return c.bc.CurrentFinalBlock() }

// Genesis returns the genesis block.
func (c *Chain) Genesis() *types.Block { return c.bc.Genesis() }

// HeaderByNumber returns the canonical header at number, or nil.
func (c *Chain) HeaderByNumber(number uint64) *types.Header { return c.bc.GetHeaderByNumber(number) }

// HeaderByHash returns the header with this hash, canonical or not, or nil.
func (c *Chain) HeaderByHash(hash common.Hash) *types.Header { return c.bc.GetHeaderByHash(hash) }

// BlockByNumber returns the canonical block at number, or nil.
func (c *Chain) BlockByNumber(number uint64) *types.Block {
	return c.impersonated(c.bc.GetBlockByNumber(number)) // impersonated.go
}

// BlockByHash returns the block with this hash, canonical or not, or nil.
func (c *Chain) BlockByHash(hash common.Hash) *types.Block {
	return c.impersonated(c.bc.GetBlockByHash(hash)) // impersonated.go
}

// CanonicalHash returns the hash of the canonical block at number (zero when there is none).
func (c *Chain) CanonicalHash(number uint64) common.Hash { return c.bc.GetCanonicalHash(number) }

// Receipts returns the receipts of the block with this hash, with every derived field (block
// hash and number, transaction index, gas used, log positions) filled; nil when unknown. The
// slice is shared with go-ethereum's cache: callers must not modify it.
func (c *Chain) Receipts(hash common.Hash) types.Receipts {
	return c.impersonatedReceipts(hash, c.bc.GetReceiptsByHash(hash)) // impersonated.go
}

// TxLocation says where a sealed transaction is.
type TxLocation struct {
	BlockHash   common.Hash
	BlockNumber uint64
	Index       uint64
}

// Transaction returns a canonical transaction and where it is; ok is false when the hash is
// unknown.
func (c *Chain) Transaction(hash common.Hash) (tx *types.Transaction, loc TxLocation, ok bool) {
	tx, blockHash, number, index := rawdb.ReadCanonicalTransaction(c.db, hash)
	if tx == nil {
		return nil, TxLocation{}, false
	}
	if c.imp {
		impersonation.Recover(c.Config(), tx) // impersonated.go
	}
	return tx, TxLocation{BlockHash: blockHash, BlockNumber: number, Index: index}, true
}

// StateAt opens the state after the block with this header. Under the hash scheme every
// sealed block's state is kept (archive mode); under path, a state older than its memory
// layers is read through the state history (history.go), and one older than that is a
// *HistoryUnavailableError. The returned StateDB belongs to the caller; it reads through the
// shared reader of its root (statereader.go), so what one request read, the next finds.
func (c *Chain) StateAt(header *types.Header) (*state.StateDB, error) {
	st, err := c.stateAt(header)
	if err != nil && c.scheme == SchemePath && c.up == nil {
		return c.historicStateAt(header)
	}
	if err != nil {
		return nil, fmt.Errorf("state of block %d: %w", header.Number.Uint64(), err)
	}
	return st, nil
}

// BlockStateAt opens the state after parent for building a block at number and time on it:
// StateAt, except that on a chain with an upstream the slots the block's system calls
// overwrite are not read from the upstream, so that opening a block does not wait for it.
func (c *Chain) BlockStateAt(parent *types.Header, number, time uint64) (*state.StateDB, error) {
	if c.up == nil {
		return c.StateAt(parent)
	}
	st, err := c.up.BlockStateAt(parent, number, time)
	if err != nil {
		return nil, fmt.Errorf("state of block %d: %w", parent.Number.Uint64(), err)
	}
	return st, nil
}

func (c *Chain) stateAt(header *types.Header) (*state.StateDB, error) {
	if c.up != nil {
		return c.up.StateAt(header)
	}
	db := state.NewDatabase(c.bc.TrieDB(), c.bc.CodeDB()).WithSnapshot(c.bc.Snapshots())
	reader, err := c.readers.Get(header.Root, func() (*sharedReader, error) {
		inner, err := db.Reader(header.Root)
		if err != nil {
			return nil, err
		}
		var reopen func() (state.Reader, error)
		if c.scheme == SchemePath {
			reopen = func() (state.Reader, error) { return c.reopenState(db, header.Root) }
		}
		return newSharedReader(header.Root, inner, reopen), nil
	})
	if err != nil {
		return nil, err
	}
	return state.NewWithReader(header.Root, db, reader)
}

// reopenState opens root's state again after a cheated block's write merged the memory layers
// (persist.go): from the layers, if root is the disk layer's or above it, or else from the
// state history, whose error (not yet indexed, not kept) is then the read's.
func (c *Chain) reopenState(db state.Database, root common.Hash) (state.Reader, error) {
	if r, err := db.Reader(root); err == nil {
		return r, nil
	}
	return state.NewHistoricDatabase(c.bc.TrieDB(), c.bc.CodeDB()).Reader(root)
}
