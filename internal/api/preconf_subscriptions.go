package api

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/logs"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// The pre-confirmation subscriptions of the pre-confirmed endpoint, in the shapes of Base's
// node (reference/flashblocks.md §3), one item per notification:
//
//   - pendingLogs [filter]: each log added by the newest pre-confirmation that matches the
//     optional filter (address and topics; block range fields are ignored), blockHash the zero
//     hash. When a sealed block differs from what was pre-confirmed, the retracted logs come
//     again with removed: true, then the sealed block's logs that were not pre-confirmed as
//     they are (a moved transaction's), so the stream always adds up to what was sealed.
//   - newFlashblockTransactions [full]: each transaction added by the newest pre-confirmation:
//     its hash, or with full = true the transaction object (as eth_getTransactionByHash
//     returns it pre-confirmed) plus its "logs".
//   - newFlashblocks: the block in progress after each pre-confirmation, as
//     eth_getBlockByNumber("pending", true) returns it.
//
// preconfHub's listeners (OnSnapshot, OnRetract) run on preconf's writer goroutine and only
// queue the event: one drainer goroutine at a time encodes and sends them, in order, so the
// sequencer and the flashblocks feed never wait for the fan-out. Notify never blocks either: a
// subscriber whose connection queue is full is disconnected by the transport with a logged
// reason, so a slow client delays nobody. Each item is encoded once, when the first subscriber
// needs it, and the cheap kinds go out first (logs, transactions, then whole blocks). Events are
// numbered as they are queued, and a subscription gets only the events queued after it began.
type preconfHub struct {
	api *API

	mu   sync.Mutex                    // guards subs; held by the drainer while it sends
	subs map[*rpc.Subscription]*hubSub // every live subscription of the three kinds

	qmu      sync.Mutex // guards seq, queue and draining; never held while sending
	seq      uint64     // number of the last event queued
	queue    []hubEvent // oldest first
	draining bool       // a drainer goroutine is running
}

// hubSub is one subscription: its kind's parameters and the first event it gets.
type hubSub struct {
	kind  string
	crit  *logs.Criteria // pendingLogs
	full  bool           // newFlashblockTransactions
	since uint64         // first event number sent to it
}

// hubEvent is a *preconf.Snapshot or a *preconf.Retraction with its number.
type hubEvent struct {
	seq uint64
	ev  any
}

func newPreconfHub(a *API) *preconfHub {
	return &preconfHub{api: a, subs: make(map[*rpc.Subscription]*hubSub)}
}

// register adds the pre-confirmation subscription kinds to a subscription table.
func (h *preconfHub) register(kinds map[string]rpc.SubscribeFunc) {
	kinds["pendingLogs"] = h.subscribePendingLogs
	kinds["newFlashblockTransactions"] = h.subscribeTransactions
	kinds["newFlashblocks"] = h.subscribeBlocks
}

func (h *preconfHub) subscribePendingLogs(ctx context.Context, p rpc.Params, sub *rpc.Subscription) error {
	if err := checkCount(p, 1); err != nil {
		return err
	}
	crit := new(logs.Criteria)
	if _, err := decodeOptional(p, 0, crit); err != nil {
		return err
	}
	h.add(sub, &hubSub{kind: "pendingLogs", crit: crit})
	return nil
}

func (h *preconfHub) subscribeTransactions(ctx context.Context, p rpc.Params, sub *rpc.Subscription) error {
	if err := checkCount(p, 1); err != nil {
		return err
	}
	var full bool
	if present(p, 0) {
		var err error
		if full, err = decodeBool(p, 0); err != nil {
			return err
		}
	}
	h.add(sub, &hubSub{kind: "newFlashblockTransactions", full: full})
	return nil
}

func (h *preconfHub) subscribeBlocks(ctx context.Context, p rpc.Params, sub *rpc.Subscription) error {
	if err := checkCount(p, 0); err != nil {
		return err
	}
	h.add(sub, &hubSub{kind: "newFlashblocks"})
	return nil
}

// add registers a subscription from the next event on, and forgets it when it ends.
func (h *preconfHub) add(sub *rpc.Subscription, hs *hubSub) {
	h.qmu.Lock()
	hs.since = h.seq + 1
	h.qmu.Unlock()
	h.mu.Lock()
	h.subs[sub] = hs
	h.mu.Unlock()
	go func() {
		<-sub.Done()
		h.mu.Lock()
		delete(h.subs, sub)
		h.mu.Unlock()
	}()
}

// onSnapshot queues one pre-confirmation for the subscribers; preconf's writer calls it.
func (h *preconfHub) onSnapshot(snap *preconf.Snapshot) { h.enqueue(snap) }

// onRetract tells the endpoint's logs subscribers at once (before the sealed block's logs, which
// the chain announces next) and queues the retraction for pendingLogs subscribers, after the
// pre-confirmations they have not been sent yet.
func (h *preconfHub) onRetract(r *preconf.Retraction) {
	h.api.subs.notifyLogs(r.Removed)
	h.enqueue(r)
}

