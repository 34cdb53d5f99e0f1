package events

import (
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// streams is the endpoint's one fan-out of what the writers publish: sealed blocks and
// reorganisations (chain), pre-confirmations and retractions (preconf, pre-confirmed
// endpoint only). It feeds every subscription kind (subscriptions.go) and the waits of
// eth_sendRawTransactionSync, the same way:
//
//   - the listeners run on the writers' goroutines and only queue the event, numbered; they
//     never wait, so the sequencer, the chain and the flashblocks feed never wait for
//     subscribers;
//   - one drain goroutine at a time takes the events in order and hands each to the
//     subscriptions and waits that began before it was queued (a subscription gets only the
//     events after it began); within an event, waits are woken first, then logs, transactions
//     and headers go out, then whole blocks;
//   - each item (a log, a header, a transaction, a block) is encoded once, when the first
//     subscription that needs it is served, and sent with rpc.Subscription.Notify, which never
//     blocks: a subscriber whose connection cannot keep up is disconnected by the transport
//     with a logged reason, so a slow client delays nobody.
//
// The writers publish the View that shows an event before they call the listeners, so a
// notified client, or a woken wait, that reads at once sees what it was told of.
type streams struct {
	api *API

	qmu      sync.Mutex // guards seq, queue and draining; never held while sending
	seq      uint64     // number of the last event queued
	queue    []event    // oldest first
	draining bool       // a drain goroutine is running

	mu    sync.Mutex                                     // guards subs and waits; held by the drain while it sends
	subs  [numSubKinds]map[*rpc.Subscription]*subscriber // by kind (subscriptions.go)
	waits map[common.Hash][]*syncWait
}

// eventKind says which of event's fields is set.
type eventKind uint8

const (
	eventHead       eventKind = iota // a sealed block became the head
	eventReorg                       // sealed blocks left the canonical chain
	eventSnapshot                    // a pre-confirmation
	eventRetraction                  // a sealed block differs from what was pre-confirmed
)

// event is one publication of a writer, numbered in queueing order.
type event struct {
	seq     uint64
	kind    eventKind
	head    chain.HeadEvent     // eventHead
	removed []*types.Log        // eventReorg: the dropped blocks' logs, Removed set
	snap    *preconf.Snapshot   // eventSnapshot
	retract *preconf.Retraction // eventRetraction
}

// syncWait is one eth_sendRawTransactionSync waiting for its transaction: wake gets a token
// when an event that began after the wait shows the transaction.
type syncWait struct {
	wake  chan struct{} // one token
	since uint64        // first event number that counts
}

// startStreams connects the endpoint's streams to the writers: the chain on both endpoints
// (newHeads, logs, and sync sends waiting for a sealed receipt), preconf on the pre-confirmed
// one (the pre-confirmation kinds, retractions for logs subscribers, and sync sends waiting
// for a pre-confirmed receipt).
func (a *API) startStreams() {
	s := &streams{api: a, waits: make(map[common.Hash][]*syncWait)}
	a.streams = s
	a.Chain.OnHead(func(ev chain.HeadEvent) { s.enqueue(event{kind: eventHead, head: ev}) })
	a.Chain.OnReorg(func(ev chain.ReorgEvent) { s.enqueue(event{kind: eventReorg, removed: ev.Removed}) })
	if !a.Pending || a.Pre == nil {
		return
	}
	a.Pre.OnSnapshot(func(snap *preconf.Snapshot) { s.enqueue(event{kind: eventSnapshot, snap: snap}) })
	a.Pre.OnRetract(func(r *preconf.Retraction) { s.enqueue(event{kind: eventRetraction, retract: r}) })
}

// next returns the number the next event will get: a subscription or wait that begins now
// gets the events from it on.
func (s *streams) next() uint64 {
	s.qmu.Lock()
	defer s.qmu.Unlock()
	return s.seq + 1
}

// Drained reports whether every event queued so far has been delivered: a test that drove a
// writer waits for it before it polls what the event fed.
func (a *API) Drained() bool {
	s := a.streams
	s.qmu.Lock()
	defer s.qmu.Unlock()
	return !s.draining && len(s.queue) == 0
}

// enqueue numbers and queues an event and starts a drain unless one is running. It never
// waits for subscribers.
func (s *streams) enqueue(ev event) {
	s.qmu.Lock()
	defer s.qmu.Unlock()
	s.seq++
	ev.seq = s.seq
	s.queue = append(s.queue, ev)
	if !s.draining {
		s.draining = true
		go s.drain()
	}
}

// drain delivers queued events in order until the queue is empty.
func (s *streams) drain() {
	for {
		s.qmu.Lock()
		if len(s.queue) == 0 {
			s.draining = false
			s.queue = nil
			s.qmu.Unlock()
			return
		}
		ev := s.queue[0]
		s.queue[0] = event{} // let the event's blocks go once delivered
		s.queue = s.queue[1:]
		s.qmu.Unlock()
		s.mu.Lock()
		s.deliverLocked(&ev)
		s.mu.Unlock()
	}
}

// deliverLocked hands one event to the waits and subscriptions that began before it. s.mu
// must be held.
func (s *streams) deliverLocked(ev *event) {
	switch ev.kind {
	case eventHead:
		s.wakeLocked(ev.seq, ev.head.Block.Transactions())
		s.sendHeadLocked(ev.seq, ev.head.Block.Header(), chain.BlockTimeMs(ev.head.Block))
		var sealed []*types.Log
		for _, r := range ev.head.Receipts {
			sealed = append(sealed, r.Logs...)
		}
		s.sendLogsLocked(ev.seq, sealed, subLogs, nil, &sealedMs{c: s.api.Chain})
	case eventReorg:
		s.sendLogsLocked(ev.seq, ev.removed, subLogs, nil, &sealedMs{c: s.api.Chain})
	case eventSnapshot:
		snap := ev.snap
		added := snap.Block.Transactions()[snap.FirstNew:]
		s.wakeLocked(ev.seq, added)
		if len(added) > 0 {
			var newLogs []*types.Log
			for _, r := range snap.Receipts[snap.FirstNew:] {
				newLogs = append(newLogs, r.Logs...)
			}
			s.sendLogsLocked(ev.seq, newLogs, subPendingLogs, nil, nil)
			s.sendTransactionsLocked(ev.seq, snap)
		}
		s.sendFlashblockLocked(ev.seq, snap)
	case eventRetraction:
		// The retracted logs go to logs subscribers (before the sealed block's logs, which
		// the chain's event brings next) and to pendingLogs subscribers, encoded once for
		// both; pendingLogs subscribers then get the sealed logs that were not pre-confirmed
		// as they are, so their stream adds up to what was sealed.
		removed := ev.retract.Removed
		enc := make([]encodedLog, len(removed))
		s.sendLogsLocked(ev.seq, removed, subLogs, enc, nil)
		s.sendLogsLocked(ev.seq, removed, subPendingLogs, enc, nil)
		s.sendLogsLocked(ev.seq, ev.retract.Added, subPendingLogs, nil, nil)
	}
	s.deliverSurface(ev) // newPendingTransactions and the polling filters, subscriptions_pending.go
}

// wait registers an eth_sendRawTransactionSync wait for hash, from the next event on.
func (s *streams) wait(hash common.Hash) *syncWait {
	s.mu.Lock() // held while numbering, as in add
	defer s.mu.Unlock()
	w := &syncWait{wake: make(chan struct{}, 1), since: s.next()}
	s.waits[hash] = append(s.waits[hash], w)
	return w
}

// unwait ends a wait.
func (s *streams) unwait(hash common.Hash, w *syncWait) {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := s.waits[hash]
	for i, x := range list {
		if x == w {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(s.waits, hash)
	} else {
		s.waits[hash] = list
	}
}

// wakeLocked gives a token to every wait, begun before event seq, for one of txs. s.mu must
// be held.
func (s *streams) wakeLocked(seq uint64, txs []*types.Transaction) {
	if len(s.waits) == 0 {
		return
	}
	for _, tx := range txs {
		for _, w := range s.waits[tx.Hash()] {
			if w.since > seq {
				continue
			}
			select {
			case w.wake <- struct{}{}:
			default:
			}
		}
	}
}
