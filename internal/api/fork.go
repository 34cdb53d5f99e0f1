package api

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/exec"
	"github.com/flashrpc/flashrpc/internal/logs"
	"github.com/flashrpc/flashrpc/internal/remote"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// Fork mode (chain.Fork): the chain continues an upstream chain from its block N. Blocks,
// transactions, receipts and logs up to N are the upstream's, and so is the state of every
// block before N: the methods that name them answer with the upstream's answer, read through
// remote.History, which caches it (the upstream is pinned at N, so the answer never changes).
// The state at N and above is the local chain's, whose reader reads what the local chain never
// wrote from the upstream's state at N (chain.forkReader).
//
// Routing, by what a method's parameters name:
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
//   - eth_getLogs splits its range at N (logs.go); eth_feeHistory of a newest block above N
//     stops at N+1 (fees.go), of one at most N is the upstream's.
//
// An upstream answer that is a JSON-RPC error reaches the client as the upstream gave it; an
// upstream that cannot answer gives -32000 "upstream <url> failed: …" (errors.go).

// maxDiscoveryPasses bounds the discovery passes of one execution (execDiscover); after them
// the execution reads what it still misses one read at a time.
const maxDiscoveryPasses = 8

// forkRouted are the methods routeFork wraps, with how their parameters are read.
var forkRouted = map[string]forkRoute{
	"eth_getBlockByNumber":                       {kind: routeBlockNumber},
	"eth_getBlockTransactionCountByNumber":       {kind: routeBlockNumber},
	"eth_getUncleCountByBlockNumber":             {kind: routeBlockNumber},
	"eth_getTransactionByBlockNumberAndIndex":    {kind: routeBlockNumber},
	"eth_getRawTransactionByBlockNumberAndIndex": {kind: routeBlockNumber},
	"eth_getHeaderByNumber":                      {kind: routeBlockNumber},
	"eth_getUncleByBlockNumberAndIndex":          {kind: routeBlockNumber},
	"debug_traceBlockByNumber":                   {kind: routeBlockNumber},
	"eth_feeHistory":                             {kind: routeBlockNumber, param: 1},
	"eth_getBlockReceipts":                       {kind: routeBlock},
	"debug_getRawHeader":                         {kind: routeBlock},
	"debug_getRawBlock":                          {kind: routeBlock},
	"debug_getRawReceipts":                       {kind: routeBlock},
	"eth_getBlockByHash":                         {kind: routeBlockHash},
	"eth_getBlockTransactionCountByHash":         {kind: routeBlockHash},
	"eth_getUncleCountByBlockHash":               {kind: routeBlockHash},
	"eth_getTransactionByBlockHashAndIndex":      {kind: routeBlockHash},
	"eth_getRawTransactionByBlockHashAndIndex":   {kind: routeBlockHash},
	"eth_getHeaderByHash":                        {kind: routeBlockHash},
	"eth_getUncleByBlockHashAndIndex":            {kind: routeBlockHash},
	"debug_traceBlockByHash":                     {kind: routeBlockHash},
	"eth_getTransactionByHash":                   {kind: routeTx},
	"eth_getTransactionReceipt":                  {kind: routeTx},
	"eth_getRawTransactionByHash":                {kind: routeTx},
	"debug_getRawTransaction":                    {kind: routeTx},
	"debug_traceTransaction":                     {kind: routeTx},
	"eth_getBalance":                             {kind: routeState, param: 1},
	"eth_getTransactionCount":                    {kind: routeState, param: 1},
	"eth_getCode":                                {kind: routeState, param: 1},
	"eth_getStorageAt":                           {kind: routeState, param: 2},
	"eth_getStorageValues":                       {kind: routeState, param: 1},
	"eth_call":                                   {kind: routeState, param: 1},
	"eth_estimateGas":                            {kind: routeState, param: 1},
	"eth_createAccessList":                       {kind: routeState, param: 1},
	"eth_simulateV1":                             {kind: routeState, param: 1},
	"debug_traceCall":                            {kind: routeState, param: 1},
	"eth_getProof":                               {kind: routeState, param: 2, atFork: true},
}

type routeKind int

const (
	routeBlockNumber routeKind = iota // param `param`: a block number or tag
	routeBlock                        // param 0: a block number, tag or hash
	routeBlockHash                    // param 0: a block hash
	routeTx                           // param 0: a transaction hash
	routeState                        // param `param`: a state's block number, tag or hash
)

type forkRoute struct {
	kind  routeKind
	param int
	// atFork sends the state of the fork block itself upstream too: eth_getProof, whose
	// proofs must verify against the upstream's state root of N.
	atFork bool
}

// routeFork wraps the methods of m that may answer with the upstream's answer.
func (a *API) routeFork(m map[string]rpc.Method) {
	for name, r := range forkRouted {
		local, ok := m[name]
		if !ok {
			continue
		}
		m[name] = a.forkMethod(name, r, local)
	}
}

