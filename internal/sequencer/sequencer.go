package sequencer

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// Config sets the sequencer's timing and block attributes.
type Config struct {
	// BlockTime is how often a block is sealed; zero seals only on request (Seal).
	BlockTime time.Duration
	// PreconfInterval is how often a pre-confirmation is built; zero builds only on request.
	// Ignored when NoPreconfirmations is set.
	PreconfInterval time.Duration
	// NoPreconfirmations makes a chain without pre-confirmations, as Base runs since Denim
	// (nopreconf.go): blocks are sealed every BlockTime or on request (Seal, Mine, automine),
	// each taking the pool's executable transactions at its seal, and the block in progress
	// is never published (preconf.PublishOptions.Hidden): no flashblock on the feed, nothing
	// for the pre-confirmation subscriptions, `pending` the next block as forecast on both
	// endpoints. Preconfirm and SealSelected are refused (ErrNoPreconfirmations). False
	// pre-confirms every PreconfInterval.
	NoPreconfirmations bool
	// FeeRecipient receives the priority fees (the blocks' miner field).
	FeeRecipient common.Address
	// ExtraData is written into every block header.
	ExtraData []byte
	// Flashblocks is N of the per-flashblock gas budget (budget.go): pre-confirmation i
	// (1..N) of a block may bring it to i/N of its gas limit. Zero means BlockTime /
	// PreconfInterval on an OP Stack chain (L1 set) and no budget on a plain Ethereum one.
	Flashblocks int
	// L1, when set, makes every block an OP Stack block built on this dev L1 (opstack.go):
	// it opens with the L1-attributes deposit and the queued deposits, and FeeRecipient and
	// ExtraData give way to the SequencerFeeVault and the EIP-1559 parameters. The chain must
	// be an OP Stack chain.
	L1 *oprollup.DevL1
	// Now returns the wall clock; nil means time.Now. Block timestamps are its whole seconds,
	// raised to parent+1 when blocks come faster than one per second.
	Now func() time.Time
	// Logger receives one line per sealed block; nil discards.
	Logger *slog.Logger
	// Automine starts the sequencer with automine on (SetAutomine; mining.go).
	Automine bool
	// Denim, when set on an OP Stack chain (L1 set), is when the chain runs Denim, Base's
	// 200 ms blocks (denim.go): from then on blocks carry the BaseTime deposit and follow
	// the millisecond schedule. The chain must be opened with the same time
	// (chain.Config.Denim) and, for blocks every 200 ms, BlockTime 200 ms.
	Denim *uint64
	// ObserveBuild, when set, is called after each pre-confirmation built (on request or by
	// the timer) with the time it took, from taking the block in progress to publishing it,
	// without the wait for its deadline (schedule.go): for the timer's, the last stretch after
	// its staging rounds (stage.go), which are not observed, and for the last flashblock of
	// a block of several the commit of the block's state that seals it
	// (preconf.PublishOptions.Seal).
	ObserveBuild func(took time.Duration)
}

// Sequencer builds the dev chain. It is safe for concurrent use.
type Sequencer struct {
	cfg     Config
	chain   *chain.Chain
	preconf *preconf.Preconf
	dev     *preconf.Dev // the dev chain's controls of the block in progress (devcontrol.go)
	pool    *txpool.Pool
	log     *slog.Logger

	mu       sync.Mutex   // serialises building: opening, pre-confirming and sealing
	deposits depositQueue // guarded by mu (opstack.go)
	sealed   *types.Block // the block the last seal wrote, guarded by mu: the next block's parent
	clock    devClock     // guarded by mu (devcontrol.go)
	staged   *build       // the timer's next pre-confirmation, staged before its build (stage.go); guarded by mu

	ticks     loopClock     // the timer loop's time source (schedule.go)
	stageStep time.Duration // how often the timer stages the pool's transactions (stage.go); 0 never

	// Mining controls (mining.go). loopMu guards the timer loop's lifecycle: halt, halted,
	// closed and the writes of blockTime and automine. It is never taken while mu is held
	// (the loop takes mu and is waited for under loopMu).
	loopMu     sync.Mutex
	blockTime  atomic.Int64  // the timer's block time in nanoseconds (interval mining); 0 = off
	automine   atomic.Bool   // every transaction the pool takes is sealed at once; no timer seals
	halt       chan struct{} // closed to stop the running loop; nil when none runs
	halted     chan struct{} // closed by the running loop when it has stopped
	closed     bool
	timerSince time.Time // when the running loop started
}

