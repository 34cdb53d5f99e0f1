package simulate

import "sync"

// maxHotNodes bounds a layer's cache of its base's node blobs (memLayer.hot): the paths of
// the accounts and slots requests on one head touch (senders, recipients, fee vaults, a few
// contracts' storage), a few hundred nodes; at most a few megabytes.
const maxHotNodes = 4096

// A sharedCache holds values that every request on a head computes alike (node blobs by
// hash, decoded nodes, account keys, bloom bits), for up to limit keys: the first ones
// requests reach are kept, the paths and contracts every request on the head uses. Values are
// shared and must not be modified. Safe for concurrent use; a nil *sharedCache has none and
// keeps none.
type sharedCache[K comparable, V any] struct {
	mu sync.RWMutex
	m  map[K]V
}

func (c *sharedCache[K, V]) get(key K) (V, bool) {
	if c == nil {
		var zero V
		return zero, false
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.m[key]
	return v, ok
}

// add keeps v under key unless the cache holds limit keys.
func (c *sharedCache[K, V]) add(key K, v V, limit int) {
	if c == nil {
		return
	}
	c.mu.RLock()
	full := len(c.m) >= limit
	c.mu.RUnlock()
	if full { // no write lock for nothing: concurrent requests would wait on it
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[K]V)
	}
	if len(c.m) < limit {
		c.m[key] = v
	}
}

// len returns the number of keys kept.
func (c *sharedCache[K, V]) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}
