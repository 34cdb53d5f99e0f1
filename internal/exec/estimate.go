package exec

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
)

// EstimateGas returns the lowest gas limit (within 1.5%) at which args succeed in env, like
// geth's DoEstimateGas with eth/gasestimator (the search is gasSearch, a copy of it:
// estimate_search.go says why it is not imported). Overrides are applied as for Call. The
// upper bound is the user's gas (if at least 21000) or the block gas limit, capped by
// EIP-7825's per-transaction limit under Osaka, by what the sender can pay at its fee cap,
// and by env.GasCap. A plain transfer to an account without code is answered from one run at 21000.
// env.EVMTimeout limits the whole search (go-ethereum has no such limit here, only the
// request's timeout): past it the answer is a *TimeoutError.
//
// Errors: *RevertError (the call reverts at the highest gas), *VMError (another execution
// failure), *AllowanceError (still out of gas at the highest gas), *TxError (e.g. "insufficient
// funds for transfer", "failed with 21000 gas: …"), *ArgsError, *OverrideError, *TimeoutError,
// or ctx's error.
func EstimateGas(ctx context.Context, env Env, args Args, so StateOverride, bo *BlockOverrides) (uint64, error) {
	if err := args.checkBlobFeeCap(); err != nil {
		return 0, err
	}
	header := env.Header
	blockCtx := core.NewEVMBlockContext(header, env.Chain, nil, env.Config, env.State)
	if bo != nil {
		if err := bo.applyContext(&blockCtx); err != nil {
			return 0, err
		}
		header = bo.makeHeader(header)
	}
	rules := env.Config.Rules(blockCtx.BlockNumber, blockCtx.Random != nil, blockCtx.Time)
	// The estimator runs with the standard precompiles; moves only validate here, as in geth.
	precompiles := Precompiles(env.Config, rules)
	if err := so.Apply(env.State, precompiles); err != nil {
		return 0, err
	}
	// Like geth's estimator, the trials run in a context made from the overridden header (so
	// the overrides' block hashes do not reach it), with the blob base fee override on top.
	trialCtx := blockCtx // without overrides the header is env.Header: the same context
	if bo != nil {
		trialCtx = core.NewEVMBlockContext(header, env.Chain, nil, env.Config, env.State)
		if bo.BlobBaseFee != nil {
			trialCtx.BlobBaseFee = new(big.Int).Set(bo.BlobBaseFee.ToInt())
		}
	}
	// Keep the gas at 0 when the user gave none, so the search starts at the block's limit.
	if args.Gas == nil {
		args.Gas = new(hexutil.Uint64)
	}
	if err := args.CallDefaults(env.GasCap, header.BaseFee, env.Config.ChainID); err != nil {
		return 0, err
	}
	msg := args.ToMessage(header.BaseFee, true)
	search := newGasSearch(trialCtx, env.State, env.Config, msg)
	estimate, revert, err := search.estimate(ctx, env.Config, header, env.GasCap, env.EVMTimeout)
	// A cancelled EVM stops at its next jump as if it had succeeded; never report that.
	if cerr := ctx.Err(); cerr != nil {
		return 0, fmt.Errorf("estimate gas: %w", cerr)
	}
	if search.timedOut.Load() {
		return 0, &TimeoutError{Timeout: env.EVMTimeout}
	}
	if err != nil {
		return 0, classifyEstimateError(err, revert)
	}
	return estimate, nil
}