// New returns a sequencer over c, building into p with transactions from pool. Start runs it.
func New(cfg Config, c *chain.Chain, p *preconf.Preconf, pool *txpool.Pool) *Sequencer {
	return newWithClock(cfg, c, p, pool, wallClock{}, defaultStageStep)
}

// newWithClock is New with the timer loop's time source and staging step (stage.go; 0: the
// timer does not stage).
func newWithClock(cfg Config, c *chain.Chain, p *preconf.Preconf, pool *txpool.Pool, ticks loopClock, stageStep time.Duration) *Sequencer {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Sequencer{cfg: cfg, chain: c, preconf: p, dev: p.Dev(), pool: pool, log: logger, ticks: ticks, stageStep: stageStep}
	s.automine.Store(cfg.Automine)
	s.blockTime.Store(int64(cfg.BlockTime))
	return s
}

// Start opens the first block and, when timing is configured, starts the timer loop.
func (s *Sequencer) Start(ctx context.Context) error {
	s.mu.Lock()
	err := s.openLocked(ctx)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	s.pool.SetOnAdd(s.automineTx) // mining.go
	s.loopMu.Lock()
	defer s.loopMu.Unlock()
	s.restartLoopLocked()
	return nil
}

// Close stops the timer loop and waits for it, and for the chain write of the block it sealed
// last (the chain may be closed next). What the timer staged is published (stage.go). The
// block in progress is not sealed: its transactions stay pre-confirmed only, as after a crash.
func (s *Sequencer) Close() {
	s.pool.SetOnAdd(nil)
	s.loopMu.Lock()
	s.closed = true
	s.stopLoopLocked() // and the last chain write
	s.loopMu.Unlock()
}

// Preconfirm builds the next pre-confirmation now from the pool's executable transactions. A
// chain without pre-confirmations refuses it (ErrNoPreconfirmations).
func (s *Sequencer) Preconfirm(ctx context.Context) (*preconf.Snapshot, error) {
	if s.cfg.NoPreconfirmations {
		return nil, ErrNoPreconfirmations
	}
	s.mu.Lock() // what the timer staged goes into this pre-confirmation
	defer s.mu.Unlock()
	return s.preconfirmLocked(ctx, time.Time{}, nil, false)
}

// Seal seals the block in progress now, with what it has pre-confirmed, and opens the next one.
// On a chain without pre-confirmations the block first takes the pool's executable
// transactions, as every seal there does.
func (s *Sequencer) Seal(ctx context.Context) (*types.Block, error) {
	if s.cfg.NoPreconfirmations {
		s.mu.Lock() // what the timer staged goes into the pre-confirmation below
	} else {
		s.lock() // stage.go
	}
	defer s.mu.Unlock()
	if s.cfg.NoPreconfirmations {
		if _, err := s.preconfirmLocked(ctx, time.Time{}, nil, false); err != nil {
			return nil, err
		}
	}
	return s.sealLocked(ctx, false)
}

// loop drives the timers until stop is closed, then closes done. A block lasts blockTime
// (Config.BlockTime, or what interval mining set: mining.go); pre-confirmations come every
// PreconfInterval inside it (on a chain without pre-confirmations one build a block, hidden:
// nopreconf.go), and the last one before sealing coincides with the seal. When the
// block time is a whole number of intervals (or zero), one schedule drives both (cadenceLoop):
// pre-confirmations are published on fixed deadlines, and the first pre-confirmation of the
// next block comes one interval after the seal, not at the same instant, waiting for it.
// Otherwise two tickers do, and each pre-confirmation is published when built.
func (s *Sequencer) loop(blockTime time.Duration, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	interval := s.preconfInterval(blockTime)
	if i, b := interval, blockTime; i > 0 && b%i == 0 {
		s.cadenceLoop(interval, int(b/i), stop)
		return
	}
	var preconfTick, sealTick <-chan time.Time
	if interval > 0 {
		t := time.NewTicker(interval)
		defer t.Stop()
		preconfTick = t.C
	}
	if blockTime > 0 {
		t := time.NewTicker(blockTime)
		defer t.Stop()
		sealTick = t.C
	}
	for {
		select {
		case <-stop:
			return
		case <-preconfTick:
			s.tick(false, false, time.Time{}, nil)
		case <-sealTick:
			s.tick(true, false, time.Time{}, nil)
		}
	}
}