// enqueue numbers and queues an event and starts a drainer unless one is running. It never
// waits.
func (h *preconfHub) enqueue(ev any) {
	h.qmu.Lock()
	defer h.qmu.Unlock()
	h.seq++
	h.queue = append(h.queue, hubEvent{seq: h.seq, ev: ev})
	if !h.draining {
		h.draining = true
		go h.drain()
	}
}

// drain sends queued events in order until the queue is empty.
func (h *preconfHub) drain() {
	for {
		h.qmu.Lock()
		if len(h.queue) == 0 {
			h.draining = false
			h.queue = nil
			h.qmu.Unlock()
			return
		}
		e := h.queue[0]
		h.queue = h.queue[1:]
		h.qmu.Unlock()
		h.mu.Lock()
		switch ev := e.ev.(type) {
		case *preconf.Snapshot:
			h.sendSnapshot(e.seq, ev)
		case *preconf.Retraction:
			h.sendLogs(e.seq, ev.Removed)
			h.sendLogs(e.seq, ev.Added)
		}
		h.mu.Unlock()
	}
}

// sendSnapshot sends one pre-confirmation, event number seq, to the subscribers that began
// before it. h.mu must be held.
func (h *preconfHub) sendSnapshot(seq uint64, snap *preconf.Snapshot) {
	if added := len(snap.Block.Transactions()) - snap.FirstNew; added > 0 {
		var newLogs []*types.Log
		for _, r := range snap.Receipts[snap.FirstNew:] {
			newLogs = append(newLogs, r.Logs...)
		}
		h.sendLogs(seq, newLogs)
		h.sendTransactions(seq, snap, added)
	}
	var block json.RawMessage
	for sub, hs := range h.subs {
		if hs.kind != "newFlashblocks" || hs.since > seq {
			continue
		}
		if block == nil {
			block = flashblockJSON(snap, h.api)
		}
		sub.Notify(block)
	}
}

// flashblockJSON is the block in progress at snap, as eth_getBlockByNumber("pending", true)
// answers it. While snap is the newest snapshot the encoding is shared with that method's cache;
// an older one (the drainer is behind) is encoded without replacing the cache's newer entry.
func flashblockJSON(snap *preconf.Snapshot, a *API) json.RawMessage {
	if a.pre.Current() == snap {
		return a.pendingBlockJSON(snap, true)
	}
	hash := snap.Block.Hash()
	return ethjson.AppendBlock(nil, snap.Block, true, a.config, ethjson.BlockOptions{Hash: &hash, InProgress: true, Receipts: snap.Receipts})
}

// sendTransactions sends the snapshot's new transactions, as hashes or full objects. h.mu must
// be held.
func (h *preconfHub) sendTransactions(seq uint64, snap *preconf.Snapshot, added int) {
	hashes := make([]json.RawMessage, added)
	full := make([]json.RawMessage, added)
	for sub, hs := range h.subs {
		if hs.kind != "newFlashblockTransactions" || hs.since > seq {
			continue
		}
		for k := range added {
			i := snap.FirstNew + k
			if !hs.full {
				if hashes[k] == nil {
					hashes[k] = ethjson.AppendHash(nil, snap.Block.Transactions()[i].Hash())
				}
				sub.Notify(hashes[k])
				continue
			}
			if full[k] == nil {
				full[k] = transactionWithLogs(snap, i, h.api)
			}
			sub.Notify(full[k])
		}
	}
}

// transactionWithLogs is pre-confirmed transaction i as eth_getTransactionByHash returns it,
// with its receipt's logs added as "logs" (Base's TransactionWithLogs).
func transactionWithLogs(snap *preconf.Snapshot, i int, a *API) json.RawMessage {
	tx := pendingTxJSON(snap, i, a)
	out := append(tx[:len(tx)-1], `,"logs":`...) // pendingTxJSON returns a fresh slice
	out = ethjson.AppendLogs(out, snap.Receipts[i].Logs)
	return append(out, '}')
}

// sendLogs sends each log to every pendingLogs subscriber whose filter matches it, one log per
// notification, in order. h.mu must be held.
func (h *preconfHub) sendLogs(seq uint64, list []*types.Log) {
	if len(list) == 0 {
		return
	}
	encoded := make([]json.RawMessage, len(list))
	for sub, hs := range h.subs {
		if hs.kind != "pendingLogs" || hs.since > seq {
			continue
		}
		for i, l := range list {
			if !hs.crit.Match(l) {
				continue
			}
			if encoded[i] == nil {
				encoded[i] = ethjson.AppendLog(nil, l)
			}
			sub.Notify(encoded[i])
		}
	}
}

// notifyLogs sends logs that are not part of a new sealed head (retracted pre-confirmed logs,
// logs of blocks a reorganisation removed) to the logs subscribers whose filter matches them,
// one per notification, in order.
func (h *hub) notifyLogs(list []*types.Log) {
	if len(list) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	encoded := make([]json.RawMessage, len(list))
	for sub, crit := range h.logs {
		for i, l := range list {
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
