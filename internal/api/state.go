package api

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// State reads. With `pending` on the pre-confirmed endpoint they see the state after the last
// pre-confirmed transaction (decisions.md); otherwise a sealed block's state.

func (a *API) getBalance(ctx context.Context, p rpc.Params) (any, error) {
	addr, b, err := addressAndBlock(p)
	if err != nil {
		return nil, err
	}
	var out json.RawMessage
	err = a.readState(b, func(st *state.StateDB) { out = ethjson.AppendU256(nil, st.GetBalance(addr)) })
	return out, err
}

func (a *API) getTransactionCount(ctx context.Context, p rpc.Params) (any, error) {
	addr, b, err := addressAndBlock(p)
	if err != nil {
		return nil, err
	}
	if isPendingTag(b) && a.pool != nil {
		return json.RawMessage(quantity(a.nextNonce(addr))), nil // clientcompat.go
	}
	var out json.RawMessage
	err = a.readState(b, func(st *state.StateDB) { out = quantity(st.GetNonce(addr)) })
	return out, err
}

func (a *API) getCode(ctx context.Context, p rpc.Params) (any, error) {
	addr, b, err := addressAndBlock(p)
	if err != nil {
		return nil, err
	}
	var out json.RawMessage
	err = a.readState(b, func(st *state.StateDB) { out = ethjson.AppendHexBytes(nil, st.GetCode(addr)) })
	return out, err
}

func (a *API) getStorageAt(ctx context.Context, p rpc.Params) (any, error) {
	if err := checkCount(p, 3); err != nil {
		return nil, err
	}
	addr, err := decodeAddress(p, 0)
	if err != nil {
		return nil, err
	}
	var key string
	if err := decodeArg(p, 1, &key); err != nil {
		return nil, err
	}
	slot, err := decodeStorageKey(key)
	if err != nil {
		return nil, rpc.InvalidParams("%v: %q", err, key)
	}
	b, err := decodeBlockNumberOrHash(p, 2, false)
	if err != nil {
		return nil, err
	}
	var out json.RawMessage
	err = a.readState(b, func(st *state.StateDB) {
		v := st.GetState(addr, slot)
		out = ethjson.AppendHexBytes(nil, v[:])
	})
	return out, err
}

// decodeStorageKey parses a storage slot leniently, as go-ethereum does for compatibility: the
// 0x prefix is optional and odd lengths are left-padded.
func decodeStorageKey(s string) (common.Hash, error) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		s = s[2:]
	}
	if len(s)&1 > 0 {
		s = "0" + s
	}
	if len(s) > 64 {
		return common.Hash{}, errors.New("storage key too long (want at most 32 bytes)")
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return common.Hash{}, errors.New("invalid hex in storage key")
	}
	return common.BytesToHash(b), nil
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
