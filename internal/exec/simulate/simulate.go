package simulate

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"

	"github.com/flashrpc/flashrpc/internal/exec"
)

// Defaults of the eth_simulateV1 limits, as in go-ethereum.
const (
	DefaultMaxBlocks        = 256   // blocks per request, also the number span from the base block
	DefaultMaxCallsPerBlock = 5000  // calls in one simulated block
	DefaultMaxCalls         = 10000 // calls in one request
)

// simTimestampIncrement is the default time between simulated blocks, in seconds.
const simTimestampIncrement = 12

// Opts is the first parameter of eth_simulateV1. Keys decode case-insensitively; a
// wrongly typed value, or an unknown or duplicate override key, is a *exec.DecodeError.
type Opts struct {
	BlockStateCalls        []BlockCalls `json:"blockStateCalls"`
	TraceTransfers         bool         `json:"traceTransfers"`
	Validation             bool         `json:"validation"`
	ReturnFullTransactions bool         `json:"returnFullTransactions"`
}

// UnmarshalJSON decodes the options, naming a wrongly typed field.
func (o *Opts) UnmarshalJSON(input []byte) error {
	if opts, ok := decodeSimOptsFast(input); ok {
		*o = opts
		return nil
	}
	opts, err := decodeSimOptsJSON(input)
	if err != nil {
		return err
	}
	*o = opts
	return nil
}

// decodeSimOptsJSON decodes the options with encoding/json.
func decodeSimOptsJSON(input []byte) (Opts, error) {
	var wire simOptsWire
	if json.Unmarshal(input, &wire) == nil {
		return wire.opts(), nil
	}
	// Decode again level by level, for the error that names the field.
	type plain Opts
	dec, err := exec.DecodeObject[plain](input, "simulation options")
	return Opts(dec), err
}

// BlockCalls is one entry of blockStateCalls: the overrides of a simulated block and its
// calls.
type BlockCalls struct {
	BlockOverrides *exec.BlockOverrides `json:"blockOverrides"`
	StateOverrides exec.StateOverride   `json:"stateOverrides"`
	Calls          []exec.Args          `json:"calls"`
}

// UnmarshalJSON decodes the entry, naming a wrongly typed field.
func (b *BlockCalls) UnmarshalJSON(input []byte) error {
	type plain BlockCalls
	dec, err := exec.DecodeObject[plain](input, "block state call")
	if err != nil {
		return err
	}
	*b = BlockCalls(dec)
	return nil
}

// simOptsWire is Opts without the UnmarshalJSON methods of its levels. Each of those
// validates its input again before decoding it, so decoding a request through them scans it
// once per level: a sixth of a 100-call eth_simulateV1. A request that decodes through
// simOptsWire decodes to the same value the slow way (each level's method is a plain decode
// plus error naming), so the slow way is only taken for requests that fail.
type simOptsWire struct {
	BlockStateCalls []struct {
		BlockOverrides *exec.BlockOverrides `json:"blockOverrides"`
		StateOverrides exec.StateOverride   `json:"stateOverrides"`
		Calls          []plainArgs          `json:"calls"`
	} `json:"blockStateCalls"`
	TraceTransfers         bool `json:"traceTransfers"`
	Validation             bool `json:"validation"`
	ReturnFullTransactions bool `json:"returnFullTransactions"`
}

// plainArgs is exec.Args without its UnmarshalJSON.
type plainArgs exec.Args

func (w *simOptsWire) opts() Opts {
	o := Opts{TraceTransfers: w.TraceTransfers, Validation: w.Validation, ReturnFullTransactions: w.ReturnFullTransactions}
	if w.BlockStateCalls != nil {
		o.BlockStateCalls = make([]BlockCalls, len(w.BlockStateCalls))
	}
	for i, b := range w.BlockStateCalls {
		o.BlockStateCalls[i] = BlockCalls{BlockOverrides: b.BlockOverrides, StateOverrides: b.StateOverrides}
		if b.Calls != nil {
			o.BlockStateCalls[i].Calls = make([]exec.Args, len(b.Calls))
		}
		for j := range b.Calls {
			o.BlockStateCalls[i].Calls[j] = exec.Args(b.Calls[j])
		}
	}
	return o
}

// Limits bounds one simulation. Zero fields take the Default values.
type Limits struct {
	MaxBlocks        int // blocks per request and number span from the base block (DefaultMaxBlocks)
	MaxCallsPerBlock int // calls per block (DefaultMaxCallsPerBlock)
	MaxCalls         int // calls per request (DefaultMaxCalls)
}

