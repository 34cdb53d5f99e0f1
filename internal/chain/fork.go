package chain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb"

	"github.com/flashrpc/flashrpc/internal/networks"
	"github.com/flashrpc/flashrpc/internal/recent"
	"github.com/flashrpc/flashrpc/internal/remote"
)

// Fork mode: the chain continues an upstream chain from its block N (flashrpc dev --fork-url).
// The design (docs/fork.md) in short:
//
//   - core.BlockChain stays the block store. Its genesis is the upstream's block 0 header (a
//     stand-in for the four Ethereum networks go-ethereum would otherwise give their built-in
//     configuration), block N is stored whole with the upstream's root node, and the local
//     blocks N+1… follow. Nothing between 0 and N is stored: the API asks the upstream
//     (remote.History) for blocks, transactions, receipts and logs up to N.
//   - Local state lives in op-geth's trie database (hashdb, archive) as a local trie whose base
//     at N is the empty trie: local state roots are not the upstream's. Every StateDB reads
//     through a forkReader (fork_state.go): the local trie first, then, for what the local
//     chain never wrote, the upstream's state at N (remote.State, cached in this database).
//     Records of the first local block that wrote each slot or deleted each account
//     (fork_records.go) tell a value the local chain set to zero from one it never touched.
//   - core.BlockChain cannot be given that reader, so it never executes a fork block:
//     Insert executes and validates it with op-geth's own processor and validator on the fork
//     state, writes it, and hands it over with BlockChain.SetCanonical (fork_insert.go).
//
// The keys flashrpc writes for a fork are documented in docs/format/fork.md.

// ForkConfig configures fork mode (Config.Fork).
type ForkConfig struct {
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
	// Kind selects the rules of an unknown chain (--chain-type); "" means Ethereum's. A known
	// chain runs its own and must not be given another kind.
	Kind networks.Kind
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
	// fork_replica.go): no first forked block is written (the head is N), and the blocks
	// after N are the upstream's, inserted without executing them, each block's state read
	// from the upstream at that block. Funded and Balance do not apply.
	Replica bool
}

// ForkInfo is what a fork datadir remembers about its fork (the meta key).
type ForkInfo struct {
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
	// Replica marks a remote-state replica's chain (ForkConfig.Replica).
	Replica bool `json:"replica,omitempty"`
}

// forkMetaKey holds the JSON ForkInfo in the fork table.
const forkMetaKey = "meta"

// Table prefixes of fork mode in the chain database (docs/format/fork.md). No go-ethereum key
// starts with either.
const (
	forkPrefix     = "flashrpc-fork-"     // meta, records, state roots
	upstreamPrefix = "flashrpc-upstream-" // remote.State and remote.History caches
)

// Errors of fork mode.
var (
	// ErrNotFork is returned by fork-only operations on a chain that is not a fork.
	ErrNotFork = errors.New("not a fork")
	// ErrBeforeFork refuses to rewind the chain below the first forked block.
	ErrBeforeFork = errors.New("below the first forked block")
	// ErrNotProvable refuses a Merkle proof of an account whose state is partly the
	// upstream's: a local state root does not cover it.
	ErrNotProvable = errors.New("no proof against a local state root")
)

// Fork is the fork of a chain in fork mode: its block N and the upstream's state and history.
// It is safe for concurrent use.
type Fork struct {
	info    ForkInfo
	client  *remote.Client
	up      *remote.State
	history *remote.History
	rec     records
	db      ethdb.Database
	log     *slog.Logger

	rootsMu sync.Mutex             // guards roots
	roots   map[common.Hash]uint64 // local state root -> block number (also on disk)

	// states are a replica's upstream states of recent blocks, by block hash (fork_replica.go).
	states *recent.List[common.Hash, *remote.State]
}

// Info returns what the datadir remembers about the fork.
func (f *Fork) Info() ForkInfo { return f.info }

// Number returns the fork block N: blocks up to it are the upstream's.
func (f *Fork) Number() uint64 { return f.info.Number }

// History returns the cached reader of the upstream's past.
func (f *Fork) History() *remote.History { return f.history }

// Upstream returns the upstream's state at N.
func (f *Fork) Upstream() *remote.State { return f.up }

// Client returns the upstream client.
func (f *Fork) Client() *remote.Client { return f.client }

// Fork returns the chain's fork, nil when the chain is not a fork.
func (c *Chain) Fork() *Fork { return c.fork }

// readForkInfo returns the fork a chain database holds, nil when it holds none.
func readForkInfo(db ethdb.Database) (*ForkInfo, error) {
	blob, err := rawdb.NewTable(db, forkPrefix).Get([]byte(forkMetaKey))
	if err != nil {
		return nil, nil
	}
	var info ForkInfo
	if err := json.Unmarshal(blob, &info); err != nil {
		return nil, fmt.Errorf("fork record of the datadir: %w", err)
	}
	return &info, nil
}

// newFork assembles the Fork of info over db.
func newFork(db ethdb.Database, info ForkInfo, cfg *ForkConfig, logger *slog.Logger) *Fork {
	client := remote.NewClient(remote.Config{URL: cfg.URL, Retries: cfg.Retries, Backoff: cfg.Backoff, Timeout: cfg.Timeout, Observer: cfg.Observer})
	var store ethdb.KeyValueStore
	if !cfg.NoCache {
		store = rawdb.NewTable(db, upstreamPrefix)
	}
	return &Fork{
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
func (f *Fork) checkUpstream(ctx context.Context) error {
	res, err := f.client.Batch(ctx, []remote.Call{
		{Method: "eth_chainId"},
		{Method: "eth_getBlockByNumber", Params: []any{hexQuantity(f.info.Number), false}},
	})
	if err != nil {
		return fmt.Errorf("fork: check the upstream: %w", err)
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
func (f *Fork) setRoot(root common.Hash, number uint64) {
	f.rootsMu.Lock()
	f.roots[root] = number
	f.rootsMu.Unlock()
}

// rootNumber returns the block number of a local state root.
func (f *Fork) rootNumber(root common.Hash) (uint64, bool) {
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

// provable refuses proofs, at a local block, of accounts that existed at the upstream's fork
// block: their state is partly the upstream's, which the local trie does not hold. A
// replica's blocks hold no state of their own: every proof at them is refused.
func (f *Fork) provable(ctx context.Context, h *types.Header, addr common.Address) error {
	if f.info.Replica {
		return fmt.Errorf("%w: block %d's state is the upstream's, read without its trie (a remote-state replica): ask the upstream for the proof", ErrNotProvable, h.Number.Uint64())
	}
	up, err := f.up.Account(ctx, addr)
	if err != nil {
		return err
	}
	if up != nil {
		return fmt.Errorf("%w: account %s comes from the upstream's state at block %d, which block %d's state root (the fork's local trie) does not cover; eth_getProof at block %d or before answers the upstream's proof", ErrNotProvable, addr.Hex(), f.info.Number, h.Number.Uint64(), f.info.Number)
	}
	return nil
}
