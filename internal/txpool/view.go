package txpool

import (
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
)

// View is the state and block a transaction is validated against: the block in progress
// after its last pre-confirmation, or the block after the sealed head.
type View struct {
	Header  *types.Header // the block the transaction would land in (base fee, gas limit, fork rules)
	Nonce   func(common.Address) uint64
	Balance func(common.Address) *uint256.Int
	// RollupCost, on an OP Stack chain, is what a transaction pays beyond gas and value (the
	// L1 data fee and the operator fee), which its sender's balance must cover too, as in
	// op-geth's pool; nil elsewhere.
	RollupCost txpool.RollupCostFunc
}

// StateView returns a View of the block h of a chain with this configuration whose state read
// runs its function with; read must serialise access to the StateDB if it is shared
// (preconf.Snapshot.ReadState does). On an OP Stack chain its RollupCost reads the L1 fee
// parameters from the L1Block predeploy's storage in that state, as op-geth's pool does.
func StateView(config *params.ChainConfig, h *types.Header, read func(func(*state.StateDB))) View {
	var rollupCost txpool.RollupCostFunc
	if config.IsOptimism() {
		l1Block := &slotCache{read: read, slots: make(map[[2]common.Hash]common.Hash)}
		rollupCost = func(tx types.RollupTransaction) *uint256.Int {
			// A new cost function per call: op-geth's caches per block time and is not safe
			// for concurrent use; the slots it reads are cached below it.
			return types.NewTotalRollupCostFunc(config, l1Block)(tx, h.Time)
		}
	}
	return View{
		Header:     h,
		RollupCost: rollupCost,
		Nonce: func(addr common.Address) (n uint64) {
			read(func(st *state.StateDB) { n = st.GetNonce(addr) })
			return n
		},
		Balance: func(addr common.Address) *uint256.Int {
			b := new(uint256.Int)
			read(func(st *state.StateDB) { b.Set(st.GetBalance(addr)) })
			return b
		},
	}
}

// slotCache reads storage slots through read once each: the rollup cost of every
// transaction needs the same few slots of the L1Block predeploy, and Reset asks for them
// with the pool's lock held (it reads them once before taking it, see primeTx). The state
// a View reads is fixed, so a slot never changes. It is safe for concurrent use.
type slotCache struct {
	read  func(func(*state.StateDB))
	mu    sync.Mutex
	slots map[[2]common.Hash]common.Hash // guarded by mu; key: address (left-padded), slot
}

// GetState implements types.StateGetter.
func (c *slotCache) GetState(addr common.Address, slot common.Hash) common.Hash {
	key := [2]common.Hash{common.BytesToHash(addr[:]), slot}
	c.mu.Lock()
	v, ok := c.slots[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	c.read(func(st *state.StateDB) { v = st.GetState(addr, slot) })
	c.mu.Lock()
	c.slots[key] = v
	c.mu.Unlock()
	return v
}

// primeTx is a transaction whose rollup cost makes a View read every slot its RollupCost
// needs (the L1 fee and operator fee parameters).
var primeTx = types.NewTx(&types.DynamicFeeTx{})
