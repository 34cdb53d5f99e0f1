package chain

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/chain/kvstore"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/recent"
)

// Storage defaults. go-ethereum's node uses a 2 GB database cache; a dev chain or a replica of a
// young chain needs far less (reference/go-ethereum.md §4.5).
const (
	defaultCacheMB = 64
	// MinStateCacheMB is the least Config.StateCacheMB that is what it says: each of the two
	// caches (fastcache) keeps at least one 64 KiB chunk in each of its 512 buckets, 32 MB.
	MinStateCacheMB = 64
	defaultHandles  = 256
	chainDataSubdir = "chaindata"
)

// Config says where the chain lives and what it starts from.
type Config struct {
	// DataDir holds the database. Empty means a temporary directory that Close removes.
	DataDir string
	// Genesis is written into an empty database. For an existing database it must match the
	// stored genesis (nil accepts whatever is stored; Open then fails on an empty database).
	Genesis *core.Genesis
	// CacheMB is Pebble's block cache in MB; zero means 64.
	CacheMB int
	// StateCacheMB is the memory for caching state in MB, half for trie nodes and half for
	// the snapshot's flat state (go-ethereum's clean caches); zero means go-ethereum's 256 +
	// 256. Both caches live outside the Go heap and fill as the state is written and read,
	// then reuse their memory: a node's resident memory grows by up to this much after it
	// starts, and no further (docs/operations.md, "Memory").
	StateCacheMB int
	// Logger receives the chain's own log lines; nil discards them.
	Logger *slog.Logger
	// OpenUpstream, when set, opens the upstream chain this one continues (upstream.go,
	// internal/fork) once the database is open; when it opens one, Genesis is ignored. Nil
	// opens a chain of its own, and refuses a database that holds a fork.
	OpenUpstream OpenUpstream
	// Impersonation makes the reads of blocks and transactions recognise the dev chain's
	// impersonated transactions (internal/impersonation) and give them their sender. Only for
	// the dev chain: on any other chain a transaction shaped like one would show a forged
	// sender.
	Impersonation bool
	// Preimages keeps the preimages of state trie keys (addresses and storage slots), so that
	// the state can be listed by address (DumpState, anvil_dumpState). It costs a write per
	// new key; the dev chain sets it. A chain opened without it lists only what was written
	// with it.
	Preimages bool
	// Denim is when the chain runs Denim, Base's 200 ms blocks (internal/oprollup): a chain
	// configuration has no field for it. From then on a block may carry its parent's
	// timestamp (oprollup.HeaderRules). The chain stores it when it is first opened (nil: the
	// chain does not run Denim) and reads it back (Chain.Denim): nil then means the stored
	// time, and another value is an error naming both (ErrDenimConflict).
	Denim *uint64
	// NoCodeSizeLimit lifts EIP-170's and EIP-3860's code-size limits from every EVM of the
	// chain (oprollup.LiftCodeSizeLimits): a dev chain's option (--disable-code-size-limit).
	// The chain does not store it: a chain opened without it runs the limits again.
	NoCodeSizeLimit bool
	// StateScheme is how the state is stored (scheme.go): SchemeHash, the archive, or
	// SchemePath, one state on disk with a bounded history. Empty means the scheme of the
	// state in the database, hash for a new one; another scheme than the stored one is an
	// error naming both (ErrSchemeConflict). A chain with an upstream (fork mode) is hash only.
	StateScheme string
	// StateHistory is how many recent blocks keep their state history under the path scheme:
	// their states can be read and the chain rewound to them. Nil means DefaultStateHistory,
	// 0 every block. It does nothing under hash.
	StateHistory *uint64
}

// ErrNoChain is Open's error for a database that holds no chain when Config.Genesis is nil.
var ErrNoChain = errors.New("holds no chain")

// Chain is the sealed chain. It is safe for concurrent use.
type Chain struct {
	bc      *core.BlockChain
	db      ethdb.Database
	kv      *kvstore.Store // db's key-value store
	engine  consensus.Engine
	dir     string // the data directory
	tempDir string // removed by Close when the chain lives in a temporary directory
	log     *slog.Logger
	imp     bool   // Config.Impersonation
	scheme  string // the state scheme, SchemeHash or SchemePath
	// stateHistory is Config.StateHistory resolved: blocks whose state history is kept (path).
	stateHistory uint64
	denim        *uint64                                  // Config.Denim
	readers      *recent.List[common.Hash, *sharedReader] // state readers shared by the StateDBs of recent roots (statereader.go)
	stateEpoch   atomic.Uint64                            // bumped when the readers of older states are dropped (persist.go)

	heads atomic.Pointer[Heads] // the published markers (heads.go)
	// committed is the block CommitExecuted committed until Write has set it as the head:
	// Context knows its header (write.go).
	committed atomic.Pointer[committedHeader]
	headsPub  headsPublisher // publishes heads; OnHeads listeners

	mu        sync.Mutex // guards listeners
	listeners []func(HeadEvent)
	reorgs    reorgListeners // OnReorg, reorg.go

	// up is the upstream the chain continues (upstream.go); nil for a chain of its own.
	up      Upstream
	writeMu sync.Mutex // serialises the writes of a chain with an upstream (BlockChain.SetCanonical refuses to wait)

	headMu sync.Mutex // held while setExecutedHead writes the head markers (headset.go)
	closed bool       // Close has begun: setExecutedHead refuses; guarded by headMu
}

