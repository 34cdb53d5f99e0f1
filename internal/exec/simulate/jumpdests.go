package simulate

import (
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm"
)

// jumpDestsKept bounds the analyses kept: a contract's takes a bit per byte of code (3 kB
// for the largest), so at most a few MB.
const jumpDestsKept = 1024

// sharedJumpDests are the JUMPDEST analyses of the code the simulations run, shared by all of
// them. go-ethereum's EVM keeps its own per EVM, that is per simulated block, so every
// request analysed the code of every contract it called again: 2% of a request of ERC-20
// transfers and swaps. An analysis is keyed by the code's hash, a function of the code
// alone, so it holds for any state and any request (state overrides included: their code
// is hashed when set).
var sharedJumpDests = &jumpDestCache{m: make(map[common.Hash]vm.BitVec)}

// jumpDestCache is a vm.JumpDestCache that is safe for concurrent use. When full it starts
// over: the analyses of the contracts in use come back at their next call.
type jumpDestCache struct {
	mu sync.RWMutex
	m  map[common.Hash]vm.BitVec // guarded by mu; an analysis is never modified once stored
}

// Load implements vm.JumpDestCache.
func (c *jumpDestCache) Load(codeHash common.Hash) (vm.BitVec, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	vec, ok := c.m[codeHash]
	return vec, ok
}

// Store implements vm.JumpDestCache.
func (c *jumpDestCache) Store(codeHash common.Hash, vec vm.BitVec) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= jumpDestsKept {
		clear(c.m)
	}
	c.m[codeHash] = vec
}