func (a *API) forkMethod(name string, r forkRoute, local rpc.Method) rpc.Method {
	n := a.fork.Number()
	return func(ctx context.Context, p rpc.Params) (any, error) {
		switch r.kind {
		case routeBlockNumber:
			if num, err := decodeBlockNumber(p, r.param, 0, true); err == nil && isUpTo(num, n) {
				return a.upstream(ctx, name, p)
			}
		case routeBlock:
			b, err := decodeBlockNumberOrHash(p, 0, true)
			if err != nil {
				break
			}
			if num, ok := b.Number(); ok {
				if isUpTo(num, n) {
					return a.upstream(ctx, name, p)
				}
				break
			}
			hash, _ := b.Hash()
			if !a.localAbove(hash, n) {
				return a.upstreamBlock(ctx, name, p, hash)
			}
		case routeBlockHash:
			hash, err := decodeHash(p, 0)
			if err == nil && !a.localAbove(hash, n) {
				return a.upstreamBlock(ctx, name, p, hash)
			}
		case routeTx:
			hash, err := decodeHash(p, 0)
			if err == nil && !a.txLocal(hash) {
				return a.upstreamTx(ctx, name, p, hash, local)
			}
		case routeState:
			if !present(p, r.param) {
				break // latest
			}
			b, err := decodeBlockNumberOrHash(p, r.param, false)
			if err != nil {
				break
			}
			last := n // the states that are the upstream's: before N, or up to N (atFork)
			if !r.atFork {
				if n == 0 {
					break
				}
				last = n - 1
			}
			if num, ok := b.Number(); ok {
				if isUpTo(num, last) {
					return a.upstream(ctx, name, p)
				}
				break
			}
			hash, _ := b.Hash()
			if h := a.chain.HeaderByHash(hash); h == nil || h.Number.Uint64() <= last {
				return a.upstream(ctx, name, p)
			}
		}
		return local(ctx, p)
	}
}

// isUpTo reports whether a block number or tag names a block at most n: a number, or
// `earliest`. `latest`, `pending`, `safe` and `finalized` are local blocks.
func isUpTo(num gethrpc.BlockNumber, n uint64) bool {
	return num == gethrpc.EarliestBlockNumber || num >= 0 && uint64(num) <= n
}

// localAbove reports whether hash names a local block above the fork block n.
func (a *API) localAbove(hash common.Hash, n uint64) bool {
	h := a.chain.HeaderByHash(hash)
	return h != nil && h.Number.Uint64() > n
}

// txLocal reports whether the node knows a transaction as its own: sealed in a local block,
// pre-confirmed, or in the pool. Clients poll for the receipts of their own transactions;
// those polls never go upstream.
func (a *API) txLocal(hash common.Hash) bool {
	if _, _, ok := a.chain.Transaction(hash); ok {
		return true
	}
	if a.pool != nil && a.pool.Get(hash) != nil {
		return true
	}
	if a.pre != nil {
		if snap := a.pre.Current(); snap != nil {
			if _, ok := snap.TxIndex(hash); ok {
				return true
			}
		}
	}
	return false
}

// upstream forwards a call to the upstream, through the history cache.
func (a *API) upstream(ctx context.Context, method string, p rpc.Params) (any, error) {
	params := make([]any, len(p))
	for i, raw := range p {
		params[i] = json.RawMessage(raw)
	}
	res, err := a.fork.History().Call(ctx, method, params...)
	if err != nil {
		return nil, upstreamError(err)
	}
	return res, nil
}

// upstreamBlock forwards a call about the upstream block with this hash, when the upstream
// has it at most at the fork block; null otherwise.
func (a *API) upstreamBlock(ctx context.Context, method string, p rpc.Params, hash common.Hash) (any, error) {
	var head struct {
		Number *hexutil.Uint64 `json:"number"`
	}
	raw, err := a.fork.History().Call(ctx, "eth_getBlockByHash", hash, false)
	if err != nil {
		return nil, upstreamError(err)
	}
	if isNull(raw) || json.Unmarshal(raw, &head) != nil || head.Number == nil || uint64(*head.Number) > a.fork.Number() {
		return nullResult, nil
	}
	return a.upstream(ctx, method, p)
}

// upstreamTx forwards a call about a transaction the node does not know; it counts only when
// the upstream mined the transaction at most at the fork block. Otherwise local answers (null,
// or the method's own "not found").
func (a *API) upstreamTx(ctx context.Context, method string, p rpc.Params, hash common.Hash, local rpc.Method) (any, error) {
	raw, err := a.fork.History().Call(ctx, "eth_getTransactionByHash", hash)
	if err != nil {
		return nil, upstreamError(err)
	}
	var loc struct {
		BlockNumber *hexutil.Uint64 `json:"blockNumber"`
	}
	if isNull(raw) || json.Unmarshal(raw, &loc) != nil || loc.BlockNumber == nil || uint64(*loc.BlockNumber) > a.fork.Number() {
		return local(ctx, p)
	}
	if method == "eth_getTransactionByHash" {
		return raw, nil
	}
	return a.upstream(ctx, method, p)
}

