package devapi

import (
	"context"
	"encoding/json"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// The dev_ methods drive the dev sequencer on request, so tests and scripts control time
// instead of sleeping. They exist only on the dev chain.

type preconfirmResult struct {
	BlockNumber  hexutil.Uint64 `json:"blockNumber"`
	Index        int            `json:"index"`
	Hash         common.Hash    `json:"hash"`
	Transactions int            `json:"transactions"` // added by this pre-confirmation
}

// devPreconfirm builds the next pre-confirmation now.
func (a *API) devPreconfirm(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 0, 0); err != nil {
		return nil, err
	}
	snap, err := a.b.Sequencer.Preconfirm(ctx)
	if err != nil {
		return nil, err
	}
	return preconfirmResult{
		BlockNumber:  hexutil.Uint64(snap.Number()),
		Index:        snap.Index,
		Hash:         snap.Block.Hash(),
		Transactions: len(snap.Block.Transactions()) - snap.FirstNew,
	}, nil
}

type sealResult struct {
	Number       hexutil.Uint64 `json:"number"`
	Hash         common.Hash    `json:"hash"`
	Transactions int            `json:"transactions"`
}

// sealOptions is dev_seal's optional parameter.
type sealOptions struct {
	// Transactions, when present, are the pre-confirmed transactions to seal, in this order:
	// pre-confirmed transactions left out are dropped and their logs retracted, and a changed
	// order retracts the moved transactions' logs (sequencer.SealSelected).
	Transactions *[]common.Hash `json:"transactions"`
}

// devSeal seals the block in progress now, with what it has pre-confirmed, or with the
// pre-confirmed transactions its parameter lists.
func (a *API) devSeal(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 0, 1); err != nil {
		return nil, err
	}
	var opts sealOptions
	if param.Present(p, 0) {
		if err := json.Unmarshal(p.At(0), &opts); err != nil {
			return nil, param.ArgError(0, ethjson.DecodeError(err))
		}
	}
	var block *types.Block
	var err error
	if opts.Transactions != nil {
		block, err = a.b.Sequencer.SealSelected(ctx, *opts.Transactions)
	} else {
		block, err = a.b.Sequencer.Seal(ctx)
	}
	if err != nil {
		return nil, devSealError(err)
	}
	return sealResult{Number: hexutil.Uint64(block.NumberU64()), Hash: block.Hash(), Transactions: len(block.Transactions())}, nil
}
