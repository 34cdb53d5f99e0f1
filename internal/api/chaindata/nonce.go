package chaindata

import (
	"context"

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

// nonceBlock is the block eth_getTransactionCount reads a nonce at for the block parameter b.
// On the pre-confirmed endpoint `latest` counts the pre-confirmed transactions too, as
// `pending` does without the pool (decisions.md "Nonces on the pre-confirmed endpoint"): a
// pre-confirmed transaction is final for its sender, and cast and forge read the nonce of their
// next transaction at `latest` right after they saw the previous one's pre-confirmed receipt,
// which would otherwise be "nonce too low". Every other method keeps `latest` = the sealed
// head, and the standard endpoint is unchanged, as is a chain without pre-confirmations
// (core.ShowsPreconfirmations), where nothing is final before its block is sealed.
func (a *API) nonceBlock(b gethrpc.BlockNumberOrHash) gethrpc.BlockNumberOrHash {
	if n, ok := b.Number(); ok && n == gethrpc.LatestBlockNumber && a.ShowsPreconfirmations() {
		return gethrpc.BlockNumberOrHashWithNumber(gethrpc.PendingBlockNumber)
	}
	return b
}

// nextNonce is eth_getTransactionCount(addr, "pending") on both endpoints: the nonce addr's next
// transaction must carry for the pool to take it. It counts the transactions pre-confirmed in the
// block in progress and those waiting in the pool, as go-ethereum's pool nonce does. Wallets
// (viem, ethers, cast, ethclient's PendingNonceAt) take the nonce of a new transaction from
// here; without the pool a second send before the next pre-confirmation would reuse a nonce
// ("replacement transaction underpriced"), and on the standard endpoint a send after a
// pre-confirmation would be "nonce too low".
//
// The pool is not part of the view: a transaction leaves it just after the View that
// pre-confirms it is published. A count read from an older View and the pool after that
// removal would miss the transaction in both, so the count is taken again when a new View
// was published while it was read (at most nonceReads times; views change every few
// milliseconds, a read takes microseconds).
func (a *API) nextNonce(ctx context.Context, addr common.Address) (uint64, error) {
	if a.Up != nil { // the pool's view reads addr from shared states: from the upstream first
		if err := a.Prefetch(ctx, a.WriterView().Latest, []common.Address{addr}, nil); err != nil {
			return 0, err
		}
	}
	var next uint64
	for range nonceReads {
		v := a.WriterView()
		next = a.PoolView(v).Nonce(addr)
		if a.Pool == nil {
			return next, nil
		}
		next = a.Pool.PendingNonce(addr, next)
		if a.WriterView() == v {
			break
		}
	}
	return next, nil
}

// nonceReads bounds the reads of nextNonce.
const nonceReads = 4
