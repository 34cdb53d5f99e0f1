package execute

import (
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/exec/simulate"
	"github.com/flashrpc/flashrpc/internal/recent"
)

// simBasesKept is how many prepared eth_simulateV1 bases are kept: the sealed head's, the
// block in progress's, and a couple more for requests that name an older block or began
// before the head moved.
const simBasesKept = 4

// newSimBases returns the list of the prepared eth_simulateV1 bases (simulate.Base) of the
// most recently used base states, keyed by what identifies the state they start from: a
// sealed block's header (the pointer) with the chain's state epoch (sealedBase), or the
// pre-confirmation snapshot. Both are immutable, so an entry never goes stale; it only falls
// out when newer bases push it out.
func newSimBases() *recent.List[any, *simulate.Base] {
	return recent.New[any, *simulate.Base](simBasesKept)
}

// sealedBase identifies a sealed block's state as read at one state epoch
// (chain.Chain.StateEpoch): under the path scheme a cheated block's write drops the readers
// of the states below it, and a base prepared before then must not be used after.
type sealedBase struct {
	header *types.Header
	epoch  uint64
}
