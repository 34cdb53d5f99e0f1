package api

import (
	"sync"

	"github.com/flashrpc/flashrpc/internal/exec"
)

// simBasesKept is how many prepared eth_simulateV1 bases are kept: the sealed head's, the
// block in progress's, and a couple more for requests that name an older block or began
// before the head moved.
const simBasesKept = 4

// simBaseCache keeps the prepared bases of eth_simulateV1 (exec.SimBase) of the most recently
// used bases, keyed by what identifies the state they start from: a sealed block's header (the
// pointer), or the pre-confirmation snapshot. Both are immutable, so an entry never goes stale; it only
// falls out when newer bases push it out.
type simBaseCache struct {
	mu      sync.Mutex
	entries []simBaseEntry // most recently used first
}

type simBaseEntry struct {
	key  any
	base *exec.SimBase
}

// get returns the prepared base for key, preparing it with prepare when it is not kept.
func (c *simBaseCache) get(key any, prepare func() (*exec.SimBase, error)) (*exec.SimBase, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if e.key == key {
			copy(c.entries[1:i+1], c.entries[:i])
			c.entries[0] = e
			return e.base, nil
		}
	}
	base, err := prepare()
	if err != nil {
		return nil, err
	}
	if len(c.entries) < simBasesKept {
		c.entries = append(c.entries, simBaseEntry{})
	}
	copy(c.entries[1:], c.entries)
	c.entries[0] = simBaseEntry{key: key, base: base}
	return base, nil
}
