package api

import (
	"context"

	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
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
// as it was pre-confirmed (resolve.go); eth_getLogs adds its logs after Latest's (logs.go).
// `latest` stays Latest until the block is durable.
//
// Most methods are viewMethods: Service wraps them so that the view is loaded by the wrapper,
// in one place, and tests can run a method on a view of their choosing. A few load it
// themselves: eth_getTransactionByHash and eth_getTransactionCount(…, "pending") also read the
// pool, which is not part of the view (transactions.go, clientcompat.go);
// eth_sendRawTransactionSync loads a new view each time it looks for its receipt; eth_call,
// eth_estimateGas and eth_simulateV1 load it where they resolve their block.

// viewMethod is a method that answers from the view v.
type viewMethod func(ctx context.Context, v preconf.View, p rpc.Params) (any, error)

// withView makes m a method that loads the endpoint's view when it is called.
func (a *API) withView(m viewMethod) rpc.Method {
	return func(ctx context.Context, p rpc.Params) (any, error) { return m(ctx, a.view(), p) }
}

// view returns this endpoint's view now: on the pre-confirmed endpoint preconf's newest View,
// on the standard endpoint the same without the block in progress nor the sealed block the
// chain is still writing (there `pending` is the sealed head, and a block shows once
// durable), and without a Preconf (serve mode) the chain's Heads. One atomic load; the View
// is copied, not allocated.
func (a *API) view() preconf.View {
	if a.pre == nil {
		return preconf.SealedView(a.chain.Heads())
	}
	v := *a.pre.View()
	if !a.cfg.Pending {
		v.Sealing, v.Pending = nil, nil
	}
	return v
}

// writerView returns the newest View with the block in progress on both endpoints: what a
// new transaction is validated against and lands in, whichever endpoint it was sent to.
func (a *API) writerView() preconf.View {
	if a.pre == nil {
		return preconf.SealedView(a.chain.Heads())
	}
	return *a.pre.View()
}
