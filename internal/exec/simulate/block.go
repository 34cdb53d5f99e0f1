package simulate

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/exec"
)

// blockRun is the execution state of one simulated block.
type blockRun struct {
	header   *types.Header
	evm      *vm.EVM
	gp       *core.GasPool
	tracer   *logTracer // with traceTransfers; otherwise the logs come from the state
	prepared bool       // the block started on a Base's prepared state
	hooked   vm.StateDB // the state as the EVM sees it (tracer hooks, warm precompiles)
	logCount int        // logs of the block's calls so far, the next log index
	// touchedSystem is set once a call of the block accessed an account of the system calls
	// (base.go): the post-block system calls cannot be skipped then.
	touchedSystem bool
	// passerUntouched: no call of the block accessed the L2-to-L1 message passer and no state
	// override names it, so its storage is the base's (opstack.go).
	passerUntouched bool
	// txs[i] is the i-th call's transaction, nil for an EIP-1559 call, whose transaction
	// is made from txData[i] only when a result carries it (Block.Transactions): everything
	// else is read from the data or the encoding, and types.NewTx deep-copies the data (a
	// fifth of a call's allocations).
	txs         []*types.Transaction
	txData      []types.TxData
	txEncodings encodedTxs    // the transactions' trie encodings
	txArena     byteArena     // where the EIP-1559 ones are written
	txHashes    []common.Hash // their hashes
	senders     []common.Address
	calls       []CallResult
	receipts    []*types.Receipt
	// Where each call's defaults (the values sanitizeCall fills into its missing fields),
	// message and receipt go: a few allocations each per block instead of some eight per
	// call.
	defaults    callValues[callDefaults]
	messages    callValues[core.Message]
	receiptData callValues[types.Receipt]
	allLogs     []*types.Log // logs of successful calls, for deposit requests
	blooms      *bloomMemo   // the request's
	blobGasUsed uint64
}

// processBlock executes one simulated block on sim's state, like geth's processBlock: it
// finishes the header (parent hash, base fee, excess blob gas), applies the state
// overrides, runs the system calls, the calls and the post-block processing, and assembles
// the block. headers are the final headers of the earlier simulated blocks.
func (sim *simulator) processBlock(ctx context.Context, block *BlockCalls, header, parent *types.Header, headers []*types.Header) (Block, *types.Header, error) {
	cfg := sim.env.Config
	sim.finishHeader(header, parent)
	// A fresh precompile set per block with state overrides, which may move or remove
	// precompiles: those changes do not carry over. Without overrides the EVM's standard set
	// serves (copying it was a twentieth of a one-call request).
	var precompiles vm.PrecompiledContracts
	if len(block.StateOverrides) > 0 {
		precompiles = exec.Precompiles(cfg, cfg.Rules(header.Number, header.Difficulty.Sign() == 0, header.Time))
	}
	// On a prepared base the first block's state comes from it, maybe with the system calls
	// already run (base.go).
	prepared := false
	if sim.env.State == nil {
		sim.env.State, prepared = sim.env.Base.firstState(header, block.StateOverrides)
	}
	// The state root of each block hashes the changed accounts' storage one account after
	// another on the calling goroutine instead of one goroutine per account (go-ethereum's
	// hasher may still split a trie of 100 changes or more): concurrent requests already keep the
	// cores busy, and the goroutines cost more than the few slots of a simulated block.
	sim.env.State.MakeSinglethreaded()
	// After the state is known: on an OP Stack chain the context's L1 and operator cost
	// functions read it.
	chain := &simChain{ChainContext: sim.env.Chain, base: sim.env.Header, headers: headers}
	blockCtx := core.NewEVMBlockContext(header, chain, nil, cfg, sim.env.State)
	if block.BlockOverrides.BlobBaseFee != nil {
		blockCtx.BlobBaseFee = block.BlockOverrides.BlobBaseFee.ToInt()
	}
	if err := block.StateOverrides.Apply(sim.env.State, precompiles); err != nil {
		return Block{}, nil, err
	}
	n := len(block.Calls)
	// After Amsterdam the protocol's EIP-7708 logs report transfers.
	traceTransfers := sim.traceTransfers && !cfg.IsAmsterdam(header.Number, header.Time)
	_, passerOverridden := block.StateOverrides[params.OptimismL2ToL1MessagePasser]
	run := &blockRun{
		header:          header,
		gp:              core.NewGasPool(blockCtx.GasLimit),
		prepared:        prepared,
		passerUntouched: !passerOverridden,
		hooked:          sim.env.State,
		txs:             make([]*types.Transaction, n),
		txData:          make([]types.TxData, n),
		txEncodings:     make(encodedTxs, n),
		txHashes:        make([]common.Hash, n),
		senders:         make([]common.Address, n),
		calls:           make([]CallResult, n),
		receipts:        make([]*types.Receipt, n),
		defaults:        newCallValues[callDefaults](n),
		messages:        newCallValues[core.Message](n),
		receiptData:     newCallValues[types.Receipt](n),
		blooms:          &sim.blooms,
	}
	// Only the synthetic transfer logs need a tracer: the state records the calls' logs
	// itself, and any tracer makes go-ethereum interpret with its slower table loop.
	var hooks *tracing.Hooks
	if traceTransfers {
		run.tracer = newLogTracer(blockCtx.BlockNumber.Uint64(), blockCtx.Time)
		hooks = run.tracer.hooks()
		run.hooked = state.NewHookedState(sim.env.State, hooks)
	}
	run.hooked = exec.WithWarmPrecompiles(run.hooked)
	vmConfig := sim.env.vmConfig()
	vmConfig.NoBaseFee, vmConfig.Tracer = !sim.validate, hooks
	run.evm = vm.NewEVM(blockCtx, run.hooked, cfg, vmConfig)
	if sim.env.JumpDests != nil {
		run.evm.SetJumpDestCache(sim.env.JumpDests)
	}
	// The request's end cancels this EVM (Run), where go-ethereum registers a hook per call.
	sim.stop.run(run.evm)
	defer sim.stop.run(nil)
	if precompiles != nil {
		run.evm.SetPrecompiles(precompiles)
	}
	if prepared {
		// What the system calls would have ended with, now that the overrides are in.
		run.hooked.Finalise(true)
	} else {
		exec.PreExecution(cfg, header, parent, run.evm)
	}

	for i := range block.Calls {
		if err := sim.err(ctx); err != nil {
			return Block{}, nil, err
		}
		if err := sim.runCall(run, i, block.Calls[i]); err != nil {
			return Block{}, nil, err
		}
	}
	return sim.assemble(ctx, run, *block.BlockOverrides.Withdrawals)
}