func (l Limits) withDefaults() Limits {
	if l.MaxBlocks <= 0 {
		l.MaxBlocks = DefaultMaxBlocks
	}
	if l.MaxCallsPerBlock <= 0 {
		l.MaxCallsPerBlock = DefaultMaxCallsPerBlock
	}
	if l.MaxCalls <= 0 {
		l.MaxCalls = DefaultMaxCalls
	}
	return l
}

// Env is what a simulation runs against. Env.Header is the base block: the parent of the
// first simulated block. Env.State is the state the first block starts from; it is owned by
// the simulation and mutated. Env.GasCap is one gas budget shared by all calls of the
// request and Env.EVMTimeout limits the whole request.
//
// For `pending` on the pre-confirmed endpoint, Header is the sealed head, State is the
// pre-confirmed state (sealed head + pre-confirmed transactions) and Pending is the partial
// header of the block in progress: the first simulated block then defaults to Pending's
// number and timestamp and inherits Pending's fee recipient and gas limit; its parent is
// still Header. Later blocks follow the usual defaults (number + 1, time + 12 s).
type Env struct {
	exec.Env
	// Pending is the partial header of the block in progress, or nil when the base is a
	// sealed block and the first simulated block is Header+1 at Header's time + 12 s.
	Pending *types.Header
	// Limits bound the request; zero fields take the defaults.
	Limits Limits
	// Base, when set, is the prepared base the environment came from (Base.Env); State is
	// then nil and taken from Base.
	Base *Base
	// L1Info is, on an OP Stack chain, the L1-attributes deposit of the base block (of the
	// block in progress in pending mode): from Jovian on, a simulated block's DA footprint
	// (its blobGasUsed) is computed with it, as op-geth's simulator prepends it to the block
	// for FinalizeAndAssemble. Without it the footprint is 0, where op-geth fails.
	L1Info *types.Transaction
	// JumpDests, when set, keeps the JUMPDEST analyses of the code the simulations run
	// across blocks and requests; nil: each simulated block analyses its code again.
	JumpDests *JumpDests
}

// CheckOpts rejects requests over the limits: no blocks (InvalidParams "empty
// input"), too many blocks, calls per block or calls (ClientLimitExceeded). geth checks
// these before it resolves the base block, so the API should call CheckOpts before
// looking the block up; Run calls it again.
func CheckOpts(opts *Opts, limits Limits) error {
	limits = limits.withDefaults()
	if len(opts.BlockStateCalls) == 0 {
		return simErrorf(InvalidParams, "empty input")
	}
	if len(opts.BlockStateCalls) > limits.MaxBlocks {
		return simErrorf(ClientLimitExceeded, "too many blocks")
	}
	total := 0
	for _, block := range opts.BlockStateCalls {
		if len(block.Calls) > limits.MaxCallsPerBlock {
			return simErrorf(ClientLimitExceeded, "too many calls in block: %d > %d", len(block.Calls), limits.MaxCallsPerBlock)
		}
		total += len(block.Calls)
		if total > limits.MaxCalls {
			return simErrorf(ClientLimitExceeded, "too many calls: %d > %d", total, limits.MaxCalls)
		}
	}
	return nil
}

