package chain

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
)

// forkContext is the core.ChainContext of a fork: the local chain from the fork block N up,
// and the upstream's headers below N, which the fork caches at creation for the 256 blocks
// BLOCKHASH reaches (remote.History.Headers). A header below N is returned only when its hash
// is the one asked for, or, by number, from the cache, so nothing below N waits for the
// upstream.
type forkContext struct {
	core.ChainContext // the core.BlockChain
	c                 *Chain
}

// GetHeader returns the header with this hash and number.
func (x forkContext) GetHeader(hash common.Hash, number uint64) *types.Header {
	if h := x.ChainContext.GetHeader(hash, number); h != nil {
		return h
	}
	if number < x.c.fork.info.Number {
		if h := x.c.fork.history.Header(number); h != nil && h.Hash() == hash {
			return h
		}
	}
	return nil
}

// GetHeaderByNumber returns the canonical header at number.
func (x forkContext) GetHeaderByNumber(number uint64) *types.Header {
	if number < x.c.fork.info.Number {
		return x.c.fork.history.Header(number)
	}
	return x.c.bc.GetHeaderByNumber(number)
}

// GetHeaderByHash returns the header with this hash, local or a cached upstream one.
func (x forkContext) GetHeaderByHash(hash common.Hash) *types.Header {
	return x.c.bc.GetHeaderByHash(hash)
}
