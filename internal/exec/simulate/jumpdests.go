package simulate

import (
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
)

// jumpDestsKept bounds the number of analyses kept.
const jumpDestsKept = 1024

// jumpDestBytesKept bounds the size of one analysis kept: a bit per byte of code, plus 5
// bytes, for the largest code a chain can deploy (EIP-170's limit as Amsterdam raises it).
// Code a state override sets, or a chain run with its code size limit disabled, can be
// far longer (a 5 MiB request carries 2.5 MB of code, a 330 kB analysis): such analyses
// are not kept, so the analyses kept take at most jumpDestsKept × 4.1 kB, 4.2 MB, whatever
// the requests.
const jumpDestBytesKept = params.MaxCodeSizeAmsterdam/8 + 5

// JumpDests are the JUMPDEST analyses of the code simulations run, for sharing between
// them (Env.JumpDests). go-ethereum's EVM keeps its own per EVM, that is per simulated
// block, so every request analysed the code of every contract it called again: 2% of a
// request of ERC-20 transfers and swaps. An analysis is keyed by the code's hash, a
// function of the code alone, so it holds for any state and any request (state overrides
// included: their code is hashed when set).
//
// JumpDests is a vm.JumpDestCache that is safe for concurrent use. When full it starts
// over: the analyses of the contracts in use come back at their next call.
type JumpDests struct {
	mu sync.RWMutex
	m  map[common.Hash]vm.BitVec // guarded by mu; an analysis is never modified once stored
}

// NewJumpDests returns an empty JumpDests.
func NewJumpDests() *JumpDests {
	return &JumpDests{m: make(map[common.Hash]vm.BitVec)}
}

// Load implements vm.JumpDestCache.
func (c *JumpDests) Load(codeHash common.Hash) (vm.BitVec, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	vec, ok := c.m[codeHash]
	return vec, ok
}

// Store implements vm.JumpDestCache. An analysis longer than jumpDestBytesKept is not
// kept: the contract that asked keeps it for the rest of its call.
func (c *JumpDests) Store(codeHash common.Hash, vec vm.BitVec) {
	if len(vec) > jumpDestBytesKept {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= jumpDestsKept {
		clear(c.m)
	}
	c.m[codeHash] = vec
}