// finishHeader sets the header fields that depend on the parent.
func (sim *simulator) finishHeader(header, parent *types.Header) {
	cfg := sim.env.Config
	if b := sim.env.Base; b != nil && parent == sim.env.Header {
		header.ParentHash = b.hash // known; a header hash is a Keccak-256 of its encoding
	} else {
		header.ParentHash = parent.Hash()
	}
	if cfg.IsLondon(header.Number) && header.BaseFee == nil {
		// Without validation the base fee is 0 unless overridden: gas prices of 0 then work.
		if sim.validate {
			header.BaseFee = eip1559.CalcBaseFee(cfg, parent, header.Time)
		} else {
			header.BaseFee = big.NewInt(0)
		}
	}
	if cfg.IsCancun(header.Number, header.Time) {
		var excess uint64
		if cfg.IsCancun(parent.Number, parent.Time) {
			excess = eip4844.CalcExcessBlobGas(cfg, parent, header.Time)
		}
		header.ExcessBlobGas = &excess
	}
}

// runCall defaults and executes the i-th call of the block. Errors fail the request.
func (sim *simulator) runCall(run *blockRun, i int, call exec.Args) error {
	var (
		cfg     = sim.env.Config
		statedb = sim.env.State
		header  = run.header
	)
	gasCapped, err := sim.sanitizeCall(&call, header, run.gp, run.defaults.next())
	if err != nil {
		return err
	}
	// Without validation the nonce is not checked at all, EIP-2681's cap included: the
	// execution-apis fixture ethSimulate-overflow-nonce expects a result (geth v1.17.5; v1.17.10
	// added an explicit -32603 here). With validation core's pre-check refuses it.
	data := call.TxData(types.DynamicFeeTxType)
	var tx *types.Transaction
	if _, ok := data.(*types.DynamicFeeTx); !ok {
		tx = types.NewTx(data)
	}
	enc, txHash := encodeTx(&run.txArena, tx, data)
	run.txs[i], run.txData[i], run.txEncodings[i], run.txHashes[i], run.senders[i] = tx, data, enc, txHash, call.Sender()
	statedb.SetTxContext(txHash, i)
	// Logs are kept by transaction hash, and two calls may share one (same sender, nonce and
	// fields, without validation): this call's are the ones after those already there.
	earlierLogs := 0
	if run.tracer != nil {
		run.tracer.reset(txHash, uint(i))
	} else {
		earlierLogs = len(statedb.GetLogs(txHash, header.Number.Uint64(), common.Hash{}, header.Time))
	}

	msg := run.messages.next()
	call.FillMessage(msg, header.BaseFee, !sim.validate)
	result, err := exec.RunMessage(run.evm, msg, sim.env.EVMTimeout, run.gp)
	if err != nil {
		return &Error{Kind: txErrorKind(err), Err: err}
	}
	run.touchedSystem = run.touchedSystem || accessedSystemAccount(statedb)
	run.passerUntouched = run.passerUntouched && !statedb.AddressInAccessList(params.OptimismL2ToL1MessagePasser)
	var root []byte
	if cfg.IsByzantium(header.Number) {
		run.hooked.Finalise(true)
	} else {
		root = statedb.IntermediateRoot(cfg.IsEIP158(header.Number)).Bytes()
	}
	run.receipts[i] = run.receiptData.next()
	run.makeReceipt(run.receipts[i], run.evm, result, statedb, tx, data, txHash, run.gp.CumulativeUsed(), root)
	run.blobGasUsed += run.receipts[i].BlobGasUsed
	if err := sim.budget.consume(result.UsedGas); err != nil {
		return err
	}
	run.calls[i] = newSimCallResult(result, run.callLogs(statedb, txHash, earlierLogs), gasCapped)
	if !result.Failed() {
		run.allLogs = append(run.allLogs, run.calls[i].Logs...)
	}
	return nil
}

