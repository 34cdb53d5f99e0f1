package fork

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/networks"
	"github.com/flashrpc/flashrpc/internal/recent"
	"github.com/flashrpc/flashrpc/internal/remote"
)

// Config configures fork mode (Open).
type Config struct {
	// URL is the upstream's JSON-RPC endpoint (--fork-url).
	URL string
	// Block is the upstream block to fork (--fork-block-number); nil means the upstream's
	// latest when the fork is created, a negative value that many blocks before it. A datadir
	// that holds a fork of another block is refused.
	Block *int64
	// ChainID is the local chain's id (--chain-id); zero means the upstream's.
	ChainID uint64
	// UpstreamChainID, when set (--fork-chain-id), is taken as the upstream's chain id
	// without asking it, and a restart does not contact the upstream at all (anvil's offline
	// start); it must match the datadir's fork.
	UpstreamChainID uint64
	// Offline, when UpstreamChainID is set, says why the upstream is not asked at start, for
	// the log; "" means --fork-chain-id.
	Offline string
	// Kind selects the rules of an unknown chain (--chain-type); "" means Ethereum's. A known
	// chain runs its own and must not be given another kind.
	Kind networks.Kind
	// Network names a network (--network, networks.LookupName). An upstream whose chain id is
	// a known network's runs that network's rules, and Network must name it; an upstream whose
	// chain id is no network's (a local chain) runs Network's rules as of the fork's creation
	// (networks.Network.RulesAsOf) instead of its kind's. "" leaves the rules to the upstream's
	// chain id and Kind.
	Network string
	// Retries, Backoff and Timeout configure the upstream client (--fork-retries,
	// --fork-retry-backoff); see remote.Config.
	Retries int
	Backoff time.Duration
	Timeout time.Duration
	// NoCache keeps what is read from the upstream in memory only (--no-storage-caching).
	NoCache bool
	// Funded accounts get Balance in the first forked block (the dev accounts).
	Funded  []common.Address
	Balance *big.Int
	// Observer is told of upstream requests and cache reads (metrics); nil observes nothing.
	Observer remote.Observer
	// Replica makes the fork a remote-state replica (flashrpc follow --state remote,
	// replica.go): no first forked block is written (the head is N), and the blocks
	// after N are the upstream's, inserted without executing them, each block's state read
	// from the upstream at that block. Funded and Balance do not apply.
	Replica bool
}

// Info is what a fork datadir remembers about its fork (the meta key).
type Info struct {
	// URL is the upstream it was created from.
	URL string `json:"url"`
	// UpstreamChainID is the upstream's chain id; ChainID the local chain's.
	UpstreamChainID uint64 `json:"upstreamChainId"`
	ChainID         uint64 `json:"chainId"`
	// Number and Hash name the fork block N.
	Number uint64      `json:"number"`
	Hash   common.Hash `json:"hash"`
	// GenesisHash is the upstream's block 0 hash.
	GenesisHash common.Hash `json:"genesisHash"`
	// Network names the rules the fork runs and where they come from.
	Network string `json:"network"`
	Kind    string `json:"kind"`
	// RootNode says whether the upstream proved the root node of N's state, which lets the
	// chain rewind to N itself.
	RootNode bool `json:"rootNode"`
	// Created is when the fork was created (Unix seconds).
	Created int64 `json:"created"`
	// Replica marks a remote-state replica's chain (Config.Replica).
	Replica bool `json:"replica,omitempty"`
}

// forkMetaKey holds the JSON Info in the fork table.
const forkMetaKey = "meta"

// Table prefixes of fork mode in the chain database (docs/format/fork.md). No go-ethereum key
// starts with either.
const (
	forkPrefix     = chain.UpstreamTable  // meta, records, state roots
	upstreamPrefix = "flashrpc-upstream-" // remote.State and remote.History caches
)

// Upstream is the fork of a chain in fork mode: its block N and the upstream's state and
// history. It implements chain.Upstream. It is safe for concurrent use.
type Upstream struct {
	info    Info
	client  *remote.Client
	up      *remote.State
	history *remote.History
	rec     records
	db      ethdb.Database
	log     *slog.Logger
	denim   *uint64 // the chain's Denim time (denim.go); set by createFork, then by Start

	// Set by Start, when the chain has opened its BlockChain (before it, writeFirstBlock sets
	// sdb and readers over its own trie database).
	bc      *core.BlockChain
	engine  consensus.Engine
	sdb     *stateDB                               // the state.Database of fork StateDBs
	readers *recent.List[common.Hash, *forkReader] // shared readers of recent local roots

	rootsMu sync.Mutex             // guards roots
	roots   map[common.Hash]uint64 // local state root -> block number (also on disk)

	// states are a replica's upstream states of recent blocks, by block hash (replica.go).
	states *recent.List[common.Hash, *remote.State]
}

// Info returns what the datadir remembers about the fork.
func (f *Upstream) Info() Info { return f.info }

// Number returns the fork block N: blocks up to it are the upstream's.
func (f *Upstream) Number() uint64 { return f.info.Number }

// History returns the cached reader of the upstream's past.
func (f *Upstream) History() *remote.History { return f.history }

// Upstream returns the upstream's state at N.
func (f *Upstream) Upstream() *remote.State { return f.up }

// Client returns the upstream client.
func (f *Upstream) Client() *remote.Client { return f.client }

// Of returns the fork c continues, nil when c is not a fork.
func Of(c *chain.Chain) *Upstream {
	f, _ := c.Upstream().(*Upstream)
	return f
}

