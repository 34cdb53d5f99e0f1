package simulate

import (
	"sync"

	"github.com/ethereum/go-ethereum/common"
)

// maxHotNodes bounds a layer's nodeCache: the paths of the accounts and slots requests on
// one head touch (senders, recipients, fee vaults, a few contracts' storage), a few hundred
// nodes; at most a few megabytes.
const maxHotNodes = 4096

// A nodeCache holds trie nodes of a memory layer's base by hash. Every request on a head
// walks the same paths of its account trie (the fee vaults' and the senders') and opens the
// same storage tries again; the base's node database would look each node up in its clean
// cache and copy it out every time. A node's hash is the Keccak-256 of its encoding, so a
// node found under its hash is that node in whatever trie and at whatever path it is asked
// for. Blobs are shared, never written to: go-ethereum's trie decodes a node without
// copying its blob and never modifies it, as it shares its own in-memory nodes.
// Safe for concurrent use.
type nodeCache struct {
	mu    sync.RWMutex
	nodes map[common.Hash][]byte
}

func (c *nodeCache) get(hash common.Hash) ([]byte, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	blob, ok := c.nodes[hash]
	return blob, ok
}

// add keeps blob as the node of hash, until the cache is full.
func (c *nodeCache) add(hash common.Hash, blob []byte) {
	c.mu.RLock()
	full := len(c.nodes) >= maxHotNodes
	c.mu.RUnlock()
	if full { // no write lock for nothing: concurrent requests would wait on it
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nodes == nil {
		c.nodes = make(map[common.Hash][]byte)
	}
	if len(c.nodes) < maxHotNodes {
		c.nodes[hash] = blob
	}
}
