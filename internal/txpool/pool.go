package txpool

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
)

// Limits, as go-ethereum's legacy pool sets them.
const (
	// MaxTxSize is the largest transaction accepted, in bytes (4 slots of 32 KiB).
	MaxTxSize = 4 * 32 * 1024
	// maxBlobTxSize bounds a blob transaction including its sidecar.
	maxBlobTxSize = 8 * 1024 * 1024
	// priceBump is the percentage a replacement must raise both fee caps by.
	priceBump = 10
	// DefaultCapacity is how many transactions the pool holds at most.
	DefaultCapacity = 10_000
)

// errOutOfCapacity refuses a transaction because the pool is full, with the text of go-ethereum
// v1.17.10's txpool.ErrOutOfCapacity (op-geth v1.101702.3 has no such error).
var errOutOfCapacity = errors.New("out of capacity")

// View is the state and block a transaction is validated against.
type View struct {
	Header  *types.Header // the block the transaction would land in (base fee, gas limit, fork rules)
	Nonce   func(common.Address) uint64
	Balance func(common.Address) *uint256.Int
	// RollupCost, on an OP Stack chain, is what a transaction pays beyond gas and value (the
	// L1 data fee and the operator fee), which its sender's balance must cover too, as in
	// op-geth's pool; nil elsewhere.
	RollupCost txpool.RollupCostFunc
}

// Pool holds pending transactions. It is safe for concurrent use.
type Pool struct {
	config   *params.ChainConfig
	signer   types.Signer
	capacity int

	mu       sync.Mutex // guards the fields below
	all      map[common.Hash]*types.Transaction
	bySender map[common.Address][]*types.Transaction // sorted by nonce, unique nonces
}

// New returns an empty pool for a chain with this configuration. capacity 0 means
// DefaultCapacity.
func New(config *params.ChainConfig, capacity int) *Pool {
	if capacity == 0 {
		capacity = DefaultCapacity
	}
	return &Pool{
		config:   config,
		signer:   types.LatestSigner(config),
		capacity: capacity,
		all:      make(map[common.Hash]*types.Transaction),
		bySender: make(map[common.Address][]*types.Transaction),
	}
}

// Signer returns the signer senders are recovered with.
func (p *Pool) Signer() types.Signer { return p.signer }

// Add validates tx against view and keeps it. A transaction with the nonce of a pooled one
// replaces it only when both its fee caps are at least 10% higher.
func (p *Pool) Add(tx *types.Transaction, view View) error {
	from, err := p.validate(tx, view)
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
	list := p.bySender[from]
	i, found := slices.BinarySearchFunc(list, tx.Nonce(), func(t *types.Transaction, n uint64) int {
		return cmpUint(t.Nonce(), n)
	})
	if found {
		old := list[i]
		if !bumped(old.GasFeeCap(), tx.GasFeeCap()) || !bumped(old.GasTipCap(), tx.GasTipCap()) {
			return txpool.ErrReplaceUnderpriced
		}
		delete(p.all, old.Hash())
		list[i] = tx
	} else {
		if len(p.all) >= p.capacity {
			return fmt.Errorf("%w: %d transactions pooled", errOutOfCapacity, len(p.all))
		}
		list = slices.Insert(list, i, tx)
	}
	p.bySender[from] = list
	p.all[tx.Hash()] = tx
	return nil
}

