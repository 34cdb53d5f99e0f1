package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	gethtxpool "github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// MaxSyncTimeout is eth_sendRawTransactionSync's longest wait and its default (EIP-7966; Base's
// node uses the same 6 s): a larger timeout parameter is invalid.
const MaxSyncTimeout = 6 * time.Second

// sendRawTransactionSync answers eth_sendRawTransactionSync (EIP-7966): params [rawTx,
// timeoutMs?]. It submits the transaction as eth_sendRawTransaction does and returns its
// receipt as soon as there is one on this endpoint: pre-confirmed on the pre-confirmed
// endpoint (~200 ms), sealed on the standard one. After the timeout (default and maximum
// MaxSyncTimeout) it answers code 4 with go-ethereum's message and the transaction hash as
// data; the transaction stays in the pool.
//
// The wait is registered before anything is looked up or submitted, and a transaction that is
// already pre-confirmed or sealed is answered with its receipt instead of a nonce error, so a
// receipt published before the wait begins is never missed (base/base#3826).
func (a *API) sendRawTransactionSync(ctx context.Context, p rpc.Params) (any, error) {
	if err := checkCount(p, 2); err != nil {
		return nil, err
	}
	var raw hexutil.Bytes
	if err := decodeArg(p, 0, &raw); err != nil {
		return nil, err
	}
	timeout, err := decodeSyncTimeout(p, 1)
	if err != nil {
		return nil, err
	}
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		return nil, err
	}
	hash := tx.Hash()
	wake := a.waits.add(hash)
	defer a.waits.remove(hash, wake)
	if r := a.receiptJSON(hash); r != nil {
		return r, nil
	}
	if a.pool == nil {
		return nil, rpc.NewError(rpc.CodeServer, "this node does not accept transactions")
	}
	if err := a.pool.Add(tx, a.poolView()); err != nil && !errors.Is(err, gethtxpool.ErrAlreadyKnown) {
		// It may have been pre-confirmed since the look-up (its nonce is used now).
		if r := a.receiptJSON(hash); r != nil {
			return r, nil
		}
		return nil, err
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case <-wake:
			if r := a.receiptJSON(hash); r != nil {
				return r, nil
			}
		case <-timer.C:
			return nil, &rpc.Error{
				Code:    rpc.CodeTxSyncTimeout,
				Message: fmt.Sprintf("The transaction was added to the transaction pool but wasn't processed in %v", timeout),
				Data:    hash.Hex(),
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// decodeSyncTimeout decodes the optional timeout in milliseconds, a JSON number or a hex
// quantity; absent, null or 0 means MaxSyncTimeout.
func decodeSyncTimeout(p rpc.Params, i int) (time.Duration, error) {
	if !present(p, i) {
		return MaxSyncTimeout, nil
	}
	var ms uint64
	raw := p.At(i)
	if len(raw) > 0 && raw[0] == '"' {
		var q hexutil.Uint64
		if err := json.Unmarshal(raw, &q); err != nil {
			return 0, argError(i, err)
		}
		ms = uint64(q)
	} else if v, err := strconv.ParseUint(string(raw), 10, 64); err == nil {
		ms = v
	} else {
		return 0, argError(i, fmt.Errorf("timeout must be a number of milliseconds, got %s", raw))
	}
	if ms == 0 {
		return MaxSyncTimeout, nil
	}
	if ms > uint64(MaxSyncTimeout/time.Millisecond) {
		return 0, rpc.InvalidParams("invalid argument %d: timeout %d ms is over the maximum of %d ms", i, ms, MaxSyncTimeout/time.Millisecond)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// receiptJSON returns the receipt this endpoint serves for hash (sealed first, then
// pre-confirmed on the pre-confirmed endpoint), or nil.
func (a *API) receiptJSON(hash common.Hash) json.RawMessage {
	if tx, loc, ok := a.chain.Transaction(hash); ok {
		receipts := a.chain.Receipts(loc.BlockHash)
		h := a.chain.HeaderByHash(loc.BlockHash)
		if h == nil || loc.Index >= uint64(len(receipts)) {
			return nil
		}
		signer := types.MakeSigner(a.config, h.Number, h.Time)
		return ethjson.AppendReceipt(nil, receipts[loc.Index], tx, loc.BlockHash, loc.BlockNumber, signer, int(loc.Index), a.config)
	}
	if snap := a.pending(); snap != nil {
		if i, ok := snap.TxIndex(hash); ok {
			return pendingReceiptJSON(nil, snap, i, a)
		}
	}
	return nil
}

// receiptWaiters wakes eth_sendRawTransactionSync calls when their transaction is
// pre-confirmed or sealed. Its listeners run on preconf's and the chain's writer goroutines and
// never block: a wake-up channel holds one token.
type receiptWaiters struct {
	mu      sync.Mutex
	waiting map[common.Hash][]chan struct{} // guarded by mu
}

func newReceiptWaiters() *receiptWaiters {
	return &receiptWaiters{waiting: make(map[common.Hash][]chan struct{})}
}

// add registers a wait for hash.
func (w *receiptWaiters) add(hash common.Hash) chan struct{} {
	ch := make(chan struct{}, 1)
	w.mu.Lock()
	w.waiting[hash] = append(w.waiting[hash], ch)
	w.mu.Unlock()
	return ch
}

// remove ends a wait.
func (w *receiptWaiters) remove(hash common.Hash, ch chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	list := w.waiting[hash]
	for i, c := range list {
		if c == ch {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(w.waiting, hash)
	} else {
		w.waiting[hash] = list
	}
}

// wake signals every wait for the transactions.
func (w *receiptWaiters) wake(txs []*types.Transaction) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.waiting) == 0 {
		return
	}
	for _, tx := range txs {
		for _, ch := range w.waiting[tx.Hash()] {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
}

func (w *receiptWaiters) onSnapshot(snap *preconf.Snapshot) {
	w.wake(snap.Block.Transactions()[snap.FirstNew:])
}

func (w *receiptWaiters) onHead(ev chain.HeadEvent) { w.wake(ev.Block.Transactions()) }