// callLogs returns the logs of the call just run, with their index in the block. Without a
// tracer they are the state's logs for txHash after the first earlier ones.
func (run *blockRun) callLogs(statedb *state.StateDB, txHash common.Hash, earlier int) []*types.Log {
	if run.tracer != nil {
		return run.tracer.callLogs()
	}
	logs := statedb.GetLogs(txHash, run.header.Number.Uint64(), common.Hash{}, run.header.Time)[earlier:]
	if len(logs) == 0 {
		return nil
	}
	// The state numbers logs across its whole life, which spans the simulated blocks.
	for _, log := range logs {
		log.Index = uint(run.logCount)
		run.logCount++
	}
	return logs
}

// accessedSystemAccount reports whether the transaction just run accessed an account of the
// system calls: its access list holds every account a call frame was from or to, besides the
// sender, recipient and coinbase. Frames that reverted drop out of the list, but they changed
// nothing either.
func accessedSystemAccount(statedb *state.StateDB) bool {
	for _, addr := range systemCallAccounts {
		if statedb.AddressInAccessList(addr) {
			return true
		}
	}
	return false
}

// assemble runs the post-block processing (withdrawals, EIP-7685 requests, consensus
// finalisation), builds the block and writes its hash into the calls' logs. It returns the
// block's result and its final header.
func (sim *simulator) assemble(ctx context.Context, run *blockRun, withdrawals types.Withdrawals) (Block, *types.Header, error) {
	cfg, header := sim.env.Config, run.header
	header.GasUsed = run.gp.Used()
	if cfg.IsCancun(header.Number, header.Time) {
		header.BlobGasUsed = &run.blobGasUsed
	}
	body := &types.Body{Transactions: run.txs}
	// Withdrawals only exist after Shanghai; a non-nil list would add the field before.
	if cfg.IsShanghai(header.Number, header.Time) {
		body.Withdrawals = withdrawals
	}
	var (
		requests [][]byte
		err      error
	)
	if run.prepared && sim.env.Base.skipsPostExecution(header, run.touchedSystem, body.Withdrawals) {
		// The queues' system calls would change nothing and add no requests (base.go);
		// the deposit requests come from the block's logs.
		requests = [][]byte{}
		if err := core.ParseDepositLogs(&requests, run.allLogs, cfg); err != nil {
			return Block{}, nil, fmt.Errorf("failed to parse deposit logs: %w", err)
		}
	} else {
		requests, err = postExecution(cfg, header, run.allLogs, run.evm)
		if err != nil {
			return Block{}, nil, err
		}
	}
	if requests != nil {
		reqHash := types.CalcRequestsHash(requests)
		header.RequestsHash = &reqHash
	}
	// The consensus engine credits the withdrawals.
	sim.env.Chain.Engine().Finalize(sim.env.Chain, header, sim.env.State, body)
	res := Block{Calls: run.calls, Senders: run.senders, TxHashes: run.txHashes}
	// The engine's FinalizeAndAssemble, with the encodings at hand.
	header.Root = sim.env.State.IntermediateRoot(cfg.IsEIP158(header.Number))
	withdrawalsRoot, err := sim.opFinalize(run)
	if err != nil {
		return Block{}, nil, err
	}
	res.Hash, res.Size = newSimBlock(header, body, run.txEncodings, run.receipts, withdrawalsRoot)
	res.Body = types.Body{Withdrawals: body.Withdrawals}
	res.txs, res.txData = run.txs, run.txData

	// Logs were collected before the block hash was known.
	for i := range run.calls {
		for _, log := range run.calls[i].Logs {
			log.BlockHash = res.Hash
		}
	}
	return res, header, nil
}