// Run runs eth_simulateV1: a chain of simulated blocks on top of env, each with its
// overrides and calls, like geth's simulator. It returns one Block per simulated block,
// including the empty blocks that fill gaps in the requested numbers. The result belongs to
// the caller, which encodes it as geth's eth_simulateV1 result (internal/api/execute's
// simulate_json.go).
//
// A failing call does not fail the request: its CallResult has status 0 and an error.
// Request-level failures are *Error (with a Kind for each -380xx code), *exec.OverrideError,
// *exec.ArgsError, or ctx's error.
func Run(ctx context.Context, env Env, opts Opts) ([]Block, error) {
	if err := CheckOpts(&opts, env.Limits); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The running call is stopped at the EVM timeout or ctx's deadline, whichever comes
	// first, by one timer (a derived context cost a tenth of a one-call request's
	// allocations); a cancelled ctx ends the request before its next call. Only without an
	// EVM timeout, when a call could otherwise run for ever, does ctx get a hook to stop it.
	stop := &simStop{}
	timeout := env.EVMTimeout
	if deadline, ok := ctx.Deadline(); ok && (timeout <= 0 || time.Until(deadline) < timeout) {
		timeout = max(time.Until(deadline), 1)
	}
	if timeout > 0 {
		timer := time.AfterFunc(timeout, stop.timeout)
		defer timer.Stop()
	}
	if env.EVMTimeout <= 0 {
		defer context.AfterFunc(ctx, stop.stop)()
	}

	sim := &simulator{
		stop:           stop,
		env:            env,
		limits:         env.Limits.withDefaults(),
		budget:         newGasBudget(env.GasCap),
		traceTransfers: opts.TraceTransfers,
		validate:       opts.Validation,
	}
	if env.Base != nil {
		sim.blooms.shared = &env.Base.blooms
	}
	blocks, err := sim.sanitizeChain(opts.BlockStateCalls)
	if err != nil {
		return nil, err
	}
	headers, err := sim.makeHeaders(blocks)
	if err != nil {
		return nil, err
	}
	results := make([]Block, len(blocks))
	parent := env.Header
	for i := range blocks {
		res, header, err := sim.processBlock(ctx, &blocks[i], headers[i], parent, headers[:i])
		// A state read that failed (a fork's upstream) left zeros behind: no result of the
		// block can be trusted.
		if st := sim.env.State; st != nil && st.Error() != nil {
			return nil, fmt.Errorf("read state: %w", st.Error())
		}
		if err != nil {
			return nil, err
		}
		if res.FullTx = opts.ReturnFullTransactions; res.FullTx {
			res.Body.Transactions = res.Transactions()
		}
		res.Header = header
		results[i] = res
		headers[i] = header
		parent = header
	}
	return results, nil
}

// simulator runs one simulation. It is not safe for concurrent use.
type simulator struct {
	stop           *simStop
	env            Env
	limits         Limits
	budget         *gasBudget
	traceTransfers bool
	validate       bool
	// blooms remembers the bloom bits of the addresses and topics logged in the request:
	// its blocks log the same contracts' events to and from the same accounts. On a Base
	// it looks up those the request has not seen in the Base's.
	blooms bloomMemo
}

// err reports why the simulation must stop: ctx's error, or context.DeadlineExceeded once
// the EVM time ran out.
func (sim *simulator) err(ctx context.Context) error {
	if sim.stop.timedOut.Load() {
		return context.DeadlineExceeded
	}
	return ctx.Err()
}

// simStop cancels the EVM running a simulation's block when the request ends.
type simStop struct {
	mu       sync.Mutex
	evm      *vm.EVM // the running block's
	stopped  bool
	timedOut atomic.Bool
}

// run makes evm the one to cancel (nil: none), cancelled at once if the request has ended.
func (s *simStop) run(evm *vm.EVM) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.evm = evm
	if s.stopped && evm != nil {
		evm.Cancel()
	}
}

func (s *simStop) timeout() {
	s.timedOut.Store(true)
	s.stop()
}

func (s *simStop) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = true
	if s.evm != nil {
		s.evm.Cancel()
	}
}

// gasBudget is the gas left for the remaining calls of a request (the RPC gas cap).
type gasBudget struct {
	remaining uint64
}

func newGasBudget(limit uint64) *gasBudget {
	if limit == 0 {
		limit = ^uint64(0)
	}
	return &gasBudget{remaining: limit}
}

// cap returns gas clamped to the remaining budget.
func (b *gasBudget) cap(gas uint64) uint64 {
	return min(gas, b.remaining)
}

// consume deducts amount from the budget.
func (b *gasBudget) consume(amount uint64) error {
	if amount > b.remaining {
		return fmt.Errorf("RPC gas cap exhausted: need %d, remaining %d", amount, b.remaining)
	}
	b.remaining -= amount
	return nil
}

