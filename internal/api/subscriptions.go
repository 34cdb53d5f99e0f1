package api

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/logs"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// hub fans sealed-chain events out to WebSocket subscriptions. It runs on the chain's inserting
// goroutine; rpc.Subscription.Notify never blocks (a subscriber that cannot keep up is
// disconnected by the transport), so a slow client never delays sealing or other subscribers.
type hub struct {
	api *API

	mu    sync.Mutex // guards heads and logs
	heads map[*rpc.Subscription]struct{}
	logs  map[*rpc.Subscription]*logs.Criteria
}

func newHub(a *API) *hub {
	return &hub{api: a, heads: make(map[*rpc.Subscription]struct{}), logs: make(map[*rpc.Subscription]*logs.Criteria)}
}

func (h *hub) subscribeNewHeads(ctx context.Context, p rpc.Params, sub *rpc.Subscription) error {
	if err := checkCount(p, 0); err != nil {
		return err
	}
	h.mu.Lock()
	h.heads[sub] = struct{}{}
	h.mu.Unlock()
	go h.forget(sub)
	return nil
}

func (h *hub) subscribeLogs(ctx context.Context, p rpc.Params, sub *rpc.Subscription) error {
	if err := checkCount(p, 1); err != nil {
		return err
	}
	crit := new(logs.Criteria)
	if _, err := decodeOptional(p, 0, crit); err != nil {
		return err
	}
	h.mu.Lock()
	h.logs[sub] = crit
	h.mu.Unlock()
	go h.forget(sub)
	return nil
}

// forget drops a subscription once it ends.
func (h *hub) forget(sub *rpc.Subscription) {
	<-sub.Done()
	h.mu.Lock()
	delete(h.heads, sub)
	delete(h.logs, sub)
	h.mu.Unlock()
}

// onHead publishes a sealed block: its header to newHeads, its matching logs, one per
// notification, to logs subscribers.
func (h *hub) onHead(ev chain.HeadEvent) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.heads) > 0 {
		header := json.RawMessage(ethjson.AppendHeader(nil, ev.Block.Header()))
		for sub := range h.heads {
			sub.Notify(header)
		}
	}
	if len(h.logs) == 0 {
		return
	}
	var all []*types.Log
	for _, r := range ev.Receipts {
		all = append(all, r.Logs...)
	}
	encoded := make([]json.RawMessage, len(all))
	for sub, crit := range h.logs {
		for i, l := range all {
			if !crit.Match(l) {
				continue
			}
			if encoded[i] == nil {
				encoded[i] = ethjson.AppendLog(nil, l)
			}
			sub.Notify(encoded[i])
		}
	}
}