// newSimCallResult reports one executed call.
func newSimCallResult(result *core.ExecutionResult, logs []*types.Log, gasCapped bool) CallResult {
	res := CallResult{
		ReturnData: result.Return(),
		Logs:       logs,
		GasUsed:    result.UsedGas,
		MaxUsedGas: result.MaxUsedGas,
		Status:     types.ReceiptStatusSuccessful,
	}
	if result.Failed() {
		res.Status = types.ReceiptStatusFailed
		if errors.Is(result.Err, vm.ErrExecutionReverted) {
			res.Err = exec.NewRevertError(result.Revert())
		} else {
			res.Err = &exec.VMError{Err: result.Err, GasCapped: gasCapped}
		}
	}
	return res
}

// callDefaults are the values sanitizeCall sets a call's missing fields to.
type callDefaults struct {
	nonce, gas                 hexutil.Uint64
	value, feeCap, priorityFee hexutil.Big
}

// sanitizeCall fills in the nonce (the sender's) and gas (what is left in the block),
// rejects gas above the block's remaining gas, clamps gas to the request's budget and
// applies the call defaults. It reports whether the budget clamped the gas. The values it
// fills in are kept in d.
func (sim *simulator) sanitizeCall(call *exec.Args, header *types.Header, gp *core.GasPool, d *callDefaults) (bool, error) {
	if call.Nonce == nil {
		d.nonce = hexutil.Uint64(sim.env.State.GetNonce(call.Sender()))
		call.Nonce = &d.nonce
	}
	remaining := gp.Gas()
	requested := remaining
	if call.Gas != nil {
		requested = uint64(*call.Gas)
	}
	if remaining < requested {
		return false, simErrorf(BlockGasLimitReached, "block gas limit reached: remaining: %d, required: %d", remaining, requested)
	}
	d.gas = hexutil.Uint64(sim.budget.cap(requested))
	call.Gas = &d.gas
	// The zeros CallDefaults would allocate, where it would set them: never beside a gas
	// price or before London, where it refuses or leaves the fee fields.
	if call.Value == nil {
		call.Value = &d.value
	}
	if header.BaseFee != nil && call.GasPrice == nil {
		if call.MaxFeePerGas == nil {
			call.MaxFeePerGas = &d.feeCap
		}
		if call.MaxPriorityFeePerGas == nil {
			call.MaxPriorityFeePerGas = &d.priorityFee
		}
	}
	return uint64(d.gas) < requested, call.CallDefaults(0, header.BaseFee, sim.env.Config.ChainID)
}

// simChain serves headers to the EVM (BLOCKHASH) during a simulation: the base block and
// older ones from the chain, later ones from the blocks simulated so far.
type simChain struct {
	core.ChainContext
	base    *types.Header
	headers []*types.Header // final headers of the earlier simulated blocks
}

// GetHeader returns the header with the given hash and number, as the canonical chain of
// the simulation has it.
func (c *simChain) GetHeader(hash common.Hash, number uint64) *types.Header {
	h := c.GetHeaderByNumber(number)
	if h == nil || h.Hash() != hash {
		return nil
	}
	return h
}

// GetHeaderByNumber returns the header at number in the simulation's chain.
func (c *simChain) GetHeaderByNumber(number uint64) *types.Header {
	base := c.base.Number.Uint64()
	switch {
	case number == base:
		return c.base
	case number < base:
		return c.ChainContext.GetHeaderByNumber(number)
	}
	for _, h := range c.headers {
		if h.Number.Uint64() == number {
			return h
		}
	}
	return nil
}

// GetHeaderByHash returns the header with the given hash in the chain or the simulation.
func (c *simChain) GetHeaderByHash(hash common.Hash) *types.Header {
	if c.base.Hash() == hash {
		return c.base
	}
	if h := c.ChainContext.GetHeaderByHash(hash); h != nil {
		return h
	}
	for _, h := range c.headers {
		if h.Hash() == hash {
			return h
		}
	}
	return nil
}

// Engine returns the chain's consensus engine.
func (c *simChain) Engine() consensus.Engine { return c.ChainContext.Engine() }

// Config returns the chain configuration.
func (c *simChain) Config() *params.ChainConfig { return c.ChainContext.Config() }
