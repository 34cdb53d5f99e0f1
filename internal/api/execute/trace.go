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

// TraceTransaction answers debug_traceTransaction.
func (a *API) TraceTransaction(ctx context.Context, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 2); err != nil {
		return nil, err
	}
	hash, err := param.DecodeHash(p, 0)
	if err != nil {
		return nil, err
	}
	cfg, err := a.decodeTraceConfig(p, 1)
	if err != nil {
		return nil, err
	}
	release, err := a.EVM.Acquire(ctx)
	if err != nil {
		return nil, core.TraceError(1, err)
	}
	defer release()
	v := a.View()
	env, index, err := a.txBlockEnv(v, hash)
	if err != nil {
		return nil, err
	}
	res, err := exec.TraceTransaction(ctx, env, index, cfg, a.traceLimits())
	if err != nil {
		return nil, core.TraceError(1, err)
	}
	return res, nil
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
	if err := param.CheckCount(p, 2); err != nil {
		return nil, err
	}
	n, err := param.DecodeBlockNumber(p, 0)
	if err != nil {
		return nil, err
	}
	cfg, err := a.decodeTraceConfig(p, 1)
	if err != nil {
		return nil, err
	}
	release, err := a.EVM.Acquire(ctx)
	if err != nil {
		return nil, core.TraceError(1, err)
	}
	defer release()
	block, snap, err := a.BlockByNumber(a.View(), n)
	var env *exec.BlockEnv
	switch {
	case err != nil:
		return nil, err
	case snap != nil:
		env, err = a.pendingBlockEnv(snap)
	case block == nil:
		return nil, core.ErrTraceBlockNumberNotFound(n)
	default:
		env, err = a.sealedBlockEnv(block)
	}
	if err != nil {
		return nil, err
	}
	return a.traceBlock(ctx, env, cfg)
}

// TraceBlockByHash answers debug_traceBlockByHash.
func (a *API) TraceBlockByHash(ctx context.Context, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 2); err != nil {
		return nil, err
	}
	hash, err := param.DecodeHash(p, 0)
	if err != nil {
		return nil, err
	}
	cfg, err := a.decodeTraceConfig(p, 1)
	if err != nil {
		return nil, err
	}
	release, err := a.EVM.Acquire(ctx)
	if err != nil {
		return nil, core.TraceError(1, err)
	}
	defer release()
	var env *exec.BlockEnv
	v := a.View()
	if snap := v.SealingByHash(hash); snap != nil { // being written (core's view.go)
		env, err = a.pendingBlockEnv(snap)
	} else if block := a.Chain.BlockByHash(hash); block != nil {
		env, err = a.sealedBlockEnv(block)
	} else {
		return nil, core.ErrTraceBlockHashNotFound(hash)
	}
	if err != nil {
		return nil, err
	}
	return a.traceBlock(ctx, env, cfg)
}

// traceBlock traces env's block and answers go-ethereum's [{txHash, result}].
func (a *API) traceBlock(ctx context.Context, env *exec.BlockEnv, cfg *exec.TraceConfig) (any, error) {
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
	var benv *exec.BlockEnv
	switch {
	case err != nil:
		return exec.Env{}, err
	case snap != nil:
		benv, err = a.pendingBlockEnv(snap)
	case h == nil:
		return exec.Env{}, core.ErrHeaderNotFound
	default:
		block := a.Chain.BlockByHash(h.Hash())
		if block == nil {
			return exec.Env{}, core.ErrHeaderNotFound
		}
		benv, err = a.sealedBlockEnv(block)
	}
	if err != nil {
		return exec.Env{}, err
	}
	if _, err := exec.StateAt(ctx, benv, index); err != nil {
		return exec.Env{}, err
	}
	return exec.Env{Config: a.ChainConfig, Chain: a.Chain.Context(), Header: benv.Header, State: benv.State, GasCap: a.GasCap, EVMTimeout: a.EVMTimeout}, nil
}