// validate applies go-ethereum's pool rules (core/txpool/validation.go) and returns the sender.
func (p *Pool) validate(tx *types.Transaction, view View) (common.Address, error) {
	if err := checkType(p.config, tx); err != nil {
		return common.Address{}, err
	}
	head := view.Header
	limit := uint64(MaxTxSize)
	if tx.Type() == types.BlobTxType {
		limit = maxBlobTxSize
	}
	if tx.Size() > limit {
		return common.Address{}, fmt.Errorf("%w: transaction size %v, limit %v", txpool.ErrOversizedData, tx.Size(), limit)
	}
	if p.config.IsOsaka(head.Number, head.Time) && tx.Gas() > params.MaxTxGas {
		return common.Address{}, fmt.Errorf("%w (cap: %d, tx: %d)", core.ErrGasLimitTooHigh, params.MaxTxGas, tx.Gas())
	}
	if tx.Gas() > head.GasLimit {
		return common.Address{}, txpool.ErrGasLimit
	}
	if tx.Value().Sign() < 0 {
		return common.Address{}, txpool.ErrNegativeValue
	}
	if tx.GasFeeCapIntCmp(tx.GasTipCap()) < 0 {
		return common.Address{}, core.ErrTipAboveFeeCap
	}
	from, err := types.Sender(p.signer, tx)
	if err != nil {
		return common.Address{}, fmt.Errorf("%w: %v", txpool.ErrInvalidSender, err)
	}
	if tx.Nonce()+1 < tx.Nonce() {
		return common.Address{}, core.ErrNonceMax
	}
	if _, overflow := uint256.FromBig(tx.Value()); overflow {
		return common.Address{}, core.ErrInsufficientFunds
	}
	rules := p.config.Rules(head.Number, true, head.Time)
	intrinsic, err := core.IntrinsicGas(tx.Data(), tx.AccessList(), tx.SetCodeAuthorizations(), tx.To() == nil, true, rules.IsIstanbul, rules.IsShanghai)
	if err != nil {
		return common.Address{}, err
	}
	if tx.Gas() < intrinsic {
		return common.Address{}, fmt.Errorf("%w: gas %v, minimum needed %v", core.ErrIntrinsicGas, tx.Gas(), intrinsic)
	}
	if rules.IsPrague {
		floor, err := core.FloorDataGas(tx.Data())
		if err != nil {
			return common.Address{}, err
		}
		if tx.Gas() < floor {
			return common.Address{}, fmt.Errorf("%w: gas %v, minimum needed %v", core.ErrFloorDataGas, tx.Gas(), floor)
		}
	}
	if tx.Type() == types.SetCodeTxType && len(tx.SetCodeAuthorizations()) == 0 {
		return common.Address{}, fmt.Errorf("set code tx must have at least one authorization tuple")
	}
	if head.BaseFee != nil && tx.GasFeeCapIntCmp(head.BaseFee) < 0 {
		return common.Address{}, fmt.Errorf("%w: address %v, maxFeePerGas: %s, baseFee: %s", core.ErrFeeCapTooLow, from.Hex(), tx.GasFeeCap(), head.BaseFee)
	}
	if next := view.Nonce(from); tx.Nonce() < next {
		return common.Address{}, fmt.Errorf("%w: next nonce %v, tx nonce %v", core.ErrNonceTooLow, next, tx.Nonce())
	}
	total, overflow := txpool.TotalTxCost(tx, view.RollupCost)
	if overflow {
		return common.Address{}, fmt.Errorf("%w: total tx cost overflow", core.ErrInsufficientFunds)
	}
	balance, cost := view.Balance(from).ToBig(), total.ToBig()
	if balance.Cmp(cost) < 0 {
		return common.Address{}, fmt.Errorf("%w: balance %v, tx cost %v, overshot %v", core.ErrInsufficientFunds, balance, cost, new(big.Int).Sub(cost, balance))
	}
	return from, nil
}

// Get returns a pooled transaction, or nil.
func (p *Pool) Get(hash common.Hash) *types.Transaction {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.all[hash]
}

// Len returns the number of pooled transactions.
func (p *Pool) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.all)
}

// Pending returns every sender's transactions in nonce order. The map and slices are new; the
// transactions are shared.
func (p *Pool) Pending() map[common.Address][]*types.Transaction {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[common.Address][]*types.Transaction, len(p.bySender))
	for from, list := range p.bySender {
		out[from] = slices.Clone(list)
	}
	return out
}

// Remove drops transactions (included in a block, or found invalid).
func (p *Pool) Remove(txs ...*types.Transaction) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, tx := range txs {
		if _, ok := p.all[tx.Hash()]; !ok {
			continue
		}
		delete(p.all, tx.Hash())
		from, _ := types.Sender(p.signer, tx)
		list := slices.DeleteFunc(p.bySender[from], func(t *types.Transaction) bool { return t.Hash() == tx.Hash() })
		if len(list) == 0 {
			delete(p.bySender, from)
		} else {
			p.bySender[from] = list
		}
	}
}

// bumped reports whether next is at least priceBump percent above old.
func bumped(old, next *big.Int) bool {
	threshold := new(big.Int).Mul(old, big.NewInt(100+priceBump))
	threshold.Div(threshold, big.NewInt(100))
	return next.Cmp(threshold) >= 0
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
