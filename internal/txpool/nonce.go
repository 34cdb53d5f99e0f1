package txpool

import "github.com/ethereum/go-ethereum/common"

// PendingNonce returns the nonce addr's next transaction should carry: next (the account's nonce
// in the state the pool validates against) advanced past every pooled transaction of addr that
// continues the sequence without a gap. It is what eth_getTransactionCount(addr, "pending")
// answers, as go-ethereum's pool nonce does, so that a wallet sending twice before the first
// transaction is pre-confirmed picks consecutive nonces.
func (p *Pool) PendingNonce(addr common.Address, next uint64) uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, tx := range p.bySender[addr] { // sorted by nonce, unique
		switch n := tx.Nonce(); {
		case n == next:
			next++
		case n > next:
			return next // a gap: the rest cannot run yet
		}
	}
	return next
}
