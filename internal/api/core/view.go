package core

import (
	"github.com/ethereum/go-ethereum/core/state"

	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// One view per request. Every method that reads the chain answers from one preconf.View,
// loaded once when the request begins: the sealed head, safe and finalized blocks, and the
// block in progress, as the writer published them together. `latest`, `pending`, `safe` and
// `finalized`, block numbers, transaction and receipt look-ups, state reads, both parts of
// eth_getLogs, the bases of eth_call, eth_estimateGas and eth_simulateV1, and the
// pre-encoded head and pending blocks all resolve against it, so no answer mixes two moments
// (see preconf.View for the guarantees this gives).
//
// On the pre-confirmed endpoint the view may also carry View.Sealing, the block sealed after
// Latest that the chain is still writing: look-ups by transaction hash consult Pending, then
// Sealing, then the chain (View.Preconfirmed); its number and hash resolve to it, answered
// as it was pre-confirmed (resolve.go); eth_getLogs adds its logs after Latest's (events' logs.go).
// `latest` stays Latest until the block is durable.
//
// Most methods are viewMethods: Service wraps them so that the view is loaded by the wrapper,
// in one place, and tests can run a method on a view of their choosing. A few load it
// themselves: eth_getTransactionByHash and eth_getTransactionCount(…, "pending") also read the
// pool, which is not part of the view (chaindata's transactions.go and nonce.go);
// eth_sendRawTransactionSync loads a new view each time it looks for its receipt; eth_call,
// eth_estimateGas and eth_simulateV1 load it where they resolve their block.

// View returns this endpoint's view now: on the pre-confirmed endpoint preconf's newest View,
// on the standard endpoint the same without the block in progress nor the sealed block the
// chain is still writing (a block shows once durable), keeping the block after Latest as
// View.Next (there `pending` is the next block as forecast: forecast.go), and without a
// Preconf (serve mode) the chain's Heads. A chain without pre-confirmations (preconf's
// View.Hidden) is shown on the pre-confirmed endpoint as on the standard one. One atomic
// load; the View is copied, not allocated.
func (c *Core) View() preconf.View {
	if c.Pre == nil {
		v := preconf.SealedView(c.Chain.Heads())
		v.Forecast = true // no pre-confirmations: `pending` is the next block on both endpoints
		return v
	}
	v := *c.Pre.View()
	if !c.Pending || v.Hidden {
		v.Forecast, v.Next = true, v.Sealing // the block after Latest, whose context `pending` forecasts (forecast.go)
		if v.Next == nil {
			v.Next = v.Pending
		}
		v.Sealing, v.Pending = nil, nil
	}
	return v
}

// WriterView returns the newest View with the block in progress on both endpoints, hidden or
// not: what a new transaction is validated against and lands in, whichever endpoint it was
// sent to. Nothing it shows beyond Latest may reach an answer but through the pool's view
// (PoolView).
func (c *Core) WriterView() preconf.View {
	if c.Pre == nil {
		return preconf.SealedView(c.Chain.Heads())
	}
	return *c.Pre.View()
}

// PoolView is what a new transaction is validated against: the block in progress of v, which
// is a WriterView (a transaction lands there whichever endpoint it was sent to), else the
// block after v's sealed head.
func (c *Core) PoolView(v preconf.View) txpool.View {
	if snap := v.Pending; snap != nil {
		read := func(fn func(*state.StateDB)) { snap.ReadState(fn) }
		return txpool.StateView(c.ChainConfig, snap.Header(), read)
	}
	head := v.Latest
	next := c.nextHeader(head)
	st, err := c.Chain.StateAt(head)
	if err != nil { // the head's state is always there (archive mode); fail closed if not
		return txpool.StateView(c.ChainConfig, next, func(func(*state.StateDB)) {})
	}
	return txpool.StateView(c.ChainConfig, next, func(fn func(*state.StateDB)) { fn(st) })
}

// ShowsPreconfirmations reports whether this endpoint shows pre-confirmed data now: it is the
// pre-confirmed endpoint of a node whose writer publishes its block in progress (not serve
// mode, nor a chain without pre-confirmations). What does not go through a view (the pool's
// transactions looked up by hash, `latest` nonces, the subscriptions' choice of events) asks
// this instead.
func (c *Core) ShowsPreconfirmations() bool {
	return c.Pending && c.Pre != nil && !c.Pre.View().Hidden
}
