package api

import (
	"context"
	"encoding/json"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// sendRawTransaction decodes a signed transaction and hands it to the pool, which validates it
// against the state it would run on: the block in progress when there is one, else the block
// after the sealed head. Every rejection carries go-ethereum's error text (code -32000).
func (a *API) sendRawTransaction(ctx context.Context, p rpc.Params) (any, error) {
	if err := checkCount(p, 1); err != nil {
		return nil, err
	}
	var raw hexutil.Bytes
	if err := decodeArg(p, 0, &raw); err != nil {
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
		return json32(tx.Hash()), nil
	}
	if a.pool == nil {
		return nil, errNoTxPool
	}
	if err := a.warmTx(ctx, tx); err != nil {
		return nil, err
	}
	if err := a.pool.Add(tx, a.poolView(a.writerView())); err != nil {
		return nil, err
	}
	return json32(tx.Hash()), nil
}

// poolView is what a new transaction is validated against: the block in progress of v, which
// is a writerView (a transaction lands there whichever endpoint it was sent to), else the
// block after v's sealed head.
func (a *API) poolView(v preconf.View) txpool.View {
	if snap := v.Pending; snap != nil {
		read := func(fn func(*state.StateDB)) { snap.ReadState(fn) }
		return txpool.StateView(a.config, snap.Header(), read)
	}
	head := v.Latest
	next := &types.Header{
		Number:   new(big.Int).Add(head.Number, common.Big1),
		Time:     head.Time + 1,
		GasLimit: head.GasLimit,
		BaseFee:  eip1559.CalcBaseFee(a.config, head, head.Time+1),
	}
	st, err := a.chain.StateAt(head)
	if err != nil { // the head's state is always there (archive mode); fail closed if not
		return txpool.StateView(a.config, next, func(func(*state.StateDB)) {})
	}
	return txpool.StateView(a.config, next, func(fn func(*state.StateDB)) { fn(st) })
}

// json32 returns a 32-byte value as pre-encoded JSON.
func json32(h common.Hash) json.RawMessage { return ethjson.AppendHash(nil, h) }