// Open opens (or creates) the chain database in cfg.DataDir and loads the head.
func Open(cfg Config) (*Chain, error) {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Chain{log: logger, imp: cfg.Impersonation, readers: newSharedReaders()}
	dir := cfg.DataDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "flashrpc-")
		if err != nil {
			return nil, fmt.Errorf("open chain: temporary directory: %w", err)
		}
		dir, c.tempDir = tmp, tmp
	}
	c.dir = dir
	cache := cfg.CacheMB
	if cache == 0 {
		cache = defaultCacheMB
	}
	kv, err := kvstore.Open(filepath.Join(dir, chainDataSubdir), cache, defaultHandles, false)
	if err != nil {
		c.removeTemp()
		return nil, fmt.Errorf("open chain: database in %s: %w", dir, err)
	}
	c.kv, c.db = kv, rawdb.NewDatabase(newCloseGuard(kv)) // closeguard.go: Close waits for open iterators
	var storeScheme bool
	if c.scheme, storeScheme, err = resolveScheme(c.db, cfg.StateScheme, dir); err != nil { // scheme.go
		return nil, errors.Join(fmt.Errorf("open chain: %w", err), c.closeDB())
	}
	c.stateHistory = DefaultStateHistory
	if cfg.StateHistory != nil {
		c.stateHistory = *cfg.StateHistory
	}
	if c.scheme == SchemePath {
		c.db = historyDB{Database: c.db, ancient: ancientDir(dir)}
	}
	genesis := cfg.Genesis
	if cfg.OpenUpstream != nil {
		up, err := cfg.OpenUpstream(c.db, dir, logger)
		if err != nil {
			return nil, errors.Join(err, c.closeDB())
		}
		if up != nil && c.scheme == SchemePath {
			return nil, errors.Join(fmt.Errorf("open chain: %s: --state.scheme %s is for chains with their own state; a fork, or a replica reading the upstream's state, keeps %s", dir, SchemePath, SchemeHash), c.closeDB())
		}
		if up != nil {
			c.up = up
			genesis = nil // the upstream wrote the chain's block 0
		}
	} else if has, _ := c.db.Has(append([]byte(UpstreamTable), upstreamMetaKey...)); has {
		return nil, errors.Join(fmt.Errorf("open chain: %s holds a fork of another chain: open it with internal/fork", dir), c.closeDB())
	}
	newChain := rawdb.ReadCanonicalHash(c.db, 0) == (common.Hash{})
	if genesis == nil && newChain {
		return nil, errors.Join(fmt.Errorf("open chain: %s %w (import one first)", dir, ErrNoChain), c.closeDB())
	}
	denim, storeDenim, err := resolveDenim(c.db, cfg.Denim, dir, newChain) // denimtime.go
	if err == nil && storeDenim && newChain {
		err = writeDenim(c.db, denim) // before the genesis is committed
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open chain: %w", err), c.closeDB())
	}
	c.denim = denim
	c.engine = oprollup.HeaderRules(newEngine(), denim)                      // rules.go
	bcConfig := blockChainConfig(c.scheme, c.stateHistory, cfg.StateCacheMB) // scheme.go
	if c.up != nil {
		// Fork blocks commit their state through the fork's own state.Database, past the
		// snapshot tree, which would go stale; the local trie is small.
		bcConfig.SnapshotLimit = 0
	}
	bcConfig.Preimages = cfg.Preimages
	var unpersisted []*types.Block
	if c.scheme == SchemePath {
		unpersisted = pathUnpersisted(c.db) // recover.go: blocks the BlockChain may rewind
	}
	bc, err := core.NewBlockChain(c.db, genesis, c.engine, bcConfig)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open chain: %w", err), c.closeDB())
	}
	if cfg.NoCodeSizeLimit {
		oprollup.LiftCodeSizeLimits(bc.Config())
	}
	applyRules(bc, denim) // rules.go: the forks op-geth does not run, before any block executes
	if storeDenim && !newChain {
		// Once the chain is there: a chain that failed to open keeps no Denim time.
		if err := writeDenim(c.db, denim); err != nil {
			bc.Stop()
			return nil, errors.Join(fmt.Errorf("open chain: %w", err), c.closeDB())
		}
	}
	if storeScheme {
		// Once the chain is there, and under path once its genesis state is on disk.
		err := writeScheme(c.db, c.scheme)
		if err == nil && c.scheme == SchemePath && bc.CurrentBlock().Number.Sign() == 0 {
			err = waitGenesisState(c.db, bc.Genesis().Root())
		}
		if err != nil {
			bc.Stop()
			return nil, errors.Join(fmt.Errorf("open chain: %w", err), c.closeDB())
		}
	}
	c.bc = bc
	if n, err := c.reexecute(unpersisted); err != nil { // recover.go
		c.log.Error("open chain: sealed blocks lost", "err", err, "reexecuted", n, "head", bc.CurrentBlock().Number.Uint64())
	} else if n > 0 {
		c.log.Info("open chain: blocks executed again after an unclean stop", "blocks", n, "head", bc.CurrentBlock().Number.Uint64())
	}
	if c.up != nil {
		if err := c.up.Start(Store{BlockChain: bc, DB: c.db, Engine: c.engine, Denim: c.Denim()}); err != nil {
			bc.Stop()
			return nil, errors.Join(fmt.Errorf("open chain: %w", err), c.closeDB())
		}
	}
	c.publishHeads()
	return c, nil
}

