package events

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/exec"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// SendRawTransaction decodes a signed transaction and hands it to the pool, which validates it
// against the state it would run on: the block in progress when there is one, else the block
// after the sealed head. Every rejection carries go-ethereum's error text (code -32000).
func (a *API) SendRawTransaction(ctx context.Context, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 1); err != nil {
		return nil, err
	}
	var raw hexutil.Bytes
	if err := param.DecodeArg(p, 0, &raw); err != nil {
		return nil, err
	}
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		return nil, err
	}
	if a.fwd != nil {
		if err := a.fwd.SendRawTransaction(ctx, raw); err != nil {
			return nil, err
		}
		return core.JSON32(tx.Hash()), nil
	}
	if a.Pool == nil {
		return nil, core.ErrNoTxPool
	}
	if err := a.warmTx(ctx, tx); err != nil {
		return nil, err
	}
	if err := a.Pool.Add(tx, a.PoolView(a.WriterView())); err != nil {
		return nil, err
	}
	return core.JSON32(tx.Hash()), nil
}

// warmTx readies the state a new transaction needs from the upstream (fork mode), before the
// pool validates it and the sequencer executes it: its sender's account, which the pool reads
// (an upstream failure there is the answer: the pool would otherwise see an empty account),
// and what its execution reads, found by discovery passes of it as a call on the block in
// progress, so that the sequencer's 200 ms pre-confirmation loop does not wait for the
// upstream. A failure of the latter is not the transaction's: the sequencer reads what is
// missing when it executes it.
func (a *API) warmTx(ctx context.Context, tx *types.Transaction) error {
	if a.Up == nil {
		return nil
	}
	from, err := types.Sender(types.LatestSigner(a.ChainConfig), tx)
	if err != nil {
		return nil // the pool refuses it with go-ethereum's error
	}
	v := a.WriterView()
	if err := a.Prefetch(ctx, v.Latest, []common.Address{from}, nil); err != nil {
		return err
	}
	gas, value, data := hexutil.Uint64(tx.Gas()), hexutil.Big(*tx.Value()), hexutil.Bytes(tx.Data())
	accessList := tx.AccessList()
	args := exec.Args{From: &from, To: tx.To(), Gas: &gas, Value: &value, Input: &data, AccessList: &accessList, AuthorizationList: tx.SetCodeAuthorizations()}
	pending := gethrpc.BlockNumberOrHashWithNumber(gethrpc.PendingBlockNumber)
	if _, err := a.Discover(ctx, v, pending, false, func(env exec.Env) error {
		_, err := exec.Call(ctx, env, args, nil, nil)
		return err
	}); err != nil {
		a.Log.Debug("fork: warming a transaction's state failed", "hash", tx.Hash(), "err", err)
	}
	return nil
}
