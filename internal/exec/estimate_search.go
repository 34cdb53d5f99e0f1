package exec

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// gasSearch is go-ethereum's eth/gasestimator.Estimate (v1.17.10), step for step: the same
// bounds, the same plain-transfer shortcut, the same optimistic first guess and the same
// bisection with its 1.5% stop, so it finds the same number and fails with the same errors
// (TestGethDifferential and the conformance fixtures compare). Only the way each trial runs
// differs. go-ethereum copies the StateDB and builds a block context, an EVM and a watcher
// goroutine for every trial, and each copy loads every account again. Here one EVM runs all
// trials on one StateDB, and each trial is rolled back through the StateDB's journal (every
// state change of a message is journaled until Finalise, which a message run never calls),
// so accounts, code and slots stay loaded between trials. A search makes five to eight
// trials; that made it about half of an eth_estimateGas.
//
// It is a copy, not an import of the eth/gasestimator that go.mod's op-geth v1.101702.3
// provides (go-ethereum 1.17.2's), because that package cannot run flashrpc's estimate:
//
//   - It builds every trial's EVM with vm.Config{NoBaseFee: true}, so the EVM would run
//     without oprollup.VMConfig (Azul's and Karst's precompiles on OP Stack chains:
//     estimates would not execute as blocks do) and without warm precompiles
//     (WithWarmPrecompiles).
//   - Its block overrides are go-ethereum's internal/ethapi/override.BlockOverrides, which
//     flashrpc cannot import, and it bounds the search by the base header's gas limit, not
//     the overridden one: go-ethereum v1.17.10 and flashrpc use the overridden header
//     (opGethDivergences' eth_estimateGas/block-override-gas-limit).
//   - It copies the state for each trial and starts a goroutine per trial (above): importing
//     it would give back the measured gain (docs/benchmarks.md: 5.8k to 8.8k requests a
//     second on one core).
//   - It has no time limit of its own: Env.EVMTimeout bounds the whole search here, checked
//     before each trial and enforced by one timer.
//   - When the search fails at the EIP-7825 cap on an OP Stack chain it says only "gas
//     required exceeds allowance"; here the *AllowanceError says the cap was the limit, as
//     the pool's refusal does.
type gasSearch struct {
	evm      *vm.EVM
	state    *state.StateDB
	msg      *core.Message
	deadline time.Time   // zero: no time limit
	timedOut atomic.Bool // the search ran over its time limit and was cancelled
}

// newGasSearch prepares trials of msg on st in the block of blockCtx, with go-ethereum's
// per-trial adjustments of the context: base fee 0 for a zero gas price, blob base fee 0 for
// a zero blob fee cap.
func newGasSearch(blockCtx vm.BlockContext, st *state.StateDB, cfg *params.ChainConfig, msg *core.Message) *gasSearch {
	if msg.GasPrice.Sign() == 0 {
		blockCtx.BaseFee = new(big.Int)
	}
	if msg.BlobGasFeeCap != nil && msg.BlobGasFeeCap.BitLen() == 0 {
		blockCtx.BlobBaseFee = new(big.Int)
	}
	return &gasSearch{evm: vm.NewEVM(blockCtx, WithWarmPrecompiles(st), cfg, oprollup.VMConfig(cfg, vm.Config{NoBaseFee: true})), state: st, msg: msg}
}

// timeout cancels the search for running over its time limit.
func (s *gasSearch) timeout() {
	s.timedOut.Store(true)
	s.evm.Cancel()
}