// cadenceLoop publishes flashblock k at its deadline, start + k × interval, building it ahead
// by the schedule's lead (schedule.go), and seals on every perBlock-th flashblock built (never
// when perBlock is 0): with it when a block has several (its state committed before the
// deadline), right after publishing it otherwise. A build done early waits for the
// deadline; a late one is published at once; deadlines passed by more than an interval are
// skipped, and the block then lasts longer, as with a ticker. On a Denim chain, whose time
// grows by 200 ms a block, they are not: the blocks are sealed back to back until the chain
// is on time again (schedule.catchUp).
func (s *Sequencer) cadenceLoop(interval time.Duration, perBlock int, stop <-chan struct{}) {
	sched := newSchedule(interval, s.ticks.Now())
	if s.cfg.Denim != nil && s.cfg.L1 != nil {
		sched.catchUp()
	}
	var late, skipped int // in the current block, for the debug log
	for n := 1; ; n++ {
		free := s.ticks.Now()
		deadline, begin, skip := sched.plan(free)
		kind := buildKind(n, perBlock) // profile.go
		seal := kind == kindLast || kind == kindBlock
		// The last flashblock of a block of several commits the block's state before its
		// deadline, so that the next block's first flashblock has a whole interval
		// (preconf.PublishOptions.Seal). A chain whose every build seals (Denim's 200 ms
		// blocks) has no such first flashblock: its blocks seal after their publication, and
		// their builds keep half a lead to add transactions.
		early := kind == kindLast
		if early {
			begin = deadline.Add(-sched.sealLead())
		}
		// CPU profiles tell the builds apart by kind, and staging from building.
		labelBuild(kind, "staging")
		if !s.stageUntil(begin, stop) { // stage.go
			return
		}
		labelBuild(kind, "build")
		// The build is measured from its planned start (the timer waking late counts), or from
		// when the loop got to it when that was later.
		from := begin
		if free.After(begin) {
			from = free
		}
		until := addUntil(deadline, begin, s.ticks.Now())
		if early {
			until = sealAddUntil(deadline, begin, s.ticks.Now())
		}
		ready, built := s.tick(seal, early, until, func() (ready time.Time) {
			if ready = s.ticks.Now(); ready.Before(deadline) {
				s.ticks.SleepUntil(deadline, stop) // stopping publishes at once
			}
			return ready
		})
		if ready.IsZero() { // the pre-confirmation failed before it was ready
			ready = s.ticks.Now()
		}
		if early {
			sched.observeSeal(ready.Sub(from))
		} else {
			sched.observe(ready.Sub(from))
		}
		if built.snap != nil {
			snap := built.snap
			s.log.Debug("built flashblock", "number", snap.Number(), "index", snap.Index, "kind", kind,
				"txs", len(snap.Block.Transactions())-snap.FirstNew, "staged", built.staged,
				"took", ready.Sub(from), "ahead", deadline.Sub(ready), "lead", deadline.Sub(begin),
				"roots", snap.Roots, "assembly", snap.Assembly, "commit", snap.Commit)
		}
		skipped += int(skip)
		if ready.After(deadline) {
			late++
		}
		if seal {
			s.log.Debug("flashblock schedule", "lead", sched.lead(), "sealLead", sched.sealLead(), "late", late, "skipped", skipped)
			late, skipped = 0, 0
		}
	}
}

// tick builds the next pre-confirmation, adding transactions until until (none: all the pool
// has), and, when seal is set, seals the block with it: with early, before its publication
// (preconf.PublishOptions.Seal), otherwise after it. When wait is set, the pre-confirmation
// calls it once assembled and is published when it returns; tick returns what wait returned
// (the moment the pre-confirmation was ready), the zero time when wait was not called, and
// what it built, for the timer loop's debug log.
func (s *Sequencer) tick(seal, early bool, until time.Time, wait func() time.Time) (ready time.Time, built builtPreconf) {
	ctx := context.Background()
	s.mu.Lock()
	defer s.mu.Unlock()
	var publishWait func()
	if wait != nil {
		publishWait = func() { ready = wait() }
	}
	if s.staged != nil {
		built.staged = len(s.staged.spent)
	}
	// Transactions that arrived since the last tick still make this block.
	snap, err := s.preconfirmLocked(ctx, until, publishWait, early)
	built.snap = snap
	if !seal {
		if err != nil {
			s.log.Error("pre-confirmation failed", "err", err)
		}
		return ready, built
	}
	switch {
	case err == nil && early:
		err = s.sealedLocked(ctx, snap.Block, time.Now()) // nothing of the seal is left to do here
	case errors.Is(err, preconf.ErrSealFailed):
		// Published, not sealed: the next seal tick tries again.
	default:
		if err != nil {
			s.log.Error("pre-confirmation failed", "err", err)
		}
		_, err = s.sealLocked(ctx, true) // after the publication, or what it could not seal
		if early && errors.Is(err, preconf.ErrNoBlock) {
			// The early commit failed, or the parent's write, and the block went with it: the
			// next block opens now, as its first flashblock's build would otherwise do.
			err = s.openLocked(ctx)
		}
	}
	if err != nil {
		s.log.Error("sealing failed", "err", err)
	}
	return ready, built
}

