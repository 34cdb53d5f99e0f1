package txpool

import (
	"fmt"
	"maps"
	"math/big"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
)

// Pool holds the transactions waiting for inclusion, executable (pending) and future-nonce
// (queued) ones apart. It is safe for concurrent use.
type Pool struct {
	config *params.ChainConfig
	signer types.Signer
	cfg    Config

	mu       sync.Mutex // guards the fields below and every account
	all      map[common.Hash]*types.Transaction
	accounts map[common.Address]*account // only accounts with transactions
	pending  uint64                      // executable slots in use
	queued   uint64                      // queued slots in use
	baseFee  *big.Int                    // of the newest view: prices evictions

	onAdd atomic.Pointer[func(*types.Transaction)] // SetOnAdd's hook
}

// SetOnAdd makes fn run after each transaction Add keeps, in Add's goroutine, after the pool's
// lock is released and before Add returns (the dev chain's automine seals it there); nil
// removes the hook.
func (p *Pool) SetOnAdd(fn func(*types.Transaction)) {
	if fn == nil {
		p.onAdd.Store(nil)
		return
	}
	p.onAdd.Store(&fn)
}

// New returns an empty pool for a chain with this configuration and these limits.
func New(config *params.ChainConfig, cfg Config) *Pool {
	return &Pool{
		config:   config,
		signer:   types.LatestSigner(config),
		cfg:      cfg.withDefaults(),
		all:      make(map[common.Hash]*types.Transaction),
		accounts: make(map[common.Address]*account),
	}
}

// Signer returns the signer senders are recovered with.
func (p *Pool) Signer() types.Signer { return p.signer }

// Limits returns the pool's configuration with its defaults filled in.
func (p *Pool) Limits() Config { return p.cfg }

// Add validates tx against view and keeps it: as executable when it continues its sender's
// nonce run (then the sender's queued transactions that follow it become executable too), as
// queued when its nonce leaves a gap. A transaction with the nonce of a pooled one replaces it
// only when both its fee caps are at least Config.PriceBump percent higher. When the limits
// leave no room, Add makes some as go-ethereum's pool does (see doc.go) or refuses tx with an
// error that says why; a refused transaction changes nothing.
func (p *Pool) Add(tx *types.Transaction, view View) error {
	if err := p.add(tx, view); err != nil {
		return err
	}
	if fn := p.onAdd.Load(); fn != nil {
		(*fn)(tx)
	}
	return nil
}

