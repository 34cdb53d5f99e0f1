package fork

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
	f                 *Upstream
}

// Context implements chain.Upstream: cc (the chain's BlockChain) with the upstream's headers
// below N.
func (f *Upstream) Context(cc core.ChainContext) core.ChainContext {
	return forkContext{ChainContext: cc, f: f}
}

// GetHeader returns the header with this hash and number.
func (x forkContext) GetHeader(hash common.Hash, number uint64) *types.Header {
	if h := x.ChainContext.GetHeader(hash, number); h != nil {
		return h
	}
	if number < x.f.info.Number {
		if h := x.f.history.Header(number); h != nil && h.Hash() == hash {
			return h
		}
	}
	return nil
}

// GetHeaderByNumber returns the canonical header at number.
func (x forkContext) GetHeaderByNumber(number uint64) *types.Header {
	if number < x.f.info.Number {
		return x.f.history.Header(number)
	}
	return x.f.bc.GetHeaderByNumber(number)
}

// GetHeaderByHash returns the header with this hash, local or a cached upstream one.
func (x forkContext) GetHeaderByHash(hash common.Hash) *types.Header {
	return x.f.bc.GetHeaderByHash(hash)
}
