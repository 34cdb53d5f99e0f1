package exec

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/tracers/logger"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// AccessListResult is what eth_createAccessList answers: the EIP-2930 access list a
// transaction of args would touch, the gas it used with that list, and its execution error,
// if it failed (a failed execution still has a list).
type AccessListResult struct {
	List    types.AccessList
	GasUsed uint64
	// Err is the execution's failure (vm.ErrExecutionReverted and the like), nil on success.
	Err error
}

// CreateAccessList runs args in env like go-ethereum v1.17.10's eth_createAccessList: state
// overrides are applied (precompiles cannot be moved), fees are defaulted only when some fee
// field is given (tip suggests the priority fee then; nil means none), the nonce defaults to
// the sender's, then the message runs again and again with go-ethereum's access-list tracer
// (eth/tracers/logger), each time with the list the previous run collected, until the list
// stops growing. The sender, the recipient (or the created contract), the precompiles and
// the authorities of valid authorizations are left out of the list.
//
// Each run is a call (no base-fee check, nonce check skipped, gas defaulted to and capped by
// env.GasCap) on a copy of the state; env.EVMTimeout bounds all runs together. Errors:
// *TxError ("failed to apply transaction: <hash> err: <cause>"), *ArgsError,
// *OverrideError, *TimeoutError, or ctx's error.
func CreateAccessList(ctx context.Context, env Env, args Args, so StateOverride, tip func() *big.Int) (*AccessListResult, error) {
	if err := args.checkBlobFeeCap(); err != nil {
		return nil, err
	}
	if err := so.Apply(env.State, nil); err != nil {
		return nil, err
	}
	header := env.Header
	if args.GasPrice != nil || args.MaxFeePerGas != nil || args.MaxPriorityFeePerGas != nil || args.BlobFeeCap != nil {
		if err := args.feeDefaults(env.Config, header, tip); err != nil {
			return nil, err
		}
	}
	if args.Nonce == nil {
		nonce := hexutil.Uint64(env.State.GetNonce(args.Sender()))
		args.Nonce = &nonce
	}
	if err := args.CallDefaults(env.GasCap, header.BaseFee, env.Config.ChainID); err != nil {
		return nil, err
	}
	excluded := accessListExcluded(env.Config, header, &args)

	var cancel context.CancelFunc
	if env.EVMTimeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, env.EVMTimeout)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()

	prev := logger.NewAccessListTracer(nil, excluded)
	if args.AccessList != nil {
		prev = logger.NewAccessListTracer(*args.AccessList, excluded)
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, accessListCtxError(err, env.EVMTimeout)
		}
		list := prev.AccessList()
		args.AccessList = &list
		msg := args.ToMessage(header.BaseFee, true)
		tracer := logger.NewAccessListTracer(list, excluded)
		statedb := env.State.Copy() // each run starts from the same state
		blockCtx := core.NewEVMBlockContext(header, env.Chain, nil, env.Config, statedb)
		if msg.GasPrice.Sign() == 0 {
			blockCtx.BaseFee = new(big.Int)
		}
		if msg.BlobGasFeeCap != nil && msg.BlobGasFeeCap.BitLen() == 0 {
			blockCtx.BlobBaseFee = new(big.Int)
		}
		evm := vm.NewEVM(blockCtx, statedb, env.Config, oprollup.VMConfig(env.Config, vm.Config{Tracer: tracer.Hooks(), NoBaseFee: true}))
		stop := context.AfterFunc(ctx, evm.Cancel)
		res, err := core.ApplyMessage(evm, msg, nil)
		stop()
		if evm.Cancelled() {
			return nil, accessListCtxError(ctx.Err(), env.EVMTimeout)
		}
		if serr := statedb.Error(); serr != nil {
			return nil, fmt.Errorf("read state: %w", serr)
		}
		if err != nil {
			hash := types.NewTx(args.TxData(types.LegacyTxType)).Hash()
			return nil, &TxError{Err: fmt.Errorf("failed to apply transaction: %v err: %w", hash, err)}
		}
		if tracer.Equal(prev) {
			return &AccessListResult{List: list, GasUsed: res.UsedGas, Err: res.Err}, nil
		}
		prev = tracer
	}
}

// accessListCtxError maps the end of an access-list search's context: its own time limit is a
// *TimeoutError, the request's end the context's error.
func accessListCtxError(err error, timeout time.Duration) error {
	if errors.Is(err, context.DeadlineExceeded) && timeout > 0 {
		return &TimeoutError{Timeout: timeout}
	}
	return err
}

