package execute

import (
	"context"
	"encoding/json"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/exec"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// Tracing: debug_traceTransaction, debug_traceBlockByNumber, debug_traceBlockByHash and
// debug_traceCall, with go-ethereum's tracers and options (exec/trace*.go). Like eth_call
// they run under the node's EVM limiter, their transactions within --rpc.evmtimeout (which
// caps the per-transaction "timeout" option, default 5 s) and calls within --rpc.gascap. On
// the pre-confirmed endpoint a pre-confirmed transaction can be traced before its block is
// sealed, `pending` is the block in progress for the block methods, and debug_traceCall at
// `pending` runs on it: its header, on the state after its last pre-confirmed transaction.
// Each request answers from one view, loaded once it holds an EVM slot.

func (a *API) traceLimits() exec.TraceLimits {
	return exec.TraceLimits{Timeout: a.EVMTimeout, MaxLogBytes: a.cfg.TraceMaxLogBytes}
}

// decodeTraceConfig decodes the optional options object, parameter i, and checks it: an
// unknown tracer or a bad tracerConfig is refused before anything is looked up.
func (a *API) decodeTraceConfig(p rpc.Params, i int) (*exec.TraceConfig, error) {
	if !param.Present(p, i) {
		return nil, nil
	}
	cfg := new(exec.TraceConfig)
	if _, err := param.DecodeOptional(p, i, cfg); err != nil {
		return nil, err
	}
	if err := exec.CheckTraceConfig(cfg, a.ChainConfig); err != nil {
		return nil, core.TraceError(i, err)
	}
	return cfg, nil
}

// traceOn holds an EVM slot, then loads the view and runs trace on it: a trace answers from
// one view, loaded once it holds its slot. A failure to get the slot is an error of the trace
// options, parameter 1.
func (a *API) traceOn(ctx context.Context, trace func(v preconf.View) (any, error)) (any, error) {
	release, err := a.EVM.Acquire(ctx)
	if err != nil {
		return nil, core.TraceError(1, err)
	}
	defer release()
	return trace(a.View())
}

// TraceTransaction answers debug_traceTransaction.
func (a *API) TraceTransaction(ctx context.Context, p rpc.Params) (any, error) {
	hash, cfg, err := param.Two(p, param.DecodeHash, a.decodeTraceConfig)
	if err != nil {
		return nil, err
	}
	return a.traceOn(ctx, func(v preconf.View) (any, error) {
		env, index, err := a.txBlockEnv(v, hash)
		if err != nil {
			return nil, err
		}
		res, err := exec.TraceTransaction(ctx, env, index, cfg, a.traceLimits())
		if err != nil {
			return nil, core.TraceError(1, err)
		}
		return res, nil
	})
}

// txBlockEnv finds a transaction in v, pre-confirmed (pre-confirmed endpoint) or sealed, and
// returns its block to replay and its position.
func (a *API) txBlockEnv(v preconf.View, hash common.Hash) (*exec.BlockEnv, int, error) {
	if snap, i, ok := v.Preconfirmed(hash); ok {
		env, err := a.pendingBlockEnv(snap)
		return env, i, err
	}
	_, loc, ok := a.SealedTransaction(v, hash)
	if !ok {
		return nil, 0, core.ErrTxNotFound
	}
	block := a.Chain.BlockByHash(loc.BlockHash)
	if block == nil {
		return nil, 0, core.ErrTxNotFound
	}
	env, err := a.sealedBlockEnv(block)
	return env, int(loc.Index), err
}

// sealedBlockEnv returns a sealed block to replay, on a private copy of its parent's state.
func (a *API) sealedBlockEnv(block *types.Block) (*exec.BlockEnv, error) {
	if block.NumberU64() == 0 {
		return nil, core.ErrGenesisNotTraceable
	}
	parent := a.Chain.HeaderByHash(block.ParentHash())
	if parent == nil {
		return nil, core.ErrParentNotFound(block)
	}
	st, err := a.Chain.StateAt(parent)
	if err != nil {
		return nil, err
	}
	return &exec.BlockEnv{Config: a.ChainConfig, Chain: a.Chain.Context(), Header: block.Header(), Parent: parent,
		Hash: block.Hash(), Txs: block.Transactions(), State: st, Denim: a.Chain.Denim()}, nil
}

// pendingBlockEnv returns the block in progress to replay, up to snap's pre-confirmation,
// on a private copy of the sealed head's state. Tracers see the zero block hash, as
// pre-confirmed receipts carry.
func (a *API) pendingBlockEnv(snap *preconf.Snapshot) (*exec.BlockEnv, error) {
	st, err := a.Chain.StateAt(snap.Parent)
	if err != nil {
		return nil, err
	}
	return &exec.BlockEnv{Config: a.ChainConfig, Chain: a.Chain.Context(), Header: snap.Header(), Parent: snap.Parent,
		Txs: snap.Block.Transactions(), State: st, Denim: a.Chain.Denim()}, nil
}

// TraceBlockByNumber answers debug_traceBlockByNumber.
func (a *API) TraceBlockByNumber(ctx context.Context, p rpc.Params) (any, error) {
	n, cfg, err := param.Two(p, param.DecodeBlockNumber, a.decodeTraceConfig)
	if err != nil {
		return nil, err
	}
	return a.traceOn(ctx, func(v preconf.View) (any, error) {
		block, snap, err := a.BlockByNumber(v, n)
		switch {
		case err != nil:
			return nil, err
		case block == nil && snap == nil:
			return nil, core.ErrTraceBlockNumberNotFound(n)
		}
		return a.traceBlock(ctx, block, snap, cfg)
	})
}

// TraceBlockByHash answers debug_traceBlockByHash.
func (a *API) TraceBlockByHash(ctx context.Context, p rpc.Params) (any, error) {
	hash, cfg, err := param.Two(p, param.DecodeHash, a.decodeTraceConfig)
	if err != nil {
		return nil, err
	}
	return a.traceOn(ctx, func(v preconf.View) (any, error) {
		block, snap := a.BlockByHash(v, hash)
		if block == nil && snap == nil {
			return nil, core.ErrTraceBlockHashNotFound(hash)
		}
		return a.traceBlock(ctx, block, snap, cfg)
	})
}

// blockEnv returns the block a lookup found to replay: snap's (the block in progress, or the
// one being written) or block, which is then not nil.
func (a *API) blockEnv(block *types.Block, snap *preconf.Snapshot) (*exec.BlockEnv, error) {
	if snap != nil {
		return a.pendingBlockEnv(snap)
	}
	return a.sealedBlockEnv(block)
}

// traceBlock traces the block a lookup found (blockEnv) and answers go-ethereum's
// [{txHash, result}].
func (a *API) traceBlock(ctx context.Context, block *types.Block, snap *preconf.Snapshot, cfg *exec.TraceConfig) (any, error) {
	env, err := a.blockEnv(block, snap)
	if err != nil {
		return nil, err
	}
	traces, err := exec.TraceBlock(ctx, env, cfg, a.traceLimits())
	if err != nil {
		return nil, core.TraceError(1, err)
	}
	size := 2
	for _, t := range traces {
		size += len(t.Result) + 96
	}
	out := append(make([]byte, 0, size), '[')
	for i, t := range traces {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"txHash":`...)
		out = ethjson.AppendHash(out, t.TxHash)
		out = append(out, `,"result":`...)
		out = append(out, t.Result...)
		out = append(out, '}')
	}
	return json.RawMessage(append(out, ']')), nil
}

// TraceCall answers debug_traceCall.
func (a *API) TraceCall(ctx context.Context, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 3); err != nil {
		return nil, err
	}
	var args exec.Args
	if err := param.DecodeArg(p, 0, &args); err != nil {
		return nil, err
	}
	b, err := param.DecodeBlockNumberOrHash(p, 1, false)
	if err != nil {
		return nil, err
	}
	var cfg *exec.TraceCallConfig
	if param.Present(p, 2) {
		cfg = new(exec.TraceCallConfig)
		if _, err := param.DecodeOptional(p, 2, cfg); err != nil {
			return nil, err
		}
		if err := exec.CheckTraceConfig(&cfg.TraceConfig, a.ChainConfig); err != nil {
			return nil, core.TraceError(2, err)
		}
	}
	release, err := a.EVM.Acquire(ctx)
	if err != nil {
		return nil, core.TraceError(2, err)
	}
	defer release()
	v := a.View()
	if err := a.prefetchCall(ctx, v, b, args); err != nil {
		return nil, err
	}
	var env exec.Env
	if cfg != nil && cfg.TxIndex != nil {
		env, err = a.traceCallEnvAtTx(ctx, v, b, int(*cfg.TxIndex))
	} else {
		env, err = a.ExecEnv(v, b)
	}
	if err != nil {
		return nil, core.TraceError(2, err)
	}
	res, err := exec.TraceCall(ctx, env, args, cfg, a.traceLimits())
	if err != nil {
		return nil, core.TraceError(2, err)
	}
	return res, nil
}

// traceCallEnvAtTx is debug_traceCall's environment with txIndex: block b's header, on the
// state before its transaction index.
func (a *API) traceCallEnvAtTx(ctx context.Context, v preconf.View, b gethrpc.BlockNumberOrHash, index int) (exec.Env, error) {
	h, snap, err := a.HeaderByNumberOrHash(v, b)
	if err != nil {
		return exec.Env{}, err
	}
	var block *types.Block
	if h != nil && snap == nil {
		block = a.Chain.BlockByHash(h.Hash())
	}
	if block == nil && snap == nil {
		return exec.Env{}, core.ErrHeaderNotFound
	}
	benv, err := a.blockEnv(block, snap)
	if err != nil {
		return exec.Env{}, err
	}
	if _, err := exec.StateAt(ctx, benv, index); err != nil {
		return exec.Env{}, err
	}
	return exec.Env{Config: a.ChainConfig, Chain: a.Chain.Context(), Header: benv.Header, State: benv.State, GasCap: a.GasCap, EVMTimeout: a.EVMTimeout}, nil
}
