package chain

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/chain/kvstore"
)

// bulkBatchBytes is how much a BulkWriter buffers before it writes to the database.
const bulkBatchBytes = 16 << 20

// BulkWriter appends blocks built elsewhere, with their receipts, straight to a chain database
// without executing them. It exists for the chain generator (internal/chaingen), which writes
// a million blocks in minutes where executing them through Insert would take far longer.
//
// It writes what go-ethereum's block insertion writes for a block, under the same keys
// (core/rawdb): header, body, receipts, canonical hash, transaction lookup entries, and at
// Close the head markers and the transaction index tail. A datadir it wrote opens with Open
// and serves every block, receipt, transaction and log like any other. Nothing checks that the
// blocks are valid: the caller vouches for hashes, roots and blooms. State is not written, so
// a block's state root must name a state the database already holds (the generator uses the
// genesis state root for every block: logs do not depend on state).
//
// A BulkWriter is not safe for concurrent use, and no Chain may have the datadir open while it
// is in use (Pebble's lock refuses a second opener).
type BulkWriter struct {
	db     ethdb.Database
	batch  ethdb.Batch
	head   *types.Header
	config *params.ChainConfig
}

// OpenBulk opens the chain in cfg.DataDir for bulk appends after its head, creating it from
// cfg.Genesis first when it is empty. cfg.DataDir must be set.
func OpenBulk(cfg Config) (*BulkWriter, error) {
	if cfg.DataDir == "" {
		return nil, errors.New("open bulk writer: a datadir is required")
	}
	// Open writes the genesis (or checks it) exactly as the node does; then the database is
	// reopened without core.BlockChain, which would hold its own idea of the head.
	c, err := Open(cfg)
	if err != nil {
		return nil, err
	}
	head, config := c.Head(), c.Config()
	if err := c.Close(); err != nil {
		return nil, err
	}
	cache := cfg.CacheMB
	if cache == 0 {
		cache = defaultCacheMB
	}
	kv, err := kvstore.Open(filepath.Join(cfg.DataDir, chainDataSubdir), cache, defaultHandles, false)
	if err != nil {
		return nil, fmt.Errorf("open bulk writer: %w", err)
	}
	db := rawdb.NewDatabase(kv)
	return &BulkWriter{db: db, batch: db.NewBatch(), head: head, config: config}, nil
}

// Head returns the header of the last block appended (the chain's head when none was).
func (w *BulkWriter) Head() *types.Header { return w.head }

// Config returns the chain's fork configuration.
func (w *BulkWriter) Config() *params.ChainConfig { return w.config }

// Append writes block, whose parent must be the current head, with its receipts (one per
// transaction, in the block's order). The block becomes the head at Close; until then a crash
// leaves the database at its previous head.
func (w *BulkWriter) Append(block *types.Block, receipts types.Receipts) error {
	if block.NumberU64() != w.head.Number.Uint64()+1 || block.ParentHash() != w.head.Hash() {
		return fmt.Errorf("bulk append: block %d (parent %s) does not extend head %d (%s)",
			block.NumberU64(), block.ParentHash().TerminalString(), w.head.Number.Uint64(), w.head.Hash().TerminalString())
	}
	if len(receipts) != len(block.Transactions()) {
		return fmt.Errorf("bulk append: block %d has %d transactions but %d receipts", block.NumberU64(), len(block.Transactions()), len(receipts))
	}
	hash, number := block.Hash(), block.NumberU64()
	rawdb.WriteBlock(w.batch, block)
	rawdb.WriteReceipts(w.batch, hash, number, receipts)
	rawdb.WriteCanonicalHash(w.batch, hash, number)
	rawdb.WriteTxLookupEntriesByBlock(w.batch, block)
	w.head = block.Header()
	if w.batch.ValueSize() >= bulkBatchBytes {
		if err := w.batch.Write(); err != nil {
			return fmt.Errorf("bulk append: write up to block %d: %w", number, err)
		}
		w.batch.Reset()
	}
	return nil
}

// Close writes what is buffered, makes the last appended block the head, syncs and closes the
// database.
func (w *BulkWriter) Close() error {
	hash := w.head.Hash()
	rawdb.WriteHeadHeaderHash(w.batch, hash)
	rawdb.WriteHeadFastBlockHash(w.batch, hash)
	rawdb.WriteHeadBlockHash(w.batch, hash)
	// Every appended block's transactions are indexed already; without a tail marker
	// go-ethereum would index the whole chain again at the next start.
	if rawdb.ReadTxIndexTail(w.db) == nil {
		rawdb.WriteTxIndexTail(w.batch, 0)
	}
	err := w.batch.Write()
	if err == nil {
		err = w.db.SyncKeyValue()
	}
	if err != nil {
		err = fmt.Errorf("close bulk writer: %w", err)
	}
	return errors.Join(err, w.db.Close())
}