// builtPreconf is what a tick built: the pre-confirmation it published (nil when it failed)
// and how many transactions the staging rounds had taken before the build (stage.go), those
// whose nonce another had used included.
type builtPreconf struct {
	snap   *preconf.Snapshot
	staged int
}

func (s *Sequencer) openLocked(ctx context.Context) error {
	head := s.preconf.Head() // the block sealed last, while the chain may still write it
	// The clock's time (devcontrol.go), or the Denim schedule's (denim.go).
	denim, err := s.denimLocked(head, s.nextTimeLocked(head))
	if err != nil {
		return err
	}
	attrs := preconf.NextAttributes(s.chain.Config(), head, denim.Time, s.cfg.FeeRecipient, s.cfg.ExtraData)
	var taken []queuedDeposit
	if s.cfg.L1 != nil {
		taken = s.opAttributes(&attrs, head, denim)
	}
	s.clock.apply(&attrs) // devcontrol.go
	snap, err := s.preconf.Open(ctx, attrs, preconf.PublishOptions{Hidden: s.cfg.NoPreconfirmations})
	if err != nil {
		s.putBack(taken)
		return err
	}
	// The new block starts from the sealed state, which differs from the last pre-confirmed
	// one when the seal left transactions out.
	view := s.poolView(snap)
	s.pool.Reset(view)
	s.requeueDroppedLocked(view) // dropped.go
	return nil
}

// sealLocked seals the block in progress and opens the next one. With async (the timer's
// seals) the chain writes the sealed block while the next one pre-confirms
// (preconf.SealAsync); otherwise (the on-request seals) the block is durable and readable
// on the standard endpoint when sealLocked returns.
func (s *Sequencer) sealLocked(ctx context.Context, async bool) (*types.Block, error) {
	start := time.Now()
	seal := s.preconf.Seal
	if async {
		seal = s.preconf.SealAsync
	}
	block, err := seal(ctx)
	if err != nil {
		return nil, err
	}
	return block, s.sealedLocked(ctx, block, start)
}

// sealedLocked records block, sealed from start on, and opens the next one. s.mu must be
// held.
func (s *Sequencer) sealedLocked(ctx context.Context, block *types.Block, start time.Time) error {
	s.sealed = block
	s.log.Info("sealed block", "number", block.NumberU64(), "hash", block.Hash(), "txs", len(block.Transactions()), "gasUsed", block.GasUsed(), "took", time.Since(start).Round(time.Millisecond))
	if err := s.openLocked(ctx); err != nil {
		return fmt.Errorf("open block %d: %w", block.NumberU64()+1, err)
	}
	return nil
}

// WaitWritten waits for the chain write of the block the timer sealed last, for a dev method
// that reads the chain's head (evm_snapshot, anvil_dumpState). What is staged is published
// first: it holds the Preconf's writer lock (stage.go).
func (s *Sequencer) WaitWritten() error {
	s.lock()
	defer s.mu.Unlock()
	return s.settleLocked()
}

// Cheats returns the state cheats no sealed block carries yet (preconf.Dev.Cheats), for
// evm_snapshot. What is staged is published first, as for WaitWritten.
func (s *Sequencer) Cheats() (*preconf.Cheats, error) {
	s.lock()
	defer s.mu.Unlock()
	return s.dev.Cheats()
}

// settleLocked waits for the chain write of the block the timer sealed last, if still in
// flight: the dev controls read the chain's head and expect it to be that block. s.mu must be
// held.
func (s *Sequencer) settleLocked() error { return s.preconf.WaitWritten() }

// preconfirmLocked adds the pool's executable transactions to the block in progress, in
// inclusion order, until until (the zero time: all of them), and publishes them as the next
// pre-confirmation (build.go), on top of what the timer staged for it (stage.go). When wait
// is set it runs between the assembly and the publication (preconf.PublishOptions.PublishAfter:
// the timer loop waits there for the deadline); nil publishes at once.
func (s *Sequencer) preconfirmLocked(ctx context.Context, until time.Time, wait func(), seal bool) (*preconf.Snapshot, error) {
	var waited time.Duration // not part of the build
	if s.cfg.ObserveBuild != nil {
		start := time.Now()
		defer func() { s.cfg.ObserveBuild(time.Since(start) - waited) }()
	}
	b := s.staged
	s.staged = nil
	if b == nil {
		var err error
		if b, err = s.beginLocked(ctx); err != nil {
			return nil, err
		}
	}
	b.addPending(ctx, s, until)
	opts := preconf.PublishOptions{Seal: seal}
	if wait != nil {
		opts.PublishAfter = func() {
			start := time.Now()
			wait()
			waited = time.Since(start)
		}
	}
	return b.commit(ctx, s, opts)
}

