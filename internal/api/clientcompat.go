package api

import (
	"github.com/ethereum/go-ethereum/common"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
)

// What wallets and client libraries (viem, ethers, cast, ethclient) rely on beyond the block
// semantics of the two endpoints; clients/ exercises each of these.

// isPendingTag reports whether a block parameter is the `pending` tag.
func isPendingTag(b gethrpc.BlockNumberOrHash) bool {
	n, ok := b.Number()
	return ok && n == gethrpc.PendingBlockNumber
}

// nextNonce is eth_getTransactionCount(addr, "pending") on both endpoints: the nonce addr's next
// transaction must carry for the pool to take it. It counts the transactions pre-confirmed in the
// block in progress and those waiting in the pool, as go-ethereum's pool nonce does. Wallets
// (viem, ethers, cast, ethclient's PendingNonceAt) take the nonce of a new transaction from
// here; without the pool a second send before the next pre-confirmation would reuse a nonce
// ("replacement transaction underpriced"), and on the standard endpoint a send after a
// pre-confirmation would be "nonce too low".
func (a *API) nextNonce(addr common.Address) uint64 {
	next := a.poolView().Nonce(addr)
	if a.pool == nil {
		return next
	}
	return a.pool.PendingNonce(addr, next)
}
