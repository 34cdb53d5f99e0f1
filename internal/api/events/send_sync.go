package events

import (
	"context"
	"errors"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	gethtxpool "github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// MaxSyncTimeout is eth_sendRawTransactionSync's longest wait and its default (EIP-7966; Base's
// node uses the same 6 s): a larger timeout parameter is invalid.
const MaxSyncTimeout = 6 * time.Second

// SendRawTransactionSync answers eth_sendRawTransactionSync (EIP-7966): params [rawTx,
// timeoutMs?]. It submits the transaction as eth_sendRawTransaction does and returns its
// receipt as soon as there is one on this endpoint: pre-confirmed on the pre-confirmed
// endpoint (~200 ms), sealed on the standard one. After the timeout (default and maximum
// MaxSyncTimeout) it answers code 4 with go-ethereum's message and the transaction hash as
// data; the transaction stays in the pool.
//
// The wait is registered with the endpoint's streams (streams.go) before anything is looked
// up or submitted: it is woken by every event queued after it that shows the transaction, and
// an event queued before it was published (with its View) before the first look-up, which
// then finds the receipt. A transaction that is already pre-confirmed or sealed is answered
// with its receipt instead of a nonce error. So a receipt is never missed (base/base#3826).
// Each look-up loads the view anew.
func (a *API) SendRawTransactionSync(ctx context.Context, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 2); err != nil {
		return nil, err
	}
	var raw hexutil.Bytes
	if err := param.DecodeArg(p, 0, &raw); err != nil {
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
	w := a.streams.wait(hash)
	defer a.streams.unwait(hash, w)
	if r := a.ReceiptJSON(a.View(), hash); r != nil {
		return r, nil
	}
	if err := a.submit(ctx, tx, raw); err != nil && !errors.Is(err, gethtxpool.ErrAlreadyKnown) {
		// It may have been pre-confirmed since the look-up (its nonce is used now).
		if r := a.ReceiptJSON(a.View(), hash); r != nil {
			return r, nil
		}
		return nil, err
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case <-w.wake:
			if r := a.ReceiptJSON(a.View(), hash); r != nil {
				return r, nil
			}
		case <-timer.C:
			return nil, core.SyncTimeoutError(timeout, hash)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// submit hands a decoded transaction to the forwarder when there is one, else to the pool.
func (a *API) submit(ctx context.Context, tx *types.Transaction, raw []byte) error {
	if a.fwd != nil {
		return a.fwd.SendRawTransaction(ctx, raw)
	}
	if a.Pool == nil {
		return core.ErrNoTxPool
	}
	return a.Pool.Add(tx, a.PoolView(a.WriterView()))
}

// decodeSyncTimeout decodes the optional timeout in milliseconds, a JSON number or a hex
// quantity; absent, null or 0 means MaxSyncTimeout.
func decodeSyncTimeout(p rpc.Params, i int) (time.Duration, error) {
	if !param.Present(p, i) {
		return MaxSyncTimeout, nil
	}
	ms, err := param.ParseHexOrDecimal(p.At(i))
	if err != nil {
		return 0, param.NamedArgError(i, "timeout", err)
	}
	if ms == 0 {
		return MaxSyncTimeout, nil
	}
	if ms > uint64(MaxSyncTimeout/time.Millisecond) {
		return 0, core.ErrSyncTimeoutTooLong(i, ms, MaxSyncTimeout)
	}
	return time.Duration(ms) * time.Millisecond, nil
}
