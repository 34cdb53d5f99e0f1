package devapi

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/rpc"
	"github.com/flashrpc/flashrpc/internal/sequencer"
)

// evmMine is evm_mine([timestamp]) or evm_mine([{timestamp, blocks}]) (anvil's and
// ganache's options): it seals the block in progress now, with the pool's executable
// transactions (blocks of them with the option); with a timestamp the block is first rebuilt
// at that time. It answers "0x0", as anvil.
func (a *API) evmMine(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 0, 1); err != nil {
		return nil, err
	}
	var ts *big.Int
	blocks := uint64(1)
	switch raw := p.At(0); {
	case !param.Present(p, 0):
	case len(raw) > 0 && raw[0] == '{':
		var opts struct {
			Timestamp json.RawMessage `json:"timestamp"`
			Blocks    json.RawMessage `json:"blocks"`
		}
		if err := decodeParam(p, 0, "options", &opts); err != nil {
			return nil, err
		}
		var err error
		if len(opts.Timestamp) > 0 && string(opts.Timestamp) != "null" {
			if ts, err = parseQuantity(opts.Timestamp, 63); err != nil {
				return nil, param.NamedArgError(0, "options.timestamp", err)
			}
		}
		if len(opts.Blocks) > 0 && string(opts.Blocks) != "null" {
			b, err := parseQuantity(opts.Blocks, 64)
			if err != nil || b.Uint64() > sequencer.MaxMine {
				if err == nil {
					err = fmt.Errorf("at most %d blocks at once", sequencer.MaxMine)
				}
				return nil, param.NamedArgError(0, "options.blocks", err)
			}
			blocks = b.Uint64()
		}
	default:
		var err error
		if ts, err = decodeUintParam(p, 0, "timestamp", 63); err != nil {
			return nil, err
		}
	}
	if ts != nil {
		if _, err := a.b.Sequencer.SetNextTimestamp(ctx, ts.Uint64()); err != nil {
			return nil, timeError(0, "timestamp", err)
		}
	}
	if _, err := a.b.Sequencer.Mine(ctx, blocks, 0); err != nil {
		return nil, err
	}
	return "0x0", nil
}

// mine is anvil_mine([count], [interval]) / hardhat_mine: it seals count blocks now (default
// 1), each after the first interval seconds after the one before (default: the clock's).
func (a *API) mine(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 0, 2); err != nil {
		return nil, err
	}
	count, interval := uint64(1), uint64(0)
	if param.Present(p, 0) {
		v, err := decodeUintParam(p, 0, "count", 64)
		if err != nil {
			return nil, err
		}
		if count = v.Uint64(); count > sequencer.MaxMine {
			return nil, param.NamedArgError(0, "count", fmt.Errorf("at most %d blocks at once", sequencer.MaxMine))
		}
	}
	if param.Present(p, 1) {
		v, err := decodeUintParam(p, 1, "interval", 32)
		if err != nil {
			return nil, err
		}
		interval = v.Uint64()
	}
	if _, err := a.b.Sequencer.Mine(ctx, count, interval); err != nil {
		return nil, err
	}
	return true, nil
}
