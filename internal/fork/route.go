package fork

import (
	"context"
	"encoding/json"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/logs"
	"github.com/flashrpc/flashrpc/internal/remote"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// The routing of JSON-RPC methods on a fork. Blocks, transactions, receipts and logs up to the
// fork block N are the upstream's, and so is the state of every block before N: the methods
// that name them answer with the upstream's answer, read through remote.History, which caches
// it (the upstream is pinned at N, so the answer never changes). The state at N and above is
// the local chain's, whose reader reads what the local chain never wrote from the upstream's
// state at N (forkReader, state.go).
//
// A method is routed by what it reads, which it declares where internal/api registers it
// (core.Reads):
//
//   - a block number or tag (eth_getBlockByNumber and the other *ByNumber methods,
//     eth_getBlockReceipts): blocks up to N go upstream, `earliest` included; `latest`,
//     `pending`, `safe` and `finalized` are local.
//   - a state (eth_getBalance, eth_getTransactionCount, eth_getCode, eth_getStorageAt, eth_call,
//     eth_estimateGas, eth_simulateV1): a state before N goes upstream, by number or by hash
//     (a hash that names no local block of N or above is the upstream's to resolve).
//   - a block hash (eth_getBlockByHash and the other *ByHash methods): a local block above N is
//     local; any other hash goes upstream, and its answer counts only when the upstream's block
//     is at most N (the upstream's later blocks are not this chain's).
//   - a transaction hash (eth_getTransactionByHash, eth_getTransactionReceipt): local first
//     (the block in progress, the pool, the local blocks); a hash the node does not know goes
//     upstream, and counts only when mined at most at N.
//   - eth_getLogs splits its range at N (API.Logs); eth_feeHistory of a newest block above N
//     stops at N+1 (internal/api/chaindata's fees.go), of one at most N is the upstream's.
//
// An upstream answer that is a JSON-RPC error reaches the client as the upstream gave it; an
// upstream that cannot answer gives -32000 "upstream <url> failed: …" (errors.go).

// API is a fork's part of the JSON-RPC API (api.Backend.Upstream): the routing of methods to
// the upstream and what the API asks of the upstream. It is safe for concurrent use.
type API struct {
	f     *Upstream
	chain *chain.Chain
}

// NewAPI returns the core.Upstream of chain c, nil when c is not a fork.
func NewAPI(c *chain.Chain) core.Upstream {
	f := Of(c)
	if f == nil {
		return nil
	}
	return &API{f: f, chain: c}
}

// Number implements core.Upstream.
func (x *API) Number() uint64 { return x.f.Number() }

// Route implements core.Upstream: it wraps the methods whose parameter names a block, a state
// or a transaction by that parameter; the others are m.
func (x *API) Route(name string, r core.Reads, m rpc.Method, known func(common.Hash) bool) rpc.Method {
	switch r.Kind {
	case core.ReadsBlockNumber, core.ReadsBlock, core.ReadsBlockHash, core.ReadsTx, core.ReadsState:
		return x.route(name, r, m, known)
	}
	return m
}

func (x *API) route(name string, r core.Reads, local rpc.Method, known func(common.Hash) bool) rpc.Method {
	n := x.f.Number()
	return func(ctx context.Context, p rpc.Params) (any, error) {
		switch r.Kind {
		case core.ReadsBlockNumber:
			if num, ok := blockNumber(p, r.Param); ok && isUpTo(num, n) {
				return x.upstream(ctx, name, p)
			}
		case core.ReadsBlock:
			b, ok := blockNumberOrHash(p, r.Param)
			if !ok {
				break
			}
			if num, ok := b.Number(); ok {
				if isUpTo(num, n) {
					return x.upstream(ctx, name, p)
				}
				break
			}
			hash, _ := b.Hash()
			if !x.localAbove(hash, n) {
				return x.upstreamBlock(ctx, name, p, hash)
			}
		case core.ReadsBlockHash:
			hash, ok := blockHash(p, r.Param)
			if ok && !x.localAbove(hash, n) {
				return x.upstreamBlock(ctx, name, p, hash)
			}
		case core.ReadsTx:
			hash, ok := blockHash(p, r.Param)
			if ok && !known(hash) {
				return x.upstreamTx(ctx, name, p, hash, local)
			}
		case core.ReadsState:
			if !param.Present(p, r.Param) {
				break // latest
			}
			b, ok := blockNumberOrHash(p, r.Param)
			if !ok {
				break
			}
			last := n // the states that are the upstream's: before N, or up to N (AtFork)
			if !r.AtFork {
				if n == 0 {
					break
				}
				last = n - 1
			}
			if num, ok := b.Number(); ok {
				if isUpTo(num, last) {
					return x.upstream(ctx, name, p)
				}
				break
			}
			if hash, _ := b.Hash(); !x.localAbove(hash, last) {
				return x.upstream(ctx, name, p)
			}
		}
		return local(ctx, p)
	}
}

// The parameters a route reads, decoded by internal/api's own decoders; a parameter that
// does not decode is left to the local method, which answers the error.

func blockNumber(p rpc.Params, i int) (gethrpc.BlockNumber, bool) {
	n, err := param.DecodeBlockNumber(p, i)
	return n, err == nil
}

func blockNumberOrHash(p rpc.Params, i int) (gethrpc.BlockNumberOrHash, bool) {
	b, err := param.DecodeBlockNumberOrHash(p, i, true)
	return b, err == nil
}

func blockHash(p rpc.Params, i int) (common.Hash, bool) {
	if !param.Present(p, i) {
		return common.Hash{}, false
	}
	h, err := param.DecodeHash(p, i)
	return h, err == nil
}

// isUpTo reports whether a block number or tag names a block at most n: a number, or
// `earliest`. `latest`, `pending`, `safe` and `finalized` are local blocks.
func isUpTo(num gethrpc.BlockNumber, n uint64) bool {
	return num == gethrpc.EarliestBlockNumber || num >= 0 && uint64(num) <= n
}

// localAbove reports whether hash names a local block above the fork block n.
func (x *API) localAbove(hash common.Hash, n uint64) bool {
	h := x.chain.HeaderByHash(hash)
	return h != nil && h.Number.Uint64() > n
}

// nullResult is the JSON-RPC result null.
var nullResult = json.RawMessage(ethjson.Null)

// upstream forwards a call to the upstream, through the history cache.
func (x *API) upstream(ctx context.Context, method string, p rpc.Params) (any, error) {
	params := make([]any, len(p))
	for i, raw := range p {
		params[i] = json.RawMessage(raw)
	}
	res, err := x.f.History().Call(ctx, method, params...)
	if err != nil {
		return nil, rpcError(err)
	}
	return res, nil
}

// upstreamBlock forwards a call about the upstream block with this hash, when the upstream
// has it at most at the fork block; null otherwise.
func (x *API) upstreamBlock(ctx context.Context, method string, p rpc.Params, hash common.Hash) (any, error) {
	ok, err := x.upstreamHasBlock(ctx, hash)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nullResult, nil
	}
	return x.upstream(ctx, method, p)
}

