package devapi

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// The state cheats change the block in progress (sequencer.Sequencer.Cheat): `pending` sees
// the change at once, and so does `latest`, on both endpoints, through the View's unsealed
// cheats (doc.go, "State cheats at `latest`"); the next sealed block carries it. Each answers
// true (anvil answers null, Hardhat true; clients ignore it).

// setBalance is anvil_setBalance(address, balance) / hardhat_setBalance.
func (a *API) setBalance(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 2, 2); err != nil {
		return nil, err
	}
	addr, err := decodeAddressParam(p, 0, "address")
	if err != nil {
		return nil, err
	}
	v, err := decodeUintParam(p, 1, "balance", 256)
	if err != nil {
		return nil, err
	}
	bal, _ := uint256.FromBig(v)
	return a.cheat(ctx, func(st *state.StateDB) { st.SetBalance(addr, bal, tracing.BalanceChangeUnspecified) })
}

// setCode is anvil_setCode(address, code) / hardhat_setCode.
func (a *API) setCode(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 2, 2); err != nil {
		return nil, err
	}
	addr, err := decodeAddressParam(p, 0, "address")
	if err != nil {
		return nil, err
	}
	code, err := decodeBytesParam(p, 1, "code")
	if err != nil {
		return nil, err
	}
	return a.cheat(ctx, func(st *state.StateDB) { st.SetCode(addr, code, tracing.CodeChangeUnspecified) })
}

// setNonce is anvil_setNonce(address, nonce) / hardhat_setNonce.
func (a *API) setNonce(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 2, 2); err != nil {
		return nil, err
	}
	addr, err := decodeAddressParam(p, 0, "address")
	if err != nil {
		return nil, err
	}
	n, err := decodeUintParam(p, 1, "nonce", 64)
	if err != nil {
		return nil, err
	}
	nonce := n.Uint64()
	return a.cheat(ctx, func(st *state.StateDB) { st.SetNonce(addr, nonce, tracing.NonceChangeUnspecified) })
}

// setStorageAt is anvil_setStorageAt(address, slot, value) / hardhat_setStorageAt. The slot
// and the value are 32-byte words, as hex or as quantities.
func (a *API) setStorageAt(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 3, 3); err != nil {
		return nil, err
	}
	addr, err := decodeAddressParam(p, 0, "address")
	if err != nil {
		return nil, err
	}
	slot, err := decodeUintParam(p, 1, "slot", 256)
	if err != nil {
		return nil, err
	}
	value, err := decodeUintParam(p, 2, "value", 256)
	if err != nil {
		return nil, err
	}
	key, val := common.BigToHash(slot), common.BigToHash(value)
	return a.cheat(ctx, func(st *state.StateDB) { st.SetState(addr, key, val) })
}

// cheat applies fn to the block in progress.
func (a *API) cheat(ctx context.Context, fn func(*state.StateDB)) (any, error) {
	if _, err := a.b.Sequencer.Cheat(ctx, fn); err != nil {
		return nil, err
	}
	return true, nil
}

// dropTransaction is anvil_dropTransaction(hash) / hardhat_dropTransaction: it removes a
// transaction from the pool and answers its hash, or null when the pool does not hold it (a
// pre-confirmed transaction is in the block in progress and stays).
func (a *API) dropTransaction(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 1, 1); err != nil {
		return nil, err
	}
	var hash common.Hash
	if err := decodeParam(p, 0, "hash", &hash); err != nil {
		return nil, err
	}
	tx := a.b.Pool.Get(hash)
	if tx == nil {
		return nil, nil
	}
	a.b.Pool.Remove(tx)
	return hash, nil
}

// setNextBlockBaseFeePerGas is anvil_setNextBlockBaseFeePerGas(fee) /
// hardhat_setNextBlockBaseFeePerGas: the block in progress is rebuilt with this base fee.
func (a *API) setNextBlockBaseFeePerGas(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 1, 1); err != nil {
		return nil, err
	}
	fee, err := decodeUintParam(p, 0, "baseFeePerGas", 256)
	if err != nil {
		return nil, err
	}
	if _, err := a.b.Sequencer.SetNextBaseFee(ctx, fee); err != nil {
		return nil, err
	}
	return true, nil
}

// setCoinbase is anvil_setCoinbase(address) / hardhat_setCoinbase: the fee recipient of the
// block in progress (rebuilt) and of every later block.
func (a *API) setCoinbase(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 1, 1); err != nil {
		return nil, err
	}
	addr, err := decodeAddressParam(p, 0, "address")
	if err != nil {
		return nil, err
	}
	if _, err := a.b.Sequencer.SetCoinbase(ctx, addr); err != nil {
		return nil, err
	}
	return true, nil
}

// setPrevRandao is hardhat_setPrevRandao(word): the prevRandao of the block in progress
// (rebuilt).
func (a *API) setPrevRandao(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 1, 1); err != nil {
		return nil, err
	}
	v, err := decodeUintParam(p, 0, "prevRandao", 256)
	if err != nil {
		return nil, err
	}
	if _, err := a.b.Sequencer.SetPrevRandao(ctx, common.BigToHash(v)); err != nil {
		return nil, err
	}
	return true, nil
}

// setBlockGasLimit is evm_setBlockGasLimit(gasLimit): the gas limit of the block in progress
// (rebuilt) and, inherited, of the blocks after it. At least 21,000.
func (a *API) setBlockGasLimit(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 1, 1); err != nil {
		return nil, err
	}
	v, err := decodeUintParam(p, 0, "gasLimit", 63)
	if err != nil {
		return nil, err
	}
	if v.Uint64() < params.TxGas {
		return nil, param.NamedArgError(0, "gasLimit", fmt.Errorf("%v is below %d, a transfer's gas", v, params.TxGas))
	}
	if _, err := a.b.Sequencer.SetGasLimit(ctx, v.Uint64()); err != nil {
		return nil, err
	}
	return true, nil
}
