package chain

import (
	"context"
	"errors"
	"log/slog"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb"
)

// An Upstream is the chain a fork continues from its block N (internal/fork): it holds the
// state and the history at or below N, which this chain never stored, and every local block's
// state reads through it.
//
// It is an interface because a chain's state has two implementations: the local one, which
// core.BlockChain executes, stores and reads (this package, when Config.OpenUpstream opens
// none), and the upstream-backed one, which falls back to another node over the network. This
// package does no network I/O, so the second lives in internal/fork, which imports chain.
// It is wider than a seam usually is because each method is one place where the two differ
// (state reads, opening a block, inserting, writing, rewinding, proofs, headers below N), and
// every implementation implements all of them.
//
// The chain calls Insert, Write and Rewound one at a time, never concurrently with each other;
// the other methods may be called concurrently with anything.
type Upstream interface {
	// Number returns the fork block N: blocks up to it are the upstream's.
	Number() uint64
	// Replica reports whether the chain is a remote-state replica's: the upstream's blocks
	// above N are inserted without executing them, and each block's state is the upstream's.
	Replica() bool
	// Start is called once, when the chain has opened its BlockChain over the database the
	// upstream was opened on.
	Start(Store) error
	// Context wraps the chain's ChainContext so that headers below N come from the upstream.
	Context(core.ChainContext) core.ChainContext
	// StateAt opens the state after the block with header h (at or above N).
	StateAt(h *types.Header) (*state.StateDB, error)
	// BlockStateAt opens the state after parent for building a block at number and time.
	BlockStateAt(parent *types.Header, number, time uint64) (*state.StateDB, error)
	// Insert checks (and, unless Replica, executes) block, which builds on the head, writes
	// it and makes it the head.
	Insert(block *types.Block) error
	// Write commits st, the state after block that its caller executed, and writes block
	// with receipts; the chain then makes it the head.
	Write(block *types.Block, receipts types.Receipts, st *state.StateDB) error
	// Rewound is told the head after a rewind: what the upstream kept of the blocks above it
	// goes with them.
	Rewound(head uint64) error
	// Provable returns an error wrapping ErrNotProvable when the local state root of the block
	// with header h does not cover addr's state.
	Provable(ctx context.Context, h *types.Header, addr common.Address) error
}

// Store is what an Upstream is given of the chain when it starts: the BlockChain, its database
// and engine. It belongs to the chain; the Upstream must not close any of it.
type Store struct {
	BlockChain *core.BlockChain
	DB         ethdb.Database
	Engine     consensus.Engine
	// Denim is the chain's Denim time (Chain.Denim), nil when it does not run Denim.
	Denim *uint64
}

// OpenUpstream opens the Upstream of a chain database before the chain opens its BlockChain
// (Config.OpenUpstream): it may write the database's block 0 and head. It returns nil, nil
// when the database holds no fork and none is asked for.
type OpenUpstream func(db ethdb.Database, dir string, logger *slog.Logger) (Upstream, error)

// Errors of a chain that continues an upstream.
var (
	// ErrBeforeFork refuses to rewind the chain below the first forked block.
	ErrBeforeFork = errors.New("below the first forked block")
	// ErrNotProvable refuses a Merkle proof of an account whose state is partly the
	// upstream's: a local state root does not cover it.
	ErrNotProvable = errors.New("no proof against a local state root")
)

// UpstreamTable is the table prefix under which internal/fork keeps a fork's records in the
// chain database (docs/format/fork.md); upstreamMetaKey in it marks a database that holds a
// fork. Open refuses such a database without Config.OpenUpstream.
const (
	UpstreamTable   = "flashrpc-fork-"
	upstreamMetaKey = "meta"
)

// NewEngine returns the consensus engine the chain verifies blocks with, for an Upstream that
// builds a block before the chain is open.
func NewEngine() consensus.Engine { return newEngine() }

// Upstream returns the upstream the chain continues; nil when it has none.
func (c *Chain) Upstream() Upstream { return c.up }
