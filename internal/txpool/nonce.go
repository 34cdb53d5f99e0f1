package txpool

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// PendingNonce returns the nonce addr's next transaction should carry: next (the account's nonce
// in the state the pool validates against) advanced past every pooled transaction of addr that
// continues the sequence without a gap, executable or queued. It is what
// eth_getTransactionCount(addr, "pending") answers, as go-ethereum's pool nonce does, so that a
// wallet sending twice before the first transaction is pre-confirmed picks consecutive nonces.
func (p *Pool) PendingNonce(addr common.Address, next uint64) uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	acct := p.accounts[addr]
	if acct == nil {
		return next
	}
	for _, list := range [][]*types.Transaction{acct.pending, acct.queued} {
		for _, tx := range list { // nonce order, unique
			switch n := tx.Nonce(); {
			case n == next:
				next++
			case n > next:
				return next // a gap: the rest cannot run yet
			}
		}
	}
	return next
}
