package devapi

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// snapshot is what evm_snapshot saved: the sealed head, the state cheats no block carries
// yet and the clock's offset.
type snapshot struct {
	number uint64
	hash   common.Hash
	cheats *preconf.Cheats
	offset int64
}

// evmSnapshot is evm_snapshot: it saves the sealed head and the state cheats made on top of
// it (which `latest` shows: cheats.go), and answers the snapshot's id (a hex quantity, from
// 0x1). The transactions pre-confirmed in the block in progress are not part of it:
// evm_revert drops them, as anvil drops what it has not mined.
func (a *API) evmSnapshot(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 0, 0); err != nil {
		return nil, err
	}
	// A sealed block still being written (preconf.SealAsync) is saved once it is the head.
	if err := a.b.Sequencer.WaitWritten(); err != nil {
		return nil, err
	}
	head := a.b.Chain.Head()
	cheats, err := a.b.Sequencer.Cheats()
	if err != nil {
		return nil, err
	}
	offset := a.b.Sequencer.TimeOffset()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.nextSnapshot++
	a.snapshots[a.nextSnapshot] = snapshot{number: head.Number.Uint64(), hash: head.Hash(), cheats: cheats, offset: offset}
	return hexutil.Uint64(a.nextSnapshot), nil
}

// evmRevert is evm_revert(id): it takes the chain back to the snapshot's head, as a reorg
// does (the logs of the dropped blocks and of the dropped pre-confirmations go to
// subscribers with removed: true), restores the state cheats the snapshot saved (visible at
// `latest` and `pending` at once, carried by the next sealed block) and the clock, and
// forgets this snapshot and later ones (loadFixture takes a new one after each revert). An unknown id, or a snapshot whose head is no longer on the chain, answers false and
// changes nothing.
func (a *API) evmRevert(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 1, 1); err != nil {
		return nil, err
	}
	id, err := decodeUintParam(p, 0, "id", 64)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	snap, ok := a.snapshots[id.Uint64()]
	if ok {
		for k := range a.snapshots {
			if k >= id.Uint64() {
				delete(a.snapshots, k)
			}
		}
	}
	a.mu.Unlock()
	if !ok || a.b.Chain.CanonicalHash(snap.number) != snap.hash {
		return false, nil
	}
	if err := a.b.Sequencer.Rewind(ctx, snap.number, snap.offset, snap.cheats); err != nil {
		return nil, err
	}
	return true, nil
}

// resetOptions is anvil_reset's and hardhat_reset's optional parameter.
type resetOptions struct {
	Forking *struct {
		JSONRPCURL  string          `json:"jsonRpcUrl"`
		BlockNumber json.RawMessage `json:"blockNumber"`
	} `json:"forking"`
}

// reset is anvil_reset([options]) / hardhat_reset: it takes the chain back to its genesis,
// drops the block in progress, the snapshots and the clock's offset. Forking options naming
// a URL or a block re-fork (Config.Refork: the node's chain is replaced by a new fork of that
// upstream at that block, as anvil does); viem's `{"forking": {"blockNumber": null}}` is a
// plain reset. A plain reset of a fork re-forks the same upstream at the same block.
func (a *API) reset(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 0, 1); err != nil {
		return nil, err
	}
	var opts resetOptions
	if param.Present(p, 0) {
		if err := decodeParam(p, 0, "options", &opts); err != nil {
			return nil, err
		}
	}
	url, block, refork := "", (*int64)(nil), false
	if f := opts.Forking; f != nil && (f.JSONRPCURL != "" || len(f.BlockNumber) > 0 && string(f.BlockNumber) != "null") {
		url, refork = f.JSONRPCURL, true
		if len(f.BlockNumber) > 0 && string(f.BlockNumber) != "null" {
			n, err := decodeForkBlock(f.BlockNumber)
			if err != nil {
				return nil, param.NamedArgError(0, "options", err)
			}
			block = &n
		}
	} else if up := a.b.Chain.Upstream(); up != nil {
		n := int64(up.Number())
		block, refork = &n, true
	}
	if refork {
		if a.cfg.Refork == nil {
			return nil, param.NamedArgError(0, "options", fmt.Errorf("reset to a fork is not supported here: start `flashrpc dev --fork-url` instead"))
		}
		if err := a.cfg.Refork(ctx, url, block); err != nil {
			return nil, err
		}
		a.mu.Lock()
		clear(a.snapshots)
		a.mu.Unlock()
		return true, nil
	}
	if err := a.b.Sequencer.Rewind(ctx, 0, 0, nil); err != nil {
		return nil, err
	}
	a.mu.Lock()
	clear(a.snapshots)
	a.mu.Unlock()
	return true, nil
}

// decodeForkBlock decodes forking.blockNumber: a JSON number or a hex quantity string.
func decodeForkBlock(raw json.RawMessage) (int64, error) {
	var q hexutil.Uint64
	if err := json.Unmarshal(raw, &q); err == nil {
		return int64(q), nil
	}
	var n uint64
	if err := json.Unmarshal(raw, &n); err != nil || n > math.MaxInt64 {
		return 0, fmt.Errorf("forking.blockNumber %s: want a block number (a number or a hex quantity)", raw)
	}
	return int64(n), nil
}
