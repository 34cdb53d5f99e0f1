package chaindata

import (
	"context"
	"encoding/json"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// Methods that describe the node and the chain rather than a block.

// ClientVersion answers web3_clientVersion.
func (a *API) ClientVersion(ctx context.Context, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 0); err != nil {
		return nil, err
	}
	return a.clientVersion, nil
}

// Sha3 answers web3_sha3.
func (a *API) Sha3(ctx context.Context, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 1); err != nil {
		return nil, err
	}
	var data hexutil.Bytes
	if err := param.DecodeArg(p, 0, &data); err != nil {
		return nil, err
	}
	return core.JSON32(crypto.Keccak256Hash(data)), nil
}

// NetVersion answers net_version.
func (a *API) NetVersion(ctx context.Context, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 0); err != nil {
		return nil, err
	}
	return a.ChainConfig.ChainID.String(), nil
}

// NetListening answers net_listening.
func (a *API) NetListening(ctx context.Context, p rpc.Params) (any, error) {
	return json.RawMessage("true"), param.CheckCount(p, 0)
}

// NetPeerCount answers net_peerCount.
func (a *API) NetPeerCount(ctx context.Context, p rpc.Params) (any, error) {
	return core.Quantity(0), param.CheckCount(p, 0)
}

// ChainID answers eth_chainId.
func (a *API) ChainID(ctx context.Context, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 0); err != nil {
		return nil, err
	}
	return json.RawMessage(ethjson.AppendBig(nil, a.ChainConfig.ChainID)), nil
}

// BlockNumber is the sealed head on both endpoints: the block in progress is not a block number
// anything can be read at by number yet.
func (a *API) BlockNumber(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 0); err != nil {
		return nil, err
	}
	return core.Quantity(v.Latest.Number.Uint64()), nil
}

// Syncing answers eth_syncing.
func (a *API) Syncing(ctx context.Context, p rpc.Params) (any, error) {
	return json.RawMessage("false"), param.CheckCount(p, 0)
}

// Accounts is empty: the node holds no keys (the dev keys are printed at start instead).
func (a *API) Accounts(ctx context.Context, p rpc.Params) (any, error) {
	return json.RawMessage("[]"), param.CheckCount(p, 0)
}