// sanitizeChain fills in block numbers and timestamps, checks that both increase, and fills
// gaps in the numbers with empty blocks, like geth's sanitizeChain. It returns new block
// entries; the caller's overrides are not modified.
func (sim *simulator) sanitizeChain(blocks []BlockCalls) ([]BlockCalls, error) {
	var (
		res        = make([]BlockCalls, 0, len(blocks))
		base       = sim.env.Header
		prevNumber = base.Number
		prevTime   = base.Time
		maxBlocks  = big.NewInt(int64(sim.limits.MaxBlocks))
	)
	for _, block := range blocks {
		bo := new(exec.BlockOverrides)
		if block.BlockOverrides != nil {
			*bo = *block.BlockOverrides
		}
		block.BlockOverrides = bo
		if bo.Number == nil {
			bo.Number = (*hexutil.Big)(new(big.Int).Add(prevNumber, common.Big1))
		}
		if bo.Withdrawals == nil {
			bo.Withdrawals = &types.Withdrawals{}
		}
		number := bo.Number.ToInt()
		diff := new(big.Int).Sub(number, prevNumber)
		if diff.Sign() <= 0 {
			return nil, simErrorf(BlockNumberInvalid, "block numbers must be in order: %d <= %d", number.Uint64(), prevNumber)
		}
		if total := new(big.Int).Sub(number, base.Number); total.Cmp(maxBlocks) > 0 {
			return nil, simErrorf(ClientLimitExceeded, "too many blocks")
		}
		// Fill the gap with empty blocks.
		for i := uint64(1); i < diff.Uint64(); i++ {
			n := new(big.Int).Add(prevNumber, new(big.Int).SetUint64(i))
			t := sim.defaultTime(n, prevTime)
			res = append(res, BlockCalls{BlockOverrides: &exec.BlockOverrides{
				Number:      (*hexutil.Big)(n),
				Time:        (*hexutil.Uint64)(&t),
				Withdrawals: &types.Withdrawals{},
			}})
			prevTime = t
		}
		prevNumber = number
		var t uint64
		if bo.Time == nil {
			t = sim.defaultTime(number, prevTime)
			bo.Time = (*hexutil.Uint64)(&t)
		} else {
			t = uint64(*bo.Time)
			if t <= prevTime {
				return nil, simErrorf(BlockTimestampInvalid, "block timestamps must be in order: %d <= %d", t, prevTime)
			}
		}
		prevTime = t
		res = append(res, block)
	}
	return res, nil
}

// defaultTime is the timestamp of a simulated block without a time override: that of the
// block in progress for its number, otherwise 12 s after the previous block.
func (sim *simulator) defaultTime(number *big.Int, prevTime uint64) uint64 {
	if p := sim.env.Pending; p != nil && p.Number.Cmp(number) == 0 {
		return p.Time
	}
	return prevTime + simTimestampIncrement
}

// makeHeaders builds the preliminary headers of the sanitized blocks, like geth's
// makeHeaders: fee recipient and gas limit carry forward from the previous header (the block
// in progress for the first block in pending mode), overrides apply on top.
func (sim *simulator) makeHeaders(blocks []BlockCalls) ([]*types.Header, error) {
	var (
		cfg      = sim.env.Config
		res      = make([]*types.Header, len(blocks))
		prev     = sim.env.Header
		coinbase = prev.Coinbase
		gasLimit = prev.GasLimit
	)
	if p := sim.env.Pending; p != nil {
		coinbase, gasLimit = p.Coinbase, p.GasLimit
	}
	for i, block := range blocks {
		bo := block.BlockOverrides
		number := bo.Number.ToInt()
		timestamp := uint64(*bo.Time)

		var withdrawalsHash *common.Hash
		if cfg.IsShanghai(number, timestamp) {
			withdrawalsHash = &types.EmptyWithdrawalsHash
		}
		var parentBeaconRoot *common.Hash
		if cfg.IsCancun(number, timestamp) {
			parentBeaconRoot = &common.Hash{}
			if bo.BeaconRoot != nil {
				parentBeaconRoot = bo.BeaconRoot
			}
		}
		// Post-merge blocks have difficulty 0; without that the later forks stay inactive.
		difficulty := prev.Difficulty
		if cfg.IsPostMerge(number.Uint64(), timestamp) {
			difficulty = big.NewInt(0)
		}
		if bo.Difficulty != nil && difficulty.Sign() == 0 {
			return nil, simErrorf(InvalidParams, "block %d: difficulty override is not allowed after the merge", number)
		}
		var slotNumber *uint64
		if prev.SlotNumber != nil {
			slot := *prev.SlotNumber + 1
			slotNumber = &slot
		}
		header := &types.Header{
			// An OP Stack chain's base fee comes from the parent's extraData since Holocene:
			// simulated blocks carry on with their base block's (op-geth leaves it empty, and
			// its validation mode cannot compute a second block's base fee).
			Extra:            opExtra(cfg, prev),
			UncleHash:        types.EmptyUncleHash,
			ReceiptHash:      types.EmptyReceiptsHash,
			TxHash:           types.EmptyTxsHash,
			Coinbase:         coinbase,
			Difficulty:       difficulty,
			GasLimit:         gasLimit,
			WithdrawalsHash:  withdrawalsHash,
			ParentBeaconRoot: parentBeaconRoot,
			SlotNumber:       slotNumber,
		}
		if bo != nil {
			bo.ApplyHeader(header)
		}
		res[i] = header
		prev, coinbase, gasLimit = header, header.Coinbase, header.GasLimit
	}
	return res, nil
}
