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
)

// Fork mode: what the API does on a chain that continues an upstream (Backend.Upstream,
// internal/fork), besides the routing of methods, which the Upstream does.

// maxDiscoveryPasses bounds the discovery passes of one execution (discover, execute.go);
// after them the execution reads what it still misses one read at a time.
const maxDiscoveryPasses = 8

// prefetch makes accounts and slots of the state a request reads readable without waiting
// for the upstream (Upstream.Prefetch); nothing in a chain that is not a fork.
func (a *API) prefetch(ctx context.Context, h *types.Header, accounts []common.Address, slots []StorageKey) error {
	if a.up == nil || h == nil {
		return nil
	}
	return a.up.Prefetch(ctx, h, accounts, slots)
}

// warmTx readies the state a new transaction needs from the upstream (fork mode), before the
// pool validates it and the sequencer executes it: its sender's account, which the pool reads
// (an upstream failure there is the answer: the pool would otherwise see an empty account),
// and what its execution reads, found by discovery passes of it as a call on the block in
// progress, so that the sequencer's 200 ms pre-confirmation loop does not wait for the
// upstream. A failure of the latter is not the transaction's: the sequencer reads what is
// missing when it executes it.
func (a *API) warmTx(ctx context.Context, tx *types.Transaction) error {
	if a.up == nil {
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
// fork block) to col.
func (a *API) upstreamLogs(ctx context.Context, crit *logs.Criteria, first, last uint64, col *logCollector) error {
	items, err := a.up.Logs(ctx, crit, first, last)
	if err != nil {
		return err
	}
	return addUpstreamLogs(col, items)
}

// upstreamLogsByHash answers eth_getLogs with a blockHash the local chain does not hold above
// the fork block: the upstream's block, when it is at most the fork block.
func (a *API) upstreamLogsByHash(ctx context.Context, hash common.Hash) (json.RawMessage, error) {
	res, ok, err := a.up.LogsByHash(ctx, hash)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("unknown block")
	}
	return res, nil
}

// localAbove reports whether hash names a local block above the fork block n.
func (a *API) localAbove(hash common.Hash, n uint64) bool {
	h := a.chain.HeaderByHash(hash)
	return h != nil && h.Number.Uint64() > n
}

// txLocal reports whether the node knows a transaction as its own: sealed in a local block,
// pre-confirmed, or in the pool. Clients poll for the receipts of their own transactions;
// those polls never go upstream (Upstream.Route).
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

// addUpstreamLogs adds the logs of an upstream eth_getLogs answer to col, block by block, so
// that the result cap names the block that crossed it.
func addUpstreamLogs(col *logCollector, items []json.RawMessage) error {
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