// estimate runs the search: it returns the gas, or the revert data and error of a call that
// fails at the highest gas. header is the block the message runs in. When timeout is
// positive the search is cancelled after it and s.timedOut is set.
func (s *gasSearch) estimate(ctx context.Context, cfg *params.ChainConfig, header *types.Header, gasCap uint64, timeout time.Duration) (uint64, []byte, error) {
	// One watcher for all trials: a cancelled EVM stays cancelled, and the caller reports
	// ctx's error or the timeout whatever the search returned.
	stop := context.AfterFunc(ctx, s.evm.Cancel)
	defer stop()
	if timeout > 0 {
		// The timer stops a running trial; try checks the deadline before each one as well,
		// so a search never starts a trial after its time is up.
		s.deadline = time.Now().Add(timeout)
		timer := time.AfterFunc(timeout, s.timeout)
		defer timer.Stop()
	}

	call := s.msg
	var lo, hi uint64 // highest gas known to fail, lowest known to succeed
	hi = header.GasLimit
	if call.GasLimit >= params.TxGas {
		hi = call.GasLimit
	}
	capped := false // hi is the EIP-7825 cap: a failure at hi means the call needs more than any transaction may have
	if hi > params.MaxTxGas && cfg.IsOsaka(header.Number, header.Time) {
		hi, capped = params.MaxTxGas, true
	}
	var feeCap *big.Int
	switch {
	case call.GasFeeCap != nil:
		feeCap = call.GasFeeCap
	case call.GasPrice != nil:
		feeCap = call.GasPrice
	default:
		feeCap = new(big.Int)
	}
	if feeCap.BitLen() != 0 {
		available := s.state.GetBalance(call.From).ToBig()
		if call.Value != nil {
			if call.Value.Cmp(available) >= 0 {
				return 0, nil, core.ErrInsufficientFundsForTransfer
			}
			available.Sub(available, call.Value)
		}
		if cfg.IsCancun(header.Number, header.Time) && len(call.BlobHashes) > 0 {
			usage := big.NewInt(int64(len(call.BlobHashes)))
			usage.Mul(usage, big.NewInt(params.BlobTxBlobGasPerBlob))
			usage.Mul(usage, call.BlobGasFeeCap)
			if usage.Cmp(available) >= 0 {
				return 0, nil, core.ErrInsufficientFunds
			}
			available.Sub(available, usage)
		}
		allowance := new(big.Int).Div(available, feeCap)
		if allowance.IsUint64() && hi > allowance.Uint64() {
			hi = allowance.Uint64()
		}
	}
	if gasCap != 0 && hi > gasCap {
		hi = gasCap
	}
	// A plain transfer to an account without code costs exactly 21000.
	if len(call.Data) == 0 && call.To != nil && s.state.GetCodeSize(*call.To) == 0 {
		failed, result, err := s.try(params.TxGas)
		if !failed && err == nil {
			return result.UsedGas, nil, nil
		}
	}
	failed, result, err := s.try(hi)
	if err != nil {
		return 0, nil, err
	}
	if failed {
		if result != nil && !errors.Is(result.Err, vm.ErrOutOfGas) {
			return 0, result.Revert(), result.Err
		}
		if capped && hi == params.MaxTxGas && cfg.IsOptimism() {
			// On an OP Stack chain (Azul) say why, as the pool's refusal does; a plain
			// Ethereum chain keeps go-ethereum's text.
			return 0, nil, &AllowanceError{Gas: hi, Capped: true}
		}
		return 0, nil, fmt.Errorf("gas required exceeds allowance (%d)", hi)
	}
	lo = result.UsedGas - 1
	// Most calls need little more than they used, plus the stipend and the 63/64 rule.
	if optimistic := (result.MaxUsedGas + params.CallStipend) * 64 / 63; optimistic < hi {
		failed, _, err = s.try(optimistic)
		if err != nil {
			return 0, nil, err
		}
		if failed {
			lo = optimistic
		} else {
			hi = optimistic
		}
	}
	for lo+1 < hi {
		if float64(hi-lo)/float64(hi) < estimateErrorRatio {
			break
		}
		mid := lo + (hi-lo)/2
		if mid > lo*2 {
			mid = lo * 2 // most calls succeed with little more than they used
		}
		failed, _, err = s.try(mid)
		if err != nil {
			return 0, nil, err
		}
		if failed {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil, nil
}

// try runs the message with gas and rolls the state back. It reports whether the run failed
// (intrinsic gas too low and gas above the block's limit count as failures), the result, and
// errors that end the search.
func (s *gasSearch) try(gas uint64) (bool, *core.ExecutionResult, error) {
	if !s.deadline.IsZero() && !time.Now().Before(s.deadline) {
		s.timeout()
	}
	defer func(saved uint64) { s.msg.GasLimit = saved }(s.msg.GasLimit)
	s.msg.GasLimit = gas

	snapshot := s.state.Snapshot()
	result, err := core.ApplyMessage(s.evm, s.msg, nil)
	s.state.RevertToSnapshot(snapshot)
	if serr := s.state.Error(); serr != nil {
		return true, nil, serr
	}
	if err != nil {
		if errors.Is(err, core.ErrIntrinsicGas) || errors.Is(err, core.ErrGasLimitTooHigh) {
			return true, nil, nil
		}
		return true, nil, fmt.Errorf("failed with %d gas: %w", gas, err)
	}
	return result.Failed(), result, nil
}
