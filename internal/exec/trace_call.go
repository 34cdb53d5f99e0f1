package exec

import (
	"context"
	"encoding/json"
	"math/big"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/eth/tracers"
)

// TraceCall traces args as a transaction on top of env (a block's state after the block, or
// after some of its transactions: StateAt), like go-ethereum's debug_traceCall: block
// overrides change the EVM context (a number override of the block's number + 1 also makes
// that block the parent, so BLOCKHASH of it is its hash), state overrides are applied with
// the precompiles of the overridden rules, the message has a call's defaults (gas defaulted
// to and capped by env.GasCap, no base-fee check), then it runs with the tracer cfg chooses.
// cfg may be nil. Errors are TraceTransaction's, plus *ArgsError and *OverrideError.
func TraceCall(ctx context.Context, env Env, args Args, cfg *TraceCallConfig, lim TraceLimits) (json.RawMessage, error) {
	var base *TraceConfig
	if cfg != nil {
		base = &cfg.TraceConfig
	}
	spec, err := newTracerSpec(base, env.Config, lim)
	if err != nil {
		return nil, err
	}
	h := types.CopyHeader(env.Header) // the block context's BLOCKHASH reads it lazily
	blockCtx := core.NewEVMBlockContext(h, env.Chain, nil, env.Config, env.State)
	var precompiles vm.PrecompiledContracts
	if cfg != nil {
		if bo := cfg.BlockOverrides; bo != nil && bo.Number != nil && bo.Number.ToInt().IsUint64() && bo.Number.ToInt().Uint64() == h.Number.Uint64()+1 {
			// Wallets simulate the next block this way; without this, BLOCKHASH of the
			// current block would be zero (go-ethereum #32175).
			h.ParentHash = h.Hash()
			h.Number = new(big.Int).Add(h.Number, big.NewInt(1))
		}
		if err := cfg.BlockOverrides.applyContext(&blockCtx); err != nil {
			return nil, err
		}
		rules := env.Config.Rules(blockCtx.BlockNumber, blockCtx.Random != nil, blockCtx.Time)
		precompiles = Precompiles(env.Config, rules)
		if err := cfg.StateOverrides.Apply(env.State, precompiles); err != nil {
			return nil, err
		}
	}
	if err := args.CallDefaults(env.GasCap, blockCtx.BaseFee, env.Config.ChainID); err != nil {
		return nil, err
	}
	msg := args.ToMessage(blockCtx.BaseFee, true)
	tx := types.NewTx(args.TxData(types.DynamicFeeTxType))
	if msg.GasPrice.Sign() == 0 {
		blockCtx.BaseFee = new(big.Int)
	}
	if msg.BlobGasFeeCap != nil && msg.BlobGasFeeCap.BitLen() == 0 {
		blockCtx.BlobBaseFee = new(big.Int)
	}
	return spec.traceTx(ctx, tx, msg, new(tracers.Context), blockCtx, env.State, precompiles)
}