// upstreamHasBlock reports whether the upstream has the block with this hash at most at the
// fork block.
func (x *API) upstreamHasBlock(ctx context.Context, hash common.Hash) (bool, error) {
	var head struct {
		Number *hexutil.Uint64 `json:"number"`
	}
	raw, err := x.f.History().Call(ctx, "eth_getBlockByHash", hash, false)
	if err != nil {
		return false, rpcError(err)
	}
	if isNull(raw) || json.Unmarshal(raw, &head) != nil || head.Number == nil || uint64(*head.Number) > x.f.Number() {
		return false, nil
	}
	return true, nil
}

// upstreamTx forwards a call about a transaction the node does not know; it counts only when
// the upstream mined the transaction at most at the fork block. Otherwise local answers (null,
// or the method's own "not found").
func (x *API) upstreamTx(ctx context.Context, method string, p rpc.Params, hash common.Hash, local rpc.Method) (any, error) {
	raw, err := x.f.History().Call(ctx, "eth_getTransactionByHash", hash)
	if err != nil {
		return nil, rpcError(err)
	}
	var loc struct {
		BlockNumber *hexutil.Uint64 `json:"blockNumber"`
	}
	if isNull(raw) || json.Unmarshal(raw, &loc) != nil || loc.BlockNumber == nil || uint64(*loc.BlockNumber) > x.f.Number() {
		return local(ctx, p)
	}
	if method == "eth_getTransactionByHash" {
		return raw, nil
	}
	return x.upstream(ctx, method, p)
}

// isNull reports whether an upstream answer is JSON null.
func isNull(r json.RawMessage) bool {
	return len(r) == 0 || string(r) == "null"
}

var _ core.Upstream = (*API)(nil)

// Prefetch implements core.Upstream (Upstream.PrefetchState).
func (x *API) Prefetch(ctx context.Context, h *types.Header, accounts []common.Address, slots []core.StorageKey) error {
	keys := make([]remote.SlotKey, len(slots))
	for i, k := range slots {
		keys[i] = remote.SlotKey{Addr: k.Addr, Slot: k.Slot}
	}
	return rpcError(x.f.PrefetchState(ctx, h, accounts, keys))
}

// Discover implements core.Upstream by discovery passes (remote.Discovery): probe runs on a
// state whose upstream misses read as zero and are collected; what a pass missed is fetched in
// one go, concurrently in batches, and the pass runs again.
func (x *API) Discover(ctx context.Context, h *types.Header, passes int, probe func(*state.StateDB) error) (clean bool, probeErr, err error) {
	for range passes {
		disc := remote.NewDiscovery()
		st, err := x.f.StateAtDiscover(h, disc)
		if err != nil {
			return false, nil, err
		}
		probeErr := probe(st)
		if disc.Missed() == 0 {
			return true, probeErr, nil
		}
		if err := x.f.FetchDiscovered(ctx, h, disc); err != nil {
			return false, nil, rpcError(err)
		}
	}
	return false, nil, nil
}

// Logs implements core.Upstream: one eth_getLogs of the upstream (cached: the blocks are
// pinned).
func (x *API) Logs(ctx context.Context, crit *logs.Criteria, first, last uint64) ([]json.RawMessage, error) {
	filter := map[string]any{"fromBlock": hexutil.Uint64(first), "toBlock": hexutil.Uint64(last)}
	if len(crit.Addresses) > 0 {
		filter["address"] = crit.Addresses
	}
	if len(crit.Topics) > 0 {
		topics := make([]any, len(crit.Topics))
		for i, alts := range crit.Topics {
			if len(alts) > 0 {
				topics[i] = alts
			}
		}
		filter["topics"] = topics
	}
	raw, err := x.f.History().Call(ctx, "eth_getLogs", filter)
	if err != nil {
		return nil, rpcError(err)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, rpcError(&remote.UpstreamError{Method: "eth_getLogs", Reason: "an answer that is not an array of logs"})
	}
	return items, nil
}

// LogsByHash implements core.Upstream.
func (x *API) LogsByHash(ctx context.Context, hash common.Hash) (json.RawMessage, bool, error) {
	ok, err := x.upstreamHasBlock(ctx, hash)
	if err != nil || !ok {
		return nil, false, err
	}
	res, err := x.f.History().Call(ctx, "eth_getLogs", map[string]any{"blockHash": hash})
	if err != nil {
		return nil, false, rpcError(err)
	}
	return res, true, nil
}
