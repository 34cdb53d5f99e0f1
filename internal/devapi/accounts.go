package devapi

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// accounts is eth_accounts: the dev accounts in order.
func (a *API) accounts(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 0, 0); err != nil {
		return nil, err
	}
	out := make([]common.Address, len(a.cfg.Accounts))
	for i, acc := range a.cfg.Accounts {
		out[i] = acc.Address
	}
	return out, nil
}

// ethSign is eth_sign(address, message): the signature of the EIP-191 text hash of message,
// as go-ethereum's eth_sign makes it (v = 27 or 28).
func (a *API) ethSign(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 2, 2); err != nil {
		return nil, err
	}
	addr, err := decodeAddressParam(p, 0, "address")
	if err != nil {
		return nil, err
	}
	msg, err := decodeBytesParam(p, 1, "message")
	if err != nil {
		return nil, err
	}
	return a.sign(addr, accounts.TextHash(msg))
}

// personalSign is personal_sign(message, address): eth_sign with the parameters swapped.
// A message that is not hex is signed as UTF-8 text, as MetaMask and Hardhat do.
func (a *API) personalSign(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 2, 3); err != nil { // a third parameter (a password) is ignored
		return nil, err
	}
	addr, err := decodeAddressParam(p, 1, "address")
	if err != nil {
		return nil, err
	}
	var s string
	if err := decodeParam(p, 0, "message", &s); err != nil {
		return nil, err
	}
	msg := []byte(s)
	if b, err := hexutil.Decode(s); err == nil {
		msg = b
	}
	return a.sign(addr, accounts.TextHash(msg))
}

// signTypedDataV4 is eth_signTypedData_v4(address, typedData): the EIP-712 signature of
// typedData, given as a JSON object or as a string holding one.
func (a *API) signTypedDataV4(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 2, 2); err != nil {
		return nil, err
	}
	addr, err := decodeAddressParam(p, 0, "address")
	if err != nil {
		return nil, err
	}
	raw := []byte(p.At(1))
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = []byte(s)
	}
	var td apitypes.TypedData
	if err := json.Unmarshal(raw, &td); err != nil {
		return nil, param.NamedArgError(1, "typedData", err)
	}
	hash, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		return nil, param.NamedArgError(1, "typedData", err)
	}
	return a.sign(addr, hash)
}

// sign signs a 32-byte hash with addr's key; the recovery id is 27 or 28.
func (a *API) sign(addr common.Address, hash []byte) (any, error) {
	key := a.keys[addr]
	if key == nil {
		return nil, errNoKey(addr)
	}
	sig, err := crypto.Sign(hash, key)
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	sig[crypto.RecoveryIDOffset] += 27
	return hexutil.Bytes(sig), nil
}
