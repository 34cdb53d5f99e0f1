package chain

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/params"
)

// State schemes (Config.StateScheme), with go-ethereum's names.
//
// SchemeHash is the archive: every block's state trie is committed to disk as the block is
// written, so every historic state can be read and proven, and a sealed block's state is on
// disk before the block is announced. The database grows with every block.
//
// SchemePath is go-ethereum's path-based scheme: one state on disk, overwritten in place, the
// last 128 blocks' changes in memory above it, and a state history (reverse diffs, in a
// freezer under chaindata/ancient/state) for the last Config.StateHistory blocks, through which
// older states are read and the chain is rewound. The database stays bounded. The memory layers
// reach the disk only at a clean shutdown (a journal); after kill -9 the disk state may be older
// than the head, and Open re-executes the blocks above it (recover.go).
const (
	SchemeHash = rawdb.HashScheme
	SchemePath = rawdb.PathScheme
)

// DefaultStateHistory is go-ethereum's default of --history.state: how many recent blocks
// keep their state history under the path scheme (about 12.5 days of Ethereum, 2 days of an
// OP chain at 2 s, 5 hours at Base's 200 ms).
const DefaultStateHistory = params.FullImmutabilityThreshold

// pathWriteBufferMB bounds the changes the path scheme collects below its memory layers before
// it writes them to disk (go-ethereum's default is 64 MB). Everything above the last write is
// re-executed after kill -9 (recover.go), so a smaller buffer keeps that short.
const pathWriteBufferMB = 16

// ErrSchemeConflict is Open's error for a Config.StateScheme other than the one the database
// keeps its state in.
var ErrSchemeConflict = errors.New("conflicts with the state scheme of the chain")

// schemeKey is the database key under which Open records the chain's state scheme when it
// creates the chain. go-ethereum reads the scheme from the state itself (rawdb.ReadStateScheme),
// which tells nothing until the path scheme's first write of the state reaches the disk, in
// the background: a path chain killed before then would be taken for an empty one.
var schemeKey = []byte("flashrpc-state-scheme")

// resolveScheme returns the state scheme of the chain in db opened with want: the stored one
// when want is empty (hash for a database without state), want when it agrees, an error
// naming both when it does not. store says that Open must record it (writeScheme).
func resolveScheme(db ethdb.Database, want, dir string) (scheme string, store bool, err error) {
	switch want {
	case "", SchemeHash, SchemePath:
	default:
		return "", false, fmt.Errorf("state scheme %q: want %s or %s", want, SchemeHash, SchemePath)
	}
	stored, err := db.Get(schemeKey)
	if err != nil || len(stored) == 0 {
		stored = []byte(rawdb.ReadStateScheme(db)) // a datadir from before the key
		store = true
	}
	scheme, err = pickScheme(string(stored), want, dir)
	return scheme, store, err
}

// writeScheme records the chain's state scheme (schemeKey).
func writeScheme(db ethdb.KeyValueWriter, scheme string) error {
	if err := db.Put(schemeKey, []byte(scheme)); err != nil {
		return fmt.Errorf("record the state scheme: %w", err)
	}
	return nil
}

// pickScheme returns the scheme of a chain stored with stored ("" for none) opened with want.
func pickScheme(stored, want, dir string) (string, error) {
	switch {
	case stored == "" && want == "":
		return SchemeHash, nil
	case stored == "":
		return want, nil
	case want == "" || want == stored:
		return stored, nil
	}
	return "", fmt.Errorf("state scheme %s %w in %s (%s): give --state.scheme %s or none, or another --datadir (a datadir keeps the scheme it was created with)", want, ErrSchemeConflict, dir, stored, stored)
}

// historyDB is the chain database as go-ethereum's path scheme sees it: the chain keeps its
// blocks in Pebble only (no freezer of ancient blocks), but the path scheme keeps its state
// history in a freezer of its own, in the directory AncientDatadir names; without one it keeps
// none and can neither rewind nor read an older state.
type historyDB struct {
	ethdb.Database
	ancient string
}

// AncientDatadir returns the directory of the state history freezer.
func (d historyDB) AncientDatadir() (string, error) { return d.ancient, nil }

// ancientDir is where the path scheme's state history lives (chaindata/ancient, as in geth).
func ancientDir(dir string) string { return filepath.Join(dir, chainDataSubdir, "ancient") }

// blockChainConfig returns go-ethereum's configuration of the chain's storage for scheme.
// Archive mode means, with hash, that every block's state is flushed as it is inserted; with
// path, that the state history is indexed so that older states can be read through it.
// stateCacheMB (Config.StateCacheMB) is split between the trie node and snapshot caches.
func blockChainConfig(scheme string, stateHistory uint64, stateCacheMB int) *core.BlockChainConfig {
	cfg := core.DefaultConfig().WithArchive(true).WithStateScheme(scheme)
	if stateCacheMB > 0 {
		cfg.TrieCleanLimit = stateCacheMB / 2
		cfg.SnapshotLimit = stateCacheMB - cfg.TrieCleanLimit
	}
	cfg.TxLookupLimit = 0 // index every transaction: eth_getTransactionByHash needs it
	if scheme == SchemePath {
		cfg.StateHistory = stateHistory
		cfg.TrienodeHistory = -1               // no historic proofs: their history would grow as fast as an archive
		cfg.TrieDirtyLimit = pathWriteBufferMB // written in the background, off the seal's path
	}
	return cfg
}

// waitGenesisState waits until the path scheme has written the genesis state to db: it does so
// in the background, and a chain whose genesis state is not on disk after kill -9 has nothing
// to execute its blocks on again.
func waitGenesisState(db ethdb.Database, genesisRoot common.Hash) error {
	deadline := time.Now().Add(genesisStateWait)
	for genesisRoot != types.EmptyRootHash && !rawdb.HasAccountTrieNode(db, nil) {
		if time.Now().After(deadline) {
			return fmt.Errorf("the genesis state was not written within %s", genesisStateWait)
		}
		time.Sleep(time.Millisecond)
	}
	return db.SyncKeyValue()
}

// genesisStateWait bounds waitGenesisState: a genesis state is written in milliseconds.
const genesisStateWait = 30 * time.Second
