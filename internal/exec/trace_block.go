package exec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/eth/tracers"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// BlockEnv is a block to replay for tracing: a sealed block, or the block in progress up to
// its newest pre-confirmation. Replaying runs what the block's execution ran, in the same
// way: the block context of its header (on an OP Stack chain with the L1 cost function read
// from the replayed state, as op-geth's processor builds it), the pre-execution system calls
// (PreExecution), BaseTime's implementation installed when the block is a Denim block and
// the state lacks it (as the chain's processor and the block in progress do), then its
// transactions in order.
type BlockEnv struct {
	Config *params.ChainConfig
	Chain  core.ChainContext
	// Header is the block's header; Parent its parent's.
	Header, Parent *types.Header
	// Hash is the block hash tracers and receipts see: the block's, or the zero hash for the
	// block in progress (its pre-confirmed receipts carry the zero hash).
	Hash common.Hash
	// Txs are the block's transactions.
	Txs types.Transactions
	// State is the parent's state, a private copy: replaying mutates it.
	State *state.StateDB
	// Denim is the chain's Denim time (chain.Chain.Denim); nil when it does not run Denim.
	Denim *uint64
}

// errGenesisNotTraceable refuses the genesis block, with go-ethereum's text.
var errGenesisNotTraceable = errors.New("genesis is not traceable")

// TxTrace is one transaction's trace in a block's.
type TxTrace struct {
	TxHash common.Hash
	Result json.RawMessage
}

// replay opens env's block and applies its first n transactions, untraced, as go-ethereum's
// state accessor does (StateAtTransaction): the pre-execution system calls, then each
// message with its transaction context, finalised. It returns the block context the next
// transaction runs in. ctx is checked between transactions and stops a running one.
func replay(ctx context.Context, env *BlockEnv, n int) (vm.BlockContext, error) {
	if env.Header.Number.Sign() == 0 {
		return vm.BlockContext{}, errGenesisNotTraceable
	}
	if n > len(env.Txs) {
		return vm.BlockContext{}, fmt.Errorf("transaction index %d out of range for block %d (%d transactions)", n, env.Header.Number, len(env.Txs))
	}
	blockCtx := core.NewEVMBlockContext(env.Header, env.Chain, nil, env.Config, env.State)
	evm := vm.NewEVM(blockCtx, env.State, env.Config, oprollup.VMConfig(env.Config, vm.Config{}))
	stop := context.AfterFunc(ctx, evm.Cancel)
	defer stop()
	PreExecution(env.Config, env.Header, env.Parent, evm)
	if oprollup.IsDenim(env.Denim, env.Header.Time) {
		if _, err := oprollup.EnsureBaseTime(env.State); err != nil {
			return vm.BlockContext{}, fmt.Errorf("block %d: %w", env.Header.Number, err)
		}
	}
	signer := types.MakeSigner(env.Config, env.Header.Number, env.Header.Time)
	deleteEmpty := env.Config.IsEIP158(env.Header.Number)
	for i, tx := range env.Txs[:n] {
		if err := ctx.Err(); err != nil {
			return vm.BlockContext{}, err
		}
		msg, err := core.TransactionToMessage(tx, signer, env.Header.BaseFee)
		if err != nil {
			return vm.BlockContext{}, fmt.Errorf("transaction %s: %w", tx.Hash().Hex(), err)
		}
		env.State.SetTxContext(tx.Hash(), i)
		if _, err := core.ApplyMessage(evm, msg, nil); err != nil {
			return vm.BlockContext{}, fmt.Errorf("transaction %s failed: %w", tx.Hash().Hex(), err)
		}
		env.State.Finalise(deleteEmpty)
	}
	if err := ctx.Err(); err != nil {
		return vm.BlockContext{}, err
	}
	if err := env.State.Error(); err != nil {
		return vm.BlockContext{}, fmt.Errorf("read state: %w", err)
	}
	return blockCtx, nil
}

// StateAt replays env's block up to its transaction index n (exclusive) and returns the
// state then, in env.State, and the block context transaction n runs in: debug_traceCall's
// txIndex.
func StateAt(ctx context.Context, env *BlockEnv, n int) (vm.BlockContext, error) {
	if n < 0 || (n >= len(env.Txs) && n > 0) { // go-ethereum's StateAtTransaction's range
		return vm.BlockContext{}, fmt.Errorf("transaction index %d out of range for block %d (%d transactions)", n, env.Header.Number, len(env.Txs))
	}
	return replay(ctx, env, n)
}

// TraceTransaction traces transaction index of env's block with the tracer cfg chooses: the
// transactions before it are replayed untraced, then it runs with the tracer, as
// debug_traceTransaction does. Errors: *TracerError (cfg), *DecodeError, ctx's error,
// "tracing failed: …" when the transaction does not apply, the tracer's own error (for
// example "execution timeout").
func TraceTransaction(ctx context.Context, env *BlockEnv, index int, cfg *TraceConfig, lim TraceLimits) (json.RawMessage, error) {
	spec, err := newTracerSpec(cfg, env.Config, lim)
	if err != nil {
		return nil, err
	}
	if index < 0 || index >= len(env.Txs) {
		return nil, fmt.Errorf("transaction index %d out of range for block %d", index, env.Header.Number)
	}
	blockCtx, err := replay(ctx, env, index)
	if err != nil {
		return nil, err
	}
	return spec.traceBlockTx(ctx, env, blockCtx, index)
}

// TraceBlock traces every transaction of env's block in order, each with a tracer of its
// own, as debug_traceBlockByNumber does; the first error ends it.
func TraceBlock(ctx context.Context, env *BlockEnv, cfg *TraceConfig, lim TraceLimits) ([]TxTrace, error) {
	spec, err := newTracerSpec(cfg, env.Config, lim)
	if err != nil {
		return nil, err
	}
	blockCtx, err := replay(ctx, env, 0)
	if err != nil {
		return nil, err
	}
	out := make([]TxTrace, len(env.Txs))
	for i, tx := range env.Txs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res, err := spec.traceBlockTx(ctx, env, blockCtx, i)
		if err != nil {
			return nil, err
		}
		out[i] = TxTrace{TxHash: tx.Hash(), Result: res}
	}
	return out, nil
}

// traceBlockTx traces transaction i of env's block on env.State, which holds the state
// before it.
func (s *tracerSpec) traceBlockTx(ctx context.Context, env *BlockEnv, blockCtx vm.BlockContext, i int) (json.RawMessage, error) {
	tx := env.Txs[i]
	signer := types.MakeSigner(env.Config, env.Header.Number, env.Header.Time)
	msg, err := core.TransactionToMessage(tx, signer, env.Header.BaseFee)
	if err != nil {
		return nil, fmt.Errorf("transaction %s: %w", tx.Hash().Hex(), err)
	}
	txctx := &tracers.Context{BlockHash: env.Hash, BlockNumber: new(big.Int).Set(env.Header.Number), TxIndex: i, TxHash: tx.Hash()}
	return s.traceTx(ctx, tx, msg, txctx, blockCtx, env.State, nil)
}
