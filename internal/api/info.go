package api

import (
	"context"
	"encoding/json"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// Methods that describe the node and the chain rather than a block.

func (a *API) clientVersion(ctx context.Context, p rpc.Params) (any, error) {
	if err := checkCount(p, 0); err != nil {
		return nil, err
	}
	return a.cfg.ClientVersion, nil
}

func (a *API) sha3(ctx context.Context, p rpc.Params) (any, error) {
	if err := checkCount(p, 1); err != nil {
		return nil, err
	}
	var data hexutil.Bytes
	if err := decodeArg(p, 0, &data); err != nil {
		return nil, err
	}
	return json32(crypto.Keccak256Hash(data)), nil
}

func (a *API) netVersion(ctx context.Context, p rpc.Params) (any, error) {
	if err := checkCount(p, 0); err != nil {
		return nil, err
	}
	return a.config.ChainID.String(), nil
}

func (a *API) netListening(ctx context.Context, p rpc.Params) (any, error) {
	return json.RawMessage("true"), checkCount(p, 0)
}

func (a *API) netPeerCount(ctx context.Context, p rpc.Params) (any, error) {
	return quantity(0), checkCount(p, 0)
}

func (a *API) chainID(ctx context.Context, p rpc.Params) (any, error) {
	if err := checkCount(p, 0); err != nil {
		return nil, err
	}
	return json.RawMessage(ethjson.AppendBig(nil, a.config.ChainID)), nil
}

// blockNumber is the sealed head on both endpoints: the block in progress is not a block number
// anything can be read at by number yet.
func (a *API) blockNumber(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := checkCount(p, 0); err != nil {
		return nil, err
	}
	return quantity(v.Latest.Number.Uint64()), nil
}

func (a *API) syncing(ctx context.Context, p rpc.Params) (any, error) {
	return json.RawMessage("false"), checkCount(p, 0)
}

// accounts is empty: the node holds no keys (the dev keys are printed at start instead).
func (a *API) accounts(ctx context.Context, p rpc.Params) (any, error) {
	return json.RawMessage("[]"), checkCount(p, 0)
}
