package api

import (
	"context"
	"encoding/json"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// State reads. With `pending` on the pre-confirmed endpoint they see the state after the last
// pre-confirmed transaction (decisions.md); otherwise a sealed block's state.

func (a *API) getBalance(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	addr, b, err := addressAndBlock(p)
	if err != nil {
		return nil, err
	}
	var out json.RawMessage
	err = a.readState(ctx, v, b, accountKeys(addr), func(st *state.StateDB) { out = ethjson.AppendU256(nil, st.GetBalance(addr)) })
	return out, err
}

func (a *API) getTransactionCount(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	addr, b, err := addressAndBlock(p)
	if err != nil {
		return nil, err
	}
	if isPendingTag(b) && a.pool != nil {
		next, err := a.nextNonce(ctx, addr) // clientcompat.go
		if err != nil {
			return nil, err
		}
		return json.RawMessage(quantity(next)), nil
	}
	var out json.RawMessage
	err = a.readState(ctx, v, a.nonceBlock(b), accountKeys(addr), func(st *state.StateDB) { out = quantity(st.GetNonce(addr)) })
	return out, err
}

func (a *API) getCode(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	addr, b, err := addressAndBlock(p)
	if err != nil {
		return nil, err
	}
	var out json.RawMessage
	err = a.readState(ctx, v, b, accountKeys(addr), func(st *state.StateDB) { out = ethjson.AppendHexBytes(nil, st.GetCode(addr)) })
	return out, err
}

func (a *API) getStorageAt(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := checkCount(p, 3); err != nil {
		return nil, err
	}
	addr, err := decodeAddress(p, 0)
	if err != nil {
		return nil, err
	}
	slot, err := decodeSlot(p, 1)
	if err != nil {
		return nil, err
	}
	b, err := decodeBlockNumberOrHash(p, 2, false)
	if err != nil {
		return nil, err
	}
	var out json.RawMessage
	err = a.readState(ctx, v, b, stateKeys{accounts: []common.Address{addr}, slots: []StorageKey{{Addr: addr, Slot: slot}}}, func(st *state.StateDB) {
		v := st.GetState(addr, slot)
		out = ethjson.AppendHexBytes(nil, v[:])
	})
	return out, err
}

// addressAndBlock decodes the (address, block) parameters of the account reads.
func addressAndBlock(p rpc.Params) (common.Address, gethrpc.BlockNumberOrHash, error) {
	if err := checkCount(p, 2); err != nil {
		return common.Address{}, gethrpc.BlockNumberOrHash{}, err
	}
	addr, err := decodeAddress(p, 0)
	if err != nil {
		return addr, gethrpc.BlockNumberOrHash{}, err
	}
	b, err := decodeBlockNumberOrHash(p, 1, false)
	return addr, b, err
}