func (p *Pool) add(tx *types.Transaction, view View) error {
	from, stateNonce, err := p.validate(tx, view)
	if err != nil {
		return err
	}
	if tx.Type() == types.BlobTxType {
		tx = tx.WithoutBlobTxSidecar() // blocks carry blob transactions without their blobs
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, known := p.all[tx.Hash()]; known {
		return txpool.ErrAlreadyKnown
	}
	if view.Header.BaseFee != nil {
		p.baseFee = view.Header.BaseFee
	}
	now := p.cfg.Now()
	acct := p.accounts[from]
	if acct == nil {
		acct = &account{addr: from, nonce: stateNonce}
		p.accounts[from] = acct
	}
	defer p.forgetIfEmptyLocked(acct)
	// The view may be older than what the pool has seen; never go back.
	acct.nonce = max(acct.nonce, stateNonce)
	p.syncLocked(acct, now)
	p.truncateQueueLocked(acct)
	if tx.Nonce() < acct.nonce {
		return fmt.Errorf("%w: next nonce %v, tx nonce %v", core.ErrNonceTooLow, acct.nonce, tx.Nonce())
	}
	if i := acct.findPending(tx.Nonce()); i >= 0 {
		return p.replacePendingLocked(acct, i, tx, now)
	}
	if i := acct.findQueued(tx.Nonce()); i >= 0 {
		return p.replaceQueuedLocked(acct, i, tx)
	}
	if tx.Nonce() == acct.next() {
		return p.addPendingLocked(acct, tx, now)
	}
	return p.addQueuedLocked(acct, tx, now)
}

func (p *Pool) addPendingLocked(acct *account, tx *types.Transaction, now time.Time) error {
	slots := numSlots(tx)
	plan, err := p.planPendingRoomLocked(acct, slots, tx)
	if err != nil {
		return err
	}
	p.applyPendingPlanLocked(plan)
	acct.pending = append(acct.pending, tx)
	acct.pendingSlots += slots
	p.pending += slots
	p.all[tx.Hash()] = tx
	p.promoteLocked(acct, now)
	return nil
}

func (p *Pool) addQueuedLocked(acct *account, tx *types.Transaction, now time.Time) error {
	slots := numSlots(tx)
	plan, err := p.planQueueRoomLocked(acct, slots, tx.Nonce(), now)
	if err != nil {
		return err
	}
	p.applyQueuePlanLocked(plan, acct)
	acct.insertQueued(tx, now)
	p.queued += slots
	p.all[tx.Hash()] = tx
	return nil
}

func (p *Pool) replacePendingLocked(acct *account, i int, tx *types.Transaction, now time.Time) error {
	old := acct.pending[i]
	if err := p.checkBump(old, tx); err != nil {
		return err
	}
	oldSlots, slots := numSlots(old), numSlots(tx)
	if slots > oldSlots {
		plan, err := p.planPendingRoomLocked(acct, slots-oldSlots, tx)
		if err != nil {
			return err
		}
		p.applyPendingPlanLocked(plan)
	}
	delete(p.all, old.Hash())
	acct.pending[i] = tx
	acct.pendingSlots = acct.pendingSlots - oldSlots + slots
	p.pending = p.pending - oldSlots + slots
	p.all[tx.Hash()] = tx
	if !acct.beat.IsZero() {
		acct.beat = now // geth renews the queue's heartbeat on an executable replacement
	}
	return nil
}

func (p *Pool) replaceQueuedLocked(acct *account, i int, tx *types.Transaction) error {
	old := acct.queued[i]
	if err := p.checkBump(old, tx); err != nil {
		return err
	}
	oldSlots, slots := numSlots(old), numSlots(tx)
	if slots > oldSlots {
		plan, err := p.planQueueRoomLocked(acct, slots-oldSlots, tx.Nonce(), p.cfg.Now())
		if err != nil {
			return err
		}
		p.applyQueuePlanLocked(plan, acct)
	}
	delete(p.all, old.Hash())
	acct.queued[i] = tx
	acct.queuedSlots = acct.queuedSlots - oldSlots + slots
	p.queued = p.queued - oldSlots + slots
	p.all[tx.Hash()] = tx
	return nil
}

// checkBump refuses a replacement that does not raise both fee caps by PriceBump percent.
func (p *Pool) checkBump(old, tx *types.Transaction) error {
	if !bumped(old.GasFeeCap(), tx.GasFeeCap(), p.cfg.PriceBump) || !bumped(old.GasTipCap(), tx.GasTipCap(), p.cfg.PriceBump) {
		return fmt.Errorf("%w: both maxFeePerGas and maxPriorityFeePerGas must be at least %d%% above the pooled transaction's (%s and %s)",
			txpool.ErrReplaceUnderpriced, p.cfg.PriceBump, old.GasFeeCap(), old.GasTipCap())
	}
	return nil
}

// Reset checks every pooled transaction against view, the state the sequencer builds on now,
// as go-ethereum's pool does on a new head: transactions whose nonce was used are dropped, so
// are those the sender can no longer pay for or that exceed the block gas limit (the sender's
// executable ones after such a transaction are queued again), executable runs that no longer
// start at the sender's nonce are queued again, queued transactions that now continue a run
// become executable, and queued transactions older than Config.Lifetime expire. The
// sequencer calls it after each pre-confirmation and after opening a block.
func (p *Pool) Reset(view View) {
	p.mu.Lock()
	addrs := slices.SortedFunc(maps.Keys(p.accounts), common.Address.Cmp)
	p.mu.Unlock()
	// State reads outside the pool's lock: Add need not wait for them.
	nonces := make([]uint64, len(addrs))
	balances := make([]*uint256.Int, len(addrs))
	for i, addr := range addrs {
		nonces[i], balances[i] = view.Nonce(addr), view.Balance(addr)
	}
	if view.RollupCost != nil {
		view.RollupCost(primeTx) // reads the L1 fee parameters now, not under the lock
	}

	p.mu.Lock()
	defer p.mu.Unlock()
	if view.Header.BaseFee != nil {
		p.baseFee = view.Header.BaseFee
	}
	now := p.cfg.Now()
	for i, addr := range addrs {
		acct := p.accounts[addr]
		if acct == nil {
			continue
		}
		acct.nonce = nonces[i]
		p.filterLocked(acct, balances[i].ToBig(), view.Header.GasLimit, view.RollupCost)
		p.syncLocked(acct, now)
	}
	p.expireLocked(now, nil)
	p.truncateQueueLocked(nil)
	for _, acct := range p.accounts {
		p.forgetIfEmptyLocked(acct)
	}
}

// Remove drops transactions (pre-confirmed, or found invalid). A sender's later transactions
// stay where they are until the next Reset or Add of the sender sorts them out.
func (p *Pool) Remove(txs ...*types.Transaction) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, tx := range txs {
		if _, ok := p.all[tx.Hash()]; !ok {
			continue
		}
		from, _ := types.Sender(p.signer, tx) // cached: validated on Add
		acct := p.accounts[from]
		if acct == nil {
			delete(p.all, tx.Hash())
			continue
		}
		if i := acct.findPending(tx.Nonce()); i >= 0 && acct.pending[i].Hash() == tx.Hash() {
			p.dropPendingLocked(acct, i)
		} else if i := acct.findQueued(tx.Nonce()); i >= 0 && acct.queued[i].Hash() == tx.Hash() {
			p.dropQueuedLocked(acct, i)
		}
		p.forgetIfEmptyLocked(acct)
	}
}