// neverIncludable reports whether err, from executing tx in a block with this gas limit, will
// be the same in every later block.
func neverIncludable(err error, tx *types.Transaction, gasLimit uint64) bool {
	if errors.Is(err, core.ErrGasLimitReached) {
		return tx.Gas() > gasLimit // otherwise the block is only full for now
	}
	for _, permanent := range permanentErrors {
		if errors.Is(err, permanent) {
			return true
		}
	}
	return false
}

// permanentErrors are go-ethereum's validation errors that depend on the transaction alone,
// or on state that only the sender's own transactions could change and that they cannot
// (code at the sender, nonce at its maximum).
var permanentErrors = []error{
	core.ErrNonceMax, core.ErrGasLimitTooHigh, core.ErrSenderNoEOA, core.ErrIntrinsicGas,
	core.ErrFloorDataGas, core.ErrGasUintOverflow, core.ErrTipAboveFeeCap, core.ErrTipVeryHigh,
	core.ErrFeeCapVeryHigh, core.ErrTxTypeNotSupported, core.ErrBlobTxCreate,
	core.ErrMissingBlobHashes, core.ErrTooManyBlobs, core.ErrEmptyAuthList,
	core.ErrSetCodeTxCreate, types.ErrInvalidSig, types.ErrInvalidChainId,
}

// poolView is the pool's view of the block in progress at snap.
func (s *Sequencer) poolView(snap *preconf.Snapshot) txpool.View {
	return txpool.StateView(s.chain.Config(), snap.Header(), snap.ReadState)
}

// priceQueue orders senders by the effective tip of their next transaction (go-ethereum's
// TransactionsByPriceAndNonce).
type priceQueue struct {
	baseFee *big.Int
	heads   []senderTxs
}

type senderTxs struct {
	from common.Address
	txs  []*types.Transaction // remaining, nonce order
	tip  *big.Int             // effective tip of txs[0]
}

func newPriceQueue(pending map[common.Address][]*types.Transaction, baseFee *big.Int) *priceQueue {
	q := &priceQueue{baseFee: baseFee}
	for from, txs := range pending {
		if len(txs) > 0 {
			q.heads = append(q.heads, senderTxs{from: from, txs: txs, tip: effectiveTip(txs[0], baseFee)})
		}
	}
	heap.Init(q)
	return q
}

func effectiveTip(tx *types.Transaction, baseFee *big.Int) *big.Int {
	tip, err := tx.EffectiveGasTip(baseFee)
	if err != nil { // fee cap below the base fee: last
		return new(big.Int).Neg(big.NewInt(1))
	}
	return tip
}

func (q *priceQueue) Len() int { return len(q.heads) }
func (q *priceQueue) Less(i, j int) bool {
	if c := q.heads[i].tip.Cmp(q.heads[j].tip); c != 0 {
		return c > 0
	}
	return q.heads[i].txs[0].Time().Before(q.heads[j].txs[0].Time()) // first come, first served
}
func (q *priceQueue) Swap(i, j int) { q.heads[i], q.heads[j] = q.heads[j], q.heads[i] }
func (q *priceQueue) Push(x any)    { q.heads = append(q.heads, x.(senderTxs)) }
func (q *priceQueue) Pop() any {
	last := q.heads[len(q.heads)-1]
	q.heads = q.heads[:len(q.heads)-1]
	return last
}

// peek returns the best transaction.
func (q *priceQueue) peek() *types.Transaction { return q.heads[0].txs[0] }

// sender returns the best transaction's sender.
func (q *priceQueue) sender() common.Address { return q.heads[0].from }

// shift moves past the best transaction to its sender's next one.
func (q *priceQueue) shift() {
	head := &q.heads[0]
	head.txs = head.txs[1:]
	if len(head.txs) == 0 {
		heap.Pop(q)
		return
	}
	head.tip = effectiveTip(head.txs[0], q.baseFee)
	heap.Fix(q, 0)
}

// dropSender removes the best transaction's sender from this round.
func (q *priceQueue) dropSender() { heap.Pop(q) }
