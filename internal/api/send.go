package api

import (
	"context"
	"encoding/json"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core/state"
	gethtxpool "github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"

	"github.com/flashrpc/flashrpc/internal/ethjson"
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
	if a.pool == nil {
		return nil, rpc.NewError(rpc.CodeServer, "this node does not accept transactions")
	}
	if err := a.pool.Add(tx, a.poolView()); err != nil {
		return nil, err
	}
	return json32(tx.Hash()), nil
}

// poolView is what a new transaction is validated against. On both endpoints it is the block in
// progress: a transaction lands there whichever endpoint it was sent to.
func (a *API) poolView() txpool.View {
	if a.pre != nil {
		if snap := a.pre.Current(); snap != nil {
			read := func(fn func(*state.StateDB)) { snap.ReadState(fn) }
			return a.viewOf(snap.Header(), read)
		}
	}
	head := a.chain.Head()
	next := &types.Header{
		Number:   new(big.Int).Add(head.Number, common.Big1),
		Time:     head.Time + 1,
		GasLimit: head.GasLimit,
		BaseFee:  eip1559.CalcBaseFee(a.config, head, head.Time+1),
	}
	st, err := a.chain.StateAt(head)
	if err != nil { // the head's state is always there (archive mode); fail closed if not
		return a.viewOf(next, func(func(*state.StateDB)) {})
	}
	return a.viewOf(next, func(fn func(*state.StateDB)) { fn(st) })
}

func (a *API) viewOf(h *types.Header, read func(func(*state.StateDB))) txpool.View {
	var rollupCost gethtxpool.RollupCostFunc
	if a.config.IsOptimism() {
		// The L1 data fee and operator fee, from L1Block's storage in this state (op-geth's pool).
		rollupCost = func(tx types.RollupTransaction) (cost *uint256.Int) {
			read(func(st *state.StateDB) {
				if fn := types.NewTotalRollupCostFunc(a.config, st); fn != nil {
					cost = fn(tx, h.Time)
				}
			})
			return cost
		}
	}
	return txpool.View{
		RollupCost: rollupCost,
		Header:     h,
		Nonce: func(addr common.Address) (n uint64) {
			read(func(st *state.StateDB) { n = st.GetNonce(addr) })
			return n
		},
		Balance: func(addr common.Address) *uint256.Int {
			b := new(uint256.Int)
			read(func(st *state.StateDB) { b.Set(st.GetBalance(addr)) })
			return b
		},
	}
}

// json32 returns a 32-byte value as pre-encoded JSON.
func json32(h common.Hash) json.RawMessage { return ethjson.AppendHash(nil, h) }
