package exec

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// Defaults of the RPC limits, as in go-ethereum.
const (
	DefaultGasCap     = 50_000_000      // RPC gas cap of eth_call, eth_estimateGas and eth_simulateV1
	DefaultEVMTimeout = 5 * time.Second // time limit of eth_call and eth_simulateV1
)

// estimateErrorRatio is the relative slack the gas estimator may stop at, as in geth.
const estimateErrorRatio = 0.015

// Env is what a call runs against. It is used by one call at a time: State is owned by the
// call (the caller passes a private copy and exec mutates it freely).
type Env struct {
	// Config is the chain configuration (fork rules, chain id).
	Config *params.ChainConfig
	// Chain serves header lookups for BLOCKHASH and the consensus engine; a *core.BlockChain
	// will do.
	Chain core.ChainContext
	// Header is the block the call runs in: a sealed block, or for `pending` the partial
	// header of the block in progress.
	Header *types.Header
	// State is the state the call starts from. exec mutates it.
	State *state.StateDB
	// GasCap is the RPC gas cap: the default and maximum gas of a call and the budget of a
	// whole simulation. 0 means unlimited; servers use DefaultGasCap.
	GasCap uint64
	// EVMTimeout limits the run time of eth_call and eth_simulateV1. 0 means no limit beyond
	// the context; servers use DefaultEVMTimeout.
	EVMTimeout time.Duration
}

// Call runs args in env like geth's DoCall: block overrides change the block context and a
// copy of the header, state overrides are applied to env.State, then the message runs with
// no base-fee check (the base fee is 0 when the gas price is 0), gas defaulting to and capped
// at env.GasCap, the nonce and EOA checks skipped, and env.EVMTimeout as time limit.
//
// A result whose Err is set is a failed execution that still consumed gas: a revert is
// reported as a *RevertError error, any other failed execution as a *VMError error, both
// together with the result. Errors without a result are *TxError, *TimeoutError,
// *ArgsError, *OverrideError, or state read errors.
func Call(ctx context.Context, env Env, args Args, so StateOverride, bo *BlockOverrides) (*core.ExecutionResult, error) {
	if err := args.checkBlobFeeCap(); err != nil {
		return nil, err
	}
	header := env.Header
	blockCtx := core.NewEVMBlockContext(header, env.Chain, nil, env.Config, env.State)
	if bo != nil {
		if err := bo.applyContext(&blockCtx); err != nil {
			return nil, err
		}
		header = bo.makeHeader(header)
	}
	// The EVM brings the standard precompiles; only overrides need a private, mutable set.
	var precompiles vm.PrecompiledContracts
	if len(so) > 0 {
		rules := env.Config.Rules(blockCtx.BlockNumber, blockCtx.Random != nil, blockCtx.Time)
		precompiles = Precompiles(env.Config, rules)
		if err := so.Apply(env.State, precompiles); err != nil {
			return nil, err
		}
	}
	var cancel context.CancelFunc
	if env.EVMTimeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, env.EVMTimeout)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()

	gp := core.NewGasPool(env.GasCap)
	if env.GasCap == 0 {
		gp = core.NewGasPool(math.MaxUint64)
	}
	if err := args.CallDefaults(gp.Gas(), blockCtx.BaseFee, env.Config.ChainID); err != nil {
		return nil, err
	}
	msg := args.ToMessage(header.BaseFee, true)
	// Lower the base fee to 0 to keep the EVM invariant basefee <= feecap.
	if msg.GasPrice.Sign() == 0 {
		blockCtx.BaseFee = new(big.Int)
	}
	if msg.BlobGasFeeCap != nil && msg.BlobGasFeeCap.BitLen() == 0 {
		blockCtx.BlobBaseFee = new(big.Int)
	}
	evm := vm.NewEVM(blockCtx, WithWarmPrecompiles(env.State), env.Config, oprollup.VMConfig(env.Config, vm.Config{NoBaseFee: true}))
	if precompiles != nil {
		evm.SetPrecompiles(precompiles)
	}

	res, err := applyMessage(ctx, evm, msg, env.EVMTimeout, gp)
	// A state read error takes precedence: a missing trie node must not masquerade as,
	// say, insufficient funds.
	if serr := env.State.Error(); serr != nil {
		return nil, fmt.Errorf("read state: %w", serr)
	}
	if err != nil {
		return nil, err
	}
	return res, resultError(res)
}

// resultError returns the error a failed execution result reports to a caller.
func resultError(res *core.ExecutionResult) error {
	switch {
	case res.Err == nil:
		return nil
	case errors.Is(res.Err, vm.ErrExecutionReverted):
		return NewRevertError(res.Revert())
	default:
		return &VMError{Err: res.Err}
	}
}

// applyMessage runs msg on evm, cancelling the EVM when ctx ends, like geth's
// applyMessageWithEVM. Errors are RunMessage's.
func applyMessage(ctx context.Context, evm *vm.EVM, msg *core.Message, timeout time.Duration, gp *core.GasPool) (*core.ExecutionResult, error) {
	stop := context.AfterFunc(ctx, evm.Cancel)
	defer stop()
	return RunMessage(evm, msg, timeout, gp)
}

// RunMessage runs msg on evm, which the caller cancels when the request ends. Invalid
// messages give a *TxError "err: <cause> (supplied gas N)"; an aborted run gives a
// *TimeoutError.
func RunMessage(evm *vm.EVM, msg *core.Message, timeout time.Duration, gp *core.GasPool) (*core.ExecutionResult, error) {
	result, err := core.ApplyMessage(evm, msg, gp)
	if evm.Cancelled() {
		return nil, &TimeoutError{Timeout: timeout}
	}
	if err != nil {
		return result, &TxError{Err: fmt.Errorf("err: %w (supplied gas %d)", err, msg.GasLimit)}
	}
	return result, nil
}