// isNull reports whether a method's result is JSON null.
func isNull(res any) bool {
	switch r := res.(type) {
	case nil:
		return true
	case json.RawMessage:
		return len(r) == 0 || string(r) == "null"
	}
	return false
}

// prefetch makes accounts and slots of the state a request reads readable without waiting
// for the upstream (fork.Upstream.PrefetchState); nothing in a chain that is not a fork.
func (a *API) prefetch(ctx context.Context, h *types.Header, accounts []common.Address, slots []remote.SlotKey) error {
	if a.fork == nil || h == nil {
		return nil
	}
	if err := a.fork.PrefetchState(ctx, h, accounts, slots); err != nil {
		return upstreamError(err)
	}
	return nil
}

// warmTx readies the state a new transaction needs from the upstream (fork mode), before the
// pool validates it and the sequencer executes it: its sender's account, which the pool reads
// (an upstream failure there is the answer: the pool would otherwise see an empty account),
// and what its execution reads, found by discovery passes of it as a call on the block in
// progress, so that the sequencer's 200 ms pre-confirmation loop does not wait for the
// upstream. A failure of the latter is not the transaction's: the sequencer reads what is
// missing when it executes it.
func (a *API) warmTx(ctx context.Context, tx *types.Transaction) error {
	if a.fork == nil {
		return nil
	}
	from, err := types.Sender(types.LatestSigner(a.config), tx)
	if err != nil {
		return nil // the pool refuses it with go-ethereum's error
	}
	v := a.writerView()
	if err := a.prefetch(ctx, v.Latest, []common.Address{from}, nil); err != nil {
		return err
	}
	gas, value, data := hexutil.Uint64(tx.Gas()), hexutil.Big(*tx.Value()), hexutil.Bytes(tx.Data())
	accessList := tx.AccessList()
	args := exec.Args{From: &from, To: tx.To(), Gas: &gas, Value: &value, Input: &data, AccessList: &accessList, AuthorizationList: tx.SetCodeAuthorizations()}
	pending := gethrpc.BlockNumberOrHashWithNumber(gethrpc.PendingBlockNumber)
	if _, err := a.discover(ctx, v, pending, false, func(env exec.Env) error {
		_, err := exec.Call(ctx, env, args, nil, nil)
		return err
	}); err != nil {
		a.log.Debug("fork: warming a transaction's state failed", "hash", tx.Hash(), "err", err)
	}
	return nil
}

// upstreamLogs adds the logs crit selects in the upstream's blocks first..last (at most the
// fork block) to col, asked of the upstream in one eth_getLogs (cached: the blocks are pinned).
func (a *API) upstreamLogs(ctx context.Context, crit *logs.Criteria, first, last uint64, col *logCollector) error {
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
	raw, err := a.fork.History().Call(ctx, "eth_getLogs", filter)
	if err != nil {
		return upstreamError(err)
	}
	return addUpstreamLogs(col, raw)
}

// upstreamLogsByHash answers eth_getLogs with a blockHash the local chain does not hold above
// the fork block: the upstream's block, when it is at most the fork block.
func (a *API) upstreamLogsByHash(ctx context.Context, hash common.Hash) (json.RawMessage, error) {
	var head struct {
		Number *hexutil.Uint64 `json:"number"`
	}
	raw, err := a.fork.History().Call(ctx, "eth_getBlockByHash", hash, false)
	if err != nil {
		return nil, upstreamError(err)
	}
	if isNull(raw) || json.Unmarshal(raw, &head) != nil || head.Number == nil || uint64(*head.Number) > a.fork.Number() {
		return nil, errors.New("unknown block")
	}
	res, err := a.fork.History().Call(ctx, "eth_getLogs", map[string]any{"blockHash": hash})
	if err != nil {
		return nil, upstreamError(err)
	}
	return res, nil
}

// addUpstreamLogs adds the logs of an upstream eth_getLogs answer to col, block by block, so
// that the result cap names the block that crossed it.
func addUpstreamLogs(col *logCollector, raw json.RawMessage) error {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return upstreamError(&remote.UpstreamError{Method: "eth_getLogs", Reason: "an answer that is not an array of logs"})
	}
	for i := 0; i < len(items); {
		n := logBlock(items[i])
		j := i + 1
		for j < len(items) && logBlock(items[j]) == n {
			j++
		}
		enc := []byte{}
		for k := i; k < j; k++ {
			if k > i {
				enc = append(enc, ',')
			}
			enc = append(enc, items[k]...)
		}
		if err := col.addJSON(n, j-i, enc); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// logBlock returns the block number of an upstream log.
func logBlock(raw json.RawMessage) uint64 {
	var l struct {
		BlockNumber hexutil.Uint64 `json:"blockNumber"`
	}
	json.Unmarshal(raw, &l)
	return uint64(l.BlockNumber)
}
