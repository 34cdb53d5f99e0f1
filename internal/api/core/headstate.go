package core

import (
	"sync"

	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/chain"
)

// headStateReads bounds how many reads one cached head state serves before it is replaced, so
// that its cache of loaded accounts stays small on a chain whose head does not move.
const headStateReads = 100_000

// headState keeps one StateDB of the sealed head for reads (eth_getBalance, eth_getCode, …
// at `latest`). Opening a StateDB per request costs more than the read itself; a StateDB caches
// the accounts and code it loads, so repeated reads are map lookups. A StateDB is not safe for
// concurrent use, even for reads, so reads are serialised by mu; they are short.
type headState struct {
	mu     sync.Mutex // guards the fields below
	header *types.Header
	st     *state.StateDB
	reads  int
}

// read runs fn on the state of h, the sealed head of the request's view (compared by
// pointer: the chain hands out one *types.Header per head). The cached state follows the
// chain's newest head: a request whose view has another head (it began just before a seal)
// reads a state of its own, so that requests on both sides of a seal do not take turns
// replacing the cache.
func (hs *headState) read(c *chain.Chain, h *types.Header, fn func(*state.StateDB)) error {
	hs.mu.Lock()
	if hs.header != h && h != c.Heads().Latest {
		hs.mu.Unlock()
		st, err := c.StateAt(h)
		if err != nil {
			return err
		}
		fn(st)
		return nil
	}
	defer hs.mu.Unlock()
	if hs.header != h || hs.reads >= headStateReads {
		st, err := c.StateAt(h)
		if err != nil {
			return err
		}
		hs.header, hs.st, hs.reads = h, st, 0
	}
	hs.reads++
	fn(hs.st)
	if hs.st.Error() != nil {
		hs.header = nil // a failed read stays in a StateDB: the next read opens a new one
	}
	return nil
}