// RemoveUsed drops transactions whose nonce the block in progress has used: each was
// pre-confirmed there, or another transaction took its nonce. Each sender's nonce in the pool
// moves past them at once, as the next Reset would move it: until that Reset, an Add validated
// against a view from before the pre-confirmation (it read the view while the sequencer was
// building) must still find the sender's run starting at the sender's nonce, not take what
// follows the used nonces for a run behind a gap and queue it again, over the account's queue
// limit. Transactions that leave the pool without using their nonce go through Remove.
func (p *Pool) RemoveUsed(txs ...*types.Transaction) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// Each sender's nonce first, then one pass over its lists: a block holds many
	// transactions of a sender.
	senders := make(map[*account]bool)
	for _, tx := range txs {
		from, err := types.Sender(p.signer, tx) // cached: executed by the sequencer
		if err != nil {
			continue // never pooled: the pool recovered every sender on Add
		}
		if acct := p.accounts[from]; acct != nil {
			acct.nonce = max(acct.nonce, tx.Nonce()+1)
			senders[acct] = true
		}
	}
	now := p.cfg.Now()
	for acct := range senders {
		p.syncLocked(acct, now) // drops what is below the nonce: the used transactions
		p.forgetIfEmptyLocked(acct)
	}
}

// Get returns a pooled transaction, or nil.
func (p *Pool) Get(hash common.Hash) *types.Transaction {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.all[hash]
}

// Len returns the number of pooled transactions, executable and queued.
func (p *Pool) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.all)
}

// Stats returns the number of executable and of queued transactions.
func (p *Pool) Stats() (pending, queued int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, acct := range p.accounts {
		pending += len(acct.pending)
		queued += len(acct.queued)
	}
	return pending, queued
}

// Slots returns the executable and the queued slots in use.
func (p *Pool) Slots() (pending, queued uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pending, p.queued
}

// Pending returns every sender's executable transactions in nonce order. The map and slices
// are new; the transactions are shared.
func (p *Pool) Pending() map[common.Address][]*types.Transaction {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[common.Address][]*types.Transaction, len(p.accounts))
	for addr, acct := range p.accounts {
		if len(acct.pending) > 0 {
			out[addr] = slices.Clone(acct.pending)
		}
	}
	return out
}

// Content returns every sender's executable and queued transactions, each in nonce order, as
// go-ethereum's txpool_content groups them. The maps and slices are new; the transactions
// are shared.
func (p *Pool) Content() (pending, queued map[common.Address][]*types.Transaction) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pending = make(map[common.Address][]*types.Transaction)
	queued = make(map[common.Address][]*types.Transaction)
	for addr, acct := range p.accounts {
		if len(acct.pending) > 0 {
			pending[addr] = slices.Clone(acct.pending)
		}
		if len(acct.queued) > 0 {
			queued[addr] = slices.Clone(acct.queued)
		}
	}
	return pending, queued
}

// ContentFrom returns addr's executable and queued transactions in nonce order. The slices
// are new.
func (p *Pool) ContentFrom(addr common.Address) (pending, queued []*types.Transaction) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if acct := p.accounts[addr]; acct != nil {
		return slices.Clone(acct.pending), slices.Clone(acct.queued)
	}
	return nil, nil
}

// bumped reports whether next is at least bump percent above old.
func bumped(old, next *big.Int, bump uint64) bool {
	threshold := new(big.Int).Mul(old, new(big.Int).SetUint64(100+bump))
	threshold.Div(threshold, big.NewInt(100))
	return next.Cmp(threshold) >= 0
}
