package chaindata

import (
	"context"
	"encoding/json"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// State reads. With `pending` on the pre-confirmed endpoint they see the state after the last
// pre-confirmed transaction (decisions.md); otherwise a sealed block's state.

// GetBalance answers eth_getBalance.
func (a *API) GetBalance(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	addr, b, err := addressAndBlock(p)
	if err != nil {
		return nil, err
	}
	var out json.RawMessage
	err = a.ReadState(ctx, v, b, core.AccountKeys(addr), func(st *state.StateDB) { out = ethjson.AppendU256(nil, st.GetBalance(addr)) })
	return out, err
}

// GetTransactionCount answers eth_getTransactionCount.
func (a *API) GetTransactionCount(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	addr, b, err := addressAndBlock(p)
	if err != nil {
		return nil, err
	}
	if isPendingTag(b) && a.Pool != nil {
		next, err := a.nextNonce(ctx, addr) // nonce.go
		if err != nil {
			return nil, err
		}
		return json.RawMessage(core.Quantity(next)), nil
	}
	var out json.RawMessage
	err = a.ReadState(ctx, v, a.nonceBlock(b), core.AccountKeys(addr), func(st *state.StateDB) { out = core.Quantity(st.GetNonce(addr)) })
	return out, err
}

// GetCode answers eth_getCode.
func (a *API) GetCode(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	addr, b, err := addressAndBlock(p)
	if err != nil {
		return nil, err
	}
	var out json.RawMessage
	err = a.ReadState(ctx, v, b, core.AccountKeys(addr), func(st *state.StateDB) { out = ethjson.AppendHexBytes(nil, st.GetCode(addr)) })
	return out, err
}

// GetStorageAt answers eth_getStorageAt.
func (a *API) GetStorageAt(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 3); err != nil {
		return nil, err
	}
	addr, err := param.DecodeAddress(p, 0)
	if err != nil {
		return nil, err
	}
	slot, err := param.DecodeSlot(p, 1)
	if err != nil {
		return nil, err
	}
	b, err := param.DecodeBlockNumberOrHash(p, 2, false)
	if err != nil {
		return nil, err
	}
	var out json.RawMessage
	err = a.ReadState(ctx, v, b, core.StateKeys{Accounts: []common.Address{addr}, Slots: []core.StorageKey{{Addr: addr, Slot: slot}}}, func(st *state.StateDB) {
		v := st.GetState(addr, slot)
		out = ethjson.AppendHexBytes(nil, v[:])
	})
	return out, err
}

// addressAndBlock decodes the (address, block) parameters of the account reads.
func addressAndBlock(p rpc.Params) (common.Address, gethrpc.BlockNumberOrHash, error) {
	if err := param.CheckCount(p, 2); err != nil {
		return common.Address{}, gethrpc.BlockNumberOrHash{}, err
	}
	addr, err := param.DecodeAddress(p, 0)
	if err != nil {
		return addr, gethrpc.BlockNumberOrHash{}, err
	}
	b, err := param.DecodeBlockNumberOrHash(p, 1, false)
	return addr, b, err
}
