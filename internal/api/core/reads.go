package core

import (
	"context"
	"encoding/json"
	"maps"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/logs"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// Reads declares what chain data a method reads, by which of its parameters: every method is
// registered with one (api.Service, Table.Add), and an Upstream routes the method by it (fork
// mode: the reads of blocks at or below the fork block go to the upstream). The zero value
// declares nothing, and a test refuses a registered method without a declaration: "reads no
// chain data" is ReadsNothing, an explicit choice.
type Reads struct {
	Kind ReadKind
	// Param is the position of the parameter Kind names.
	Param int
	// AtFork, with ReadsState, takes the fork block's own state for the upstream's too:
	// eth_getProof, whose proofs must verify against the upstream's state root there.
	AtFork bool
}

// ReadKind is what a method's parameter names.
type ReadKind int

// The kinds of Reads. Only ReadsBlockNumber, ReadsBlock, ReadsBlockHash, ReadsTx and
// ReadsState are routed by their parameter; the others are answered by the method itself.
const (
	readsUndeclared ReadKind = iota
	// ReadsNothing: no chain data (web3_, net_, sends, filter bookkeeping, dev_ methods).
	ReadsNothing
	// ReadsHead: only the head or the block in progress, which are always local
	// (eth_blockNumber, eth_gasPrice, polling filter changes).
	ReadsHead
	// ReadsBlockNumber: Param is a block number or tag.
	ReadsBlockNumber
	// ReadsBlock: Param is a block number, tag or hash.
	ReadsBlock
	// ReadsBlockHash: Param is a block hash.
	ReadsBlockHash
	// ReadsTx: Param is a transaction hash.
	ReadsTx
	// ReadsState: Param is the block number, tag or hash of a state (absent: latest).
	ReadsState
	// ReadsLogs: a block range of logs, which the method splits at the fork block itself
	// (Upstream.Logs).
	ReadsLogs
)

// Declared reports whether r declares what its method reads.
func (r Reads) Declared() bool { return r.Kind != readsUndeclared }

// Table is an endpoint's method table while it is assembled: every method goes in with what
// it reads, and is routed by it (Upstream.Route) as it goes in. The API's own methods go in
// first, then those of api.Config.Extend (internal/devapi's), so that no method is served
// without a declaration. A Table is not safe for concurrent use.
type Table struct {
	methods map[string]rpc.Method
	route   func(name string, fn rpc.Method, r Reads) rpc.Method
}

// NewTable returns a table holding methods (kept, and added to), whose Add routes each
// method with route; nil route adds methods as they are.
func NewTable(methods map[string]rpc.Method, route func(name string, fn rpc.Method, r Reads) rpc.Method) *Table {
	return &Table{methods: methods, route: route}
}

// Add registers fn under name, replacing what the table has there, as a method that reads r.
func (t *Table) Add(name string, fn rpc.Method, r Reads) {
	if t.route != nil {
		fn = t.route(name, fn, r)
	}
	t.methods[name] = fn
}

// Methods returns a copy of the methods added so far, as they are served (routed): an
// extension keeps the copy to call the endpoint's methods with.
func (t *Table) Methods() map[string]rpc.Method { return maps.Clone(t.methods) }

// Upstream is the chain an API's chain continues (fork mode, Backend.Upstream): it routes
// each method by its declaration, and answers what the API cannot read locally. It is an
// interface because api knows neither the upstream's client nor its caches: internal/fork
// implements it, and a chain that is no fork has none. Its errors are JSON-RPC errors already
// (an upstream's own error as it gave it, -32000 for an upstream that could not answer).
type Upstream interface {
	// Route returns the method to register for name, which reads r: m itself, or a method
	// that answers some calls with the upstream's answer and the others with m. known
	// reports whether the node knows a transaction as its own (sealed, pre-confirmed or in
	// the pool): those never go upstream.
	Route(name string, r Reads, m rpc.Method, known func(common.Hash) bool) rpc.Method
	// Number returns the fork block N: blocks up to it are the upstream's.
	Number() uint64
	// Prefetch makes accounts and slots of the state after the block with header h readable
	// without waiting for the upstream, reading them from it now with ctx's deadline.
	Prefetch(ctx context.Context, h *types.Header, accounts []common.Address, slots []StorageKey) error
	// Discover runs probe on states after the block with header h in which what the
	// upstream has not given yet reads as zero, fetches what a run missed and runs it again,
	// at most passes times. clean reports a run that missed nothing, whose error is probeErr;
	// err is a failure to open the state or to fetch.
	Discover(ctx context.Context, h *types.Header, passes int, probe func(*state.StateDB) error) (clean bool, probeErr, err error)
	// Logs returns the upstream's logs crit selects in its blocks first..last (at most N),
	// in the upstream's order, each a JSON log object.
	Logs(ctx context.Context, crit *logs.Criteria, first, last uint64) ([]json.RawMessage, error)
	// LogsByHash returns the upstream's eth_getLogs answer for the block with this hash, and
	// false when the upstream has no such block at most at N.
	LogsByHash(ctx context.Context, hash common.Hash) (json.RawMessage, bool, error)
}

// StorageKey names a storage slot of an account.
type StorageKey struct {
	Addr common.Address
	Slot common.Hash
}
