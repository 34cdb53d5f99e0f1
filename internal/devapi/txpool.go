package devapi

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// The txpool_ methods show the pool as go-ethereum's txpool API does: the transactions not
// pre-confirmed yet, executable ("pending") and waiting for a nonce gap ("queued"), by sender
// (checksummed address) and nonce (decimal string). A pre-confirmed transaction has left the
// pool: it is in the block in progress.

// poolStatus is txpool_status's answer.
type poolStatus struct {
	Pending hexutil.Uint `json:"pending"`
	Queued  hexutil.Uint `json:"queued"`
}

func (a *API) txpoolStatus(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 0, 0); err != nil {
		return nil, err
	}
	pending, queued := a.b.Pool.Stats()
	return poolStatus{Pending: hexutil.Uint(pending), Queued: hexutil.Uint(queued)}, nil
}

// poolContent is the answer of txpool_content and txpool_inspect: sender → nonce → entry.
type poolContent[T any] struct {
	Pending map[string]map[string]T `json:"pending"`
	Queued  map[string]map[string]T `json:"queued"`
}

func (a *API) txpoolContent(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 0, 0); err != nil {
		return nil, err
	}
	pending, queued := a.b.Pool.Content()
	return poolContent[json.RawMessage]{Pending: bySender(pending, a.txJSON), Queued: bySender(queued, a.txJSON)}, nil
}

// txpoolContentFrom is txpool_contentFrom(address): one sender's part of txpool_content.
func (a *API) txpoolContentFrom(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 1, 1); err != nil {
		return nil, err
	}
	addr, err := decodeAddressParam(p, 0, "address")
	if err != nil {
		return nil, err
	}
	pending, queued := a.b.Pool.ContentFrom(addr)
	return struct {
		Pending map[string]json.RawMessage `json:"pending"`
		Queued  map[string]json.RawMessage `json:"queued"`
	}{byNonce(pending, a.txJSON), byNonce(queued, a.txJSON)}, nil
}

func (a *API) txpoolInspect(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 0, 0); err != nil {
		return nil, err
	}
	pending, queued := a.b.Pool.Content()
	return poolContent[string]{Pending: bySender(pending, inspect), Queued: bySender(queued, inspect)}, nil
}

// txJSON is a pool transaction as eth_getTransactionByHash shows it (no block fields).
func (a *API) txJSON(tx *types.Transaction) json.RawMessage {
	return ethjson.AppendTransaction(nil, tx, ethjson.TxLocation{}, a.config)
}

// inspect is go-ethereum's one-line summary of a pool transaction.
func inspect(tx *types.Transaction) string {
	if to := tx.To(); to != nil {
		return fmt.Sprintf("%s: %v wei + %v gas × %v wei", to.Hex(), tx.Value(), tx.Gas(), tx.GasPrice())
	}
	return fmt.Sprintf("contract creation: %v wei + %v gas × %v wei", tx.Value(), tx.Gas(), tx.GasPrice())
}

func bySender[T any](txs map[common.Address][]*types.Transaction, enc func(*types.Transaction) T) map[string]map[string]T {
	out := make(map[string]map[string]T, len(txs))
	for addr, list := range txs {
		out[addr.Hex()] = byNonce(list, enc)
	}
	return out
}

func byNonce[T any](txs []*types.Transaction, enc func(*types.Transaction) T) map[string]T {
	out := make(map[string]T, len(txs))
	for _, tx := range txs {
		out[strconv.FormatUint(tx.Nonce(), 10)] = enc(tx)
	}
	return out
}