// newEngine returns the consensus engine: beacon over a fake ethash accepts both the dev chain
// (merged from genesis) and imported chains that start with proof-of-work blocks; the faker
// skips only the PoW seal check.
func newEngine() consensus.Engine { return beacon.New(ethash.NewFaker()) }

// Close stops the chain, flushes what go-ethereum keeps in memory, closes the database and
// removes a temporary data directory. Stop what reads and writes the chain first (the
// sequencer and its chain write, the log index, the endpoints); iterators still open are
// waited for (closeguard.go), and Pebble's own report of anything left open is returned.
func (c *Chain) Close() error {
	c.headMu.Lock()
	c.closed = true
	c.headMu.Unlock()
	c.stopSnapshotGenerator()
	c.bc.Stop()
	return errors.Join(c.closeDB(), c.removeTemp())
}

// stopSnapshotGenerator stops go-ethereum's snapshot generator when BlockChain.Stop would
// leave it running: Stop journals the snapshot tree from the head's layer, and only that
// stops the generator; when the head has no layer (the chain was set back below the
// snapshot's disk layer, or a block's state was committed past the tree) the journal fails
// and the generator goes on iterating the database while it closes. Journaling the disk
// layer stops it and records its progress.
func (c *Chain) stopSnapshotGenerator() {
	snaps := c.bc.Snapshots()
	if snaps == nil || snaps.Snapshot(c.bc.CurrentBlock().Root) != nil {
		return
	}
	if root := snaps.DiskRoot(); root != (common.Hash{}) {
		if _, err := snaps.Journal(root); err != nil {
			c.log.Warn("close chain: journal the state snapshot's disk layer", "err", err)
		}
	}
}

func (c *Chain) closeDB() error {
	if err := c.db.Close(); err != nil {
		c.removeTemp()
		return fmt.Errorf("close chain database: %w", err)
	}
	return c.removeTemp()
}

func (c *Chain) removeTemp() error {
	if c.tempDir == "" {
		return nil
	}
	dir := c.tempDir
	c.tempDir = ""
	return os.RemoveAll(dir)
}

// DataDir returns the directory the chain lives in (a temporary one when Config.DataDir was
// empty).
func (c *Chain) DataDir() string { return c.dir }

// WriteStalls returns the database's write stalls since the chain was opened: the time its
// writes waited for a flush or compaction (kvstore.WriteStalls).
func (c *Chain) WriteStalls() kvstore.WriteStalls { return c.kv.WriteStalls() }

// Config returns the chain's fork configuration.
func (c *Chain) Config() *params.ChainConfig { return c.bc.Config() }

// Engine returns the consensus engine blocks are verified with.
func (c *Chain) Engine() consensus.Engine { return c.engine }

// Context returns the chain as go-ethereum's ChainContext: header lookups for BLOCKHASH and the
// engine, as EVM block contexts need them. Its headers include the block CommitExecuted
// committed while it is being written, which the next block's BLOCKHASH may walk through.
func (c *Chain) Context() core.ChainContext {
	if c.up != nil {
		return c.up.Context(c.bc)
	}
	if c.committed.Load() == nil {
		return c.bc
	}
	return committedContext{ChainContext: c.bc, c: c}
}