// accessListExcluded returns the addresses an access list leaves out: the sender, the
// recipient (the created contract's address for a creation), the precompiles active in the
// header's block and the authorities of the authorizations that may be valid.
func accessListExcluded(config *params.ChainConfig, header *types.Header, args *Args) map[common.Address]struct{} {
	to := crypto.CreateAddress(args.Sender(), uint64(*args.Nonce))
	if args.To != nil {
		to = *args.To
	}
	excluded := map[common.Address]struct{}{args.Sender(): {}, to: {}}
	rules := config.Rules(header.Number, header.Difficulty.Sign() == 0, header.Time)
	for _, addr := range vm.ActivePrecompiles(rules) {
		excluded[addr] = struct{}{}
	}
	for _, auth := range args.AuthorizationList {
		if (!auth.ChainID.IsZero() && auth.ChainID.CmpBig(config.ChainID) != 0) || auth.Nonce+1 < auth.Nonce {
			continue
		}
		if authority, err := auth.Authority(); err == nil {
			excluded[authority] = struct{}{}
		}
	}
	return excluded
}

// feeDefaults fills the fee fields of a transaction priced against head, like go-ethereum's
// TransactionArgs.setFeeDefaults: a blob fee cap of twice head's blob base fee, then either
// the given gas price, or the EIP-1559 caps with the priority fee from tip and a fee cap of
// the tip plus twice head's base fee (before London a gas price from tip).
func (a *Args) feeDefaults(config *params.ChainConfig, head *types.Header, tip func() *big.Int) error {
	if a.BlobFeeCap != nil && a.BlobFeeCap.ToInt().Sign() == 0 {
		return argsErrorf("maxFeePerBlobGas, if specified, must be non-zero")
	}
	if config.IsCancun(head.Number, head.Time) && a.BlobHashes != nil && a.BlobFeeCap == nil {
		fee := new(big.Int).Mul(eip4844.CalcBlobFee(config, head), big.NewInt(2))
		a.BlobFeeCap = (*hexutil.Big)(fee)
	}
	if a.GasPrice != nil && (a.MaxFeePerGas != nil || a.MaxPriorityFeePerGas != nil) {
		return argsErrorf("both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified")
	}
	if a.GasPrice != nil && a.AuthorizationList != nil {
		return argsErrorf("both gasPrice and authorizationList specified")
	}
	if a.GasPrice == nil && a.MaxFeePerGas != nil && a.MaxPriorityFeePerGas != nil {
		if a.MaxFeePerGas.ToInt().Sign() == 0 {
			return argsErrorf("maxFeePerGas must be non-zero")
		}
		if a.MaxFeePerGas.ToInt().Cmp(a.MaxPriorityFeePerGas.ToInt()) < 0 {
			return argsErrorf("maxFeePerGas (%v) < maxPriorityFeePerGas (%v)", a.MaxFeePerGas, a.MaxPriorityFeePerGas)
		}
		return nil
	}
	london := config.IsLondon(head.Number)
	if a.GasPrice != nil {
		if a.GasPrice.ToInt().Sign() == 0 && london {
			return argsErrorf("gasPrice must be non-zero after london fork")
		}
		return nil
	}
	suggested := func() *big.Int {
		if tip == nil {
			return new(big.Int)
		}
		return tip()
	}
	if !london {
		if a.MaxFeePerGas != nil || a.MaxPriorityFeePerGas != nil {
			return argsErrorf("maxFeePerGas and maxPriorityFeePerGas are not valid before London is active")
		}
		a.GasPrice = (*hexutil.Big)(suggested())
		return nil
	}
	if a.MaxPriorityFeePerGas == nil {
		a.MaxPriorityFeePerGas = (*hexutil.Big)(suggested())
	}
	if a.MaxFeePerGas == nil {
		fee := new(big.Int).Add(a.MaxPriorityFeePerGas.ToInt(), new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
		a.MaxFeePerGas = (*hexutil.Big)(fee)
	}
	if a.MaxFeePerGas.ToInt().Cmp(a.MaxPriorityFeePerGas.ToInt()) < 0 {
		return argsErrorf("maxFeePerGas (%v) < maxPriorityFeePerGas (%v)", a.MaxFeePerGas, a.MaxPriorityFeePerGas)
	}
	return nil
}
