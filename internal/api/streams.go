package api

import "github.com/flashrpc/flashrpc/internal/chain"

// startStreams connects the endpoint to preconf and the chain: removed logs of a sealed-chain
// reorganisation for logs subscribers and eth_sendRawTransactionSync's waits on both
// endpoints, the pre-confirmation subscriptions on the pre-confirmed one.
func (a *API) startStreams(b Backend) {
	b.Chain.OnReorg(func(ev chain.ReorgEvent) { a.subs.notifyLogs(ev.Removed) })
	a.waits = newReceiptWaiters()
	b.Chain.OnHead(a.waits.onHead)
	if !a.cfg.Pending || b.Preconf == nil {
		return
	}
	a.psubs = newPreconfHub(a)
	b.Preconf.OnSnapshot(a.waits.onSnapshot)
	b.Preconf.OnSnapshot(a.psubs.onSnapshot)
	b.Preconf.OnRetract(a.psubs.onRetract)
}
