package txpool

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
)

// View is the state and block a transaction is validated against: the block in progress
// after its last pre-confirmation, or the block after the sealed head.
type View struct {
	Header  *types.Header // the block the transaction would land in (base fee, gas limit, fork rules)
	Nonce   func(common.Address) uint64
	Balance func(common.Address) *uint256.Int
}

// StateView returns a View of the block h whose state read runs its function with; read
// must serialise access to the StateDB if it is shared (preconf.Snapshot.ReadState does).
func StateView(h *types.Header, read func(func(*state.StateDB))) View {
	return View{
		Header: h,
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
