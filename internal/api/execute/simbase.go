package execute

import (
	"github.com/flashrpc/flashrpc/internal/exec/simulate"
	"github.com/flashrpc/flashrpc/internal/recent"
)

// simBasesKept is how many prepared eth_simulateV1 bases are kept: the sealed head's, the
// block in progress's, and a couple more for requests that name an older block or began
// before the head moved.
const simBasesKept = 4

// newSimBases returns the list of the prepared eth_simulateV1 bases (simulate.Base) of the
// most recently used base states, keyed by what identifies the state they start from: a
// sealed block's header (the pointer), or the pre-confirmation snapshot. Both are immutable,
// so an entry only falls out when newer bases push it out, or when the chain's state epoch
// moves (dropStaleSimBases).
func newSimBases() *recent.List[any, *simulate.Base] {
	return recent.New[any, *simulate.Base](simBasesKept)
}

// dropStaleSimBases empties the prepared bases when the chain's state epoch moved
// (chain.Chain.StateEpoch): under the path scheme a cheated block's write drops the memory
// layers a base's tries were opened on, and a base prepared before it must not be used after.
func (a *API) dropStaleSimBases() {
	if e := a.Chain.StateEpoch(); a.simEpoch.Load() != e {
		a.simBases.Reset()
		a.simEpoch.Store(e)
	}
}