// Start implements chain.Upstream: it finishes opening the fork once the chain's BlockChain is
// open: its state database, and the records of blocks above the head dropped (a crash between
// a block's write and its becoming the head leaves them).
func (f *Upstream) Start(s chain.Store) error {
	f.bc, f.engine, f.denim = s.BlockChain, s.Engine, s.Denim
	f.sdb = &stateDB{CachingDB: state.NewDatabase(s.BlockChain.TrieDB(), s.BlockChain.CodeDB()), f: f}
	f.readers = newForkReaders()
	f.setRoot(types.EmptyRootHash, f.info.Number)
	return f.rec.dropAbove(s.BlockChain.CurrentBlock().Number.Uint64())
}

// Rewound implements chain.Upstream: the records of the blocks above head go with them
// (records.go).
func (f *Upstream) Rewound(head uint64) error { return f.rec.dropAbove(head) }

var _ chain.Upstream = (*Upstream)(nil)

// readInfo returns the fork a chain database holds, nil when it holds none.
func readInfo(db ethdb.Database) (*Info, error) {
	blob, err := rawdb.NewTable(db, forkPrefix).Get([]byte(forkMetaKey))
	if err != nil {
		return nil, nil
	}
	var info Info
	if err := json.Unmarshal(blob, &info); err != nil {
		return nil, fmt.Errorf("fork record of the datadir: %w", err)
	}
	return &info, nil
}

// newFork assembles the Fork of info over db.
func newFork(db ethdb.Database, info Info, cfg *Config, logger *slog.Logger) *Upstream {
	client := remote.NewClient(remote.Config{URL: cfg.URL, Retries: cfg.Retries, Backoff: cfg.Backoff, Timeout: cfg.Timeout, Observer: cfg.Observer, Logger: logger})
	var store ethdb.KeyValueStore
	if !cfg.NoCache {
		store = rawdb.NewTable(db, upstreamPrefix)
	}
	return &Upstream{
		info:    info,
		client:  client,
		up:      remote.NewState(remote.StateConfig{Client: client, Block: info.Number, Store: store}),
		history: remote.NewHistory(client, store),
		rec:     records{db: rawdb.NewTable(db, forkPrefix)},
		db:      db,
		log:     logger,
		roots:   make(map[common.Hash]uint64),
		states:  recent.New[common.Hash, *remote.State](replicaStates),
	}
}

// checkUpstream refuses an upstream that is not the chain the datadir forked: it asks, in one
// batch, its chain id and its block N.
func (f *Upstream) checkUpstream(ctx context.Context, c *remote.Client) error {
	res, err := c.Batch(ctx, []remote.Call{
		{Method: "eth_chainId"},
		{Method: "eth_getBlockByNumber", Params: []any{hexQuantity(f.info.Number), false}},
	})
	if err != nil {
		return fmt.Errorf("fork: cannot reach the upstream: %w", err)
	}
	var id quantityJSON
	if err := json.Unmarshal(res[0], &id); err != nil {
		return fmt.Errorf("fork: upstream %s: eth_chainId answered %s", f.info.URL, res[0])
	}
	var block struct {
		Hash common.Hash `json:"hash"`
	}
	if string(res[1]) != "null" {
		if err := json.Unmarshal(res[1], &block); err != nil {
			return fmt.Errorf("fork: upstream %s: block %d: %w", f.client.URL(), f.info.Number, err)
		}
	}
	if uint64(id) != f.info.UpstreamChainID || block.Hash != f.info.Hash {
		return fmt.Errorf("fork: upstream %s is chain %d with block %d = %s; this datadir forked chain %d at block %d = %s (use another datadir to fork another chain)",
			f.client.URL(), uint64(id), f.info.Number, block.Hash, f.info.UpstreamChainID, f.info.Number, f.info.Hash)
	}
	return nil
}

// quantityJSON decodes a hex quantity.
type quantityJSON uint64

func (q *quantityJSON) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, ok := new(big.Int).SetString(trim0x(s), 16)
	if !ok || !v.IsUint64() {
		return fmt.Errorf("not a quantity: %s", b)
	}
	*q = quantityJSON(v.Uint64())
	return nil
}

func trim0x(s string) string {
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		return s[2:]
	}
	return s
}

func hexQuantity(n uint64) string { return fmt.Sprintf("0x%x", n) }

// setRoot remembers that root is the local state root of block number.
func (f *Upstream) setRoot(root common.Hash, number uint64) {
	f.rootsMu.Lock()
	f.roots[root] = number
	f.rootsMu.Unlock()
}

// rootNumber returns the block number of a local state root.
func (f *Upstream) rootNumber(root common.Hash) (uint64, bool) {
	f.rootsMu.Lock()
	n, ok := f.roots[root]
	f.rootsMu.Unlock()
	if ok {
		return n, true
	}
	if n, ok = f.rec.root(root); ok {
		f.setRoot(root, n)
	}
	return n, ok
}

// Provable implements chain.Upstream: it refuses proofs, at a local block, of accounts that existed at the upstream's fork
// block: their state is partly the upstream's, which the local trie does not hold. A
// replica's blocks hold no state of their own: every proof at them is refused.
func (f *Upstream) Provable(ctx context.Context, h *types.Header, addr common.Address) error {
	if f.info.Replica {
		return fmt.Errorf("%w: block %d's state is the upstream's, read without its trie (a remote-state replica): ask the upstream for the proof", chain.ErrNotProvable, h.Number.Uint64())
	}
	up, err := f.up.Account(ctx, addr)
	if err != nil {
		return rpcError(err)
	}
	if up != nil {
		return fmt.Errorf("%w: account %s comes from the upstream's state at block %d, which block %d's state root (the fork's local trie) does not cover; eth_getProof at block %d or before answers the upstream's proof", chain.ErrNotProvable, addr.Hex(), f.info.Number, h.Number.Uint64(), f.info.Number)
	}
	return nil
}
