package events

import (
	"context"
	"encoding/json"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/logs"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// The eth_subscribe kinds, all fed by the endpoint's streams (streams.go), one item per
// notification:
//
//   - newHeads: the header of each sealed block.
//   - logs [filter]: each sealed log that matches the optional filter (address and topics;
//     block range fields are ignored); logs of blocks a reorganisation removed again with
//     removed: true, and on the pre-confirmed endpoint the pre-confirmed logs a sealed block
//     retracted, with removed: true, before that block's logs.
//
// The pre-confirmed endpoint adds, in the shapes of Base's node (reference/flashblocks.md §3),
// kinds that a chain without pre-confirmations accepts and never feeds (preconf's View.Hidden:
// its writer publishes no pre-confirmation, as on Base since Denim):
//
//   - pendingLogs [filter]: each log added by the newest pre-confirmation that matches the
//     optional filter, blockHash the zero hash. When a sealed block differs from what was
//     pre-confirmed, the retracted logs come again with removed: true, then the sealed block's
//     logs that were not pre-confirmed as they are (a moved transaction's), so the stream
//     always adds up to what was sealed.
//   - newFlashblockTransactions [full]: each transaction added by the newest pre-confirmation:
//     its hash, or with full = true the transaction object (as eth_getTransactionByHash
//     returns it pre-confirmed) plus its "logs".
//   - newFlashblocks: the block in progress after each pre-confirmation, as
//     eth_getBlockByNumber("pending", true) returns it.

// subKind is a subscription kind.
type subKind uint8

const (
	subNewHeads subKind = iota
	subLogs
	subPendingLogs
	subTransactions // newFlashblockTransactions
	subBlocks       // newFlashblocks
	subPendingTxs   // newPendingTransactions (subscriptions_pending.go)
	numSubKinds
)

// subscriber is one subscription: its kind's parameters and the first event it gets.
type subscriber struct {
	crit  *logs.Criteria // logs, pendingLogs
	full  bool           // newFlashblockTransactions
	since uint64         // first event number it gets
}

// encodedLog is a log's JSON, encoded once per event for every subscriber that gets it.
type encodedLog = json.RawMessage

// register adds the endpoint's subscription kinds to a subscription table.
func (s *streams) register(kinds map[string]rpc.SubscribeFunc) {
	kinds["newHeads"] = s.subscribeNewHeads
	kinds["logs"] = s.subscribeLogs
	kinds["newPendingTransactions"] = s.subscribePendingTransactions
	if s.api.Pending && s.api.Pre != nil {
		kinds["pendingLogs"] = s.subscribePendingLogs
		kinds["newFlashblockTransactions"] = s.subscribeTransactions
		kinds["newFlashblocks"] = s.subscribeBlocks
	}
}

func (s *streams) subscribeNewHeads(ctx context.Context, p rpc.Params, sub *rpc.Subscription) error {
	if err := param.CheckCount(p, 0); err != nil {
		return err
	}
	s.add(sub, subNewHeads, &subscriber{})
	return nil
}

func (s *streams) subscribeLogs(ctx context.Context, p rpc.Params, sub *rpc.Subscription) error {
	return s.subscribeFiltered(p, sub, subLogs)
}

func (s *streams) subscribePendingLogs(ctx context.Context, p rpc.Params, sub *rpc.Subscription) error {
	return s.subscribeFiltered(p, sub, subPendingLogs)
}

// subscribeFiltered starts a logs or pendingLogs subscription with its optional filter.
func (s *streams) subscribeFiltered(p rpc.Params, sub *rpc.Subscription, kind subKind) error {
	if err := param.CheckCount(p, 1); err != nil {
		return err
	}
	crit := new(logs.Criteria)
	if _, err := param.DecodeOptional(p, 0, crit); err != nil {
		return err
	}
	s.add(sub, kind, &subscriber{crit: crit})
	return nil
}

func (s *streams) subscribeTransactions(ctx context.Context, p rpc.Params, sub *rpc.Subscription) error {
	if err := param.CheckCount(p, 1); err != nil {
		return err
	}
	var full bool
	if param.Present(p, 0) {
		var err error
		if full, err = param.DecodeBool(p, 0); err != nil {
			return err
		}
	}
	s.add(sub, subTransactions, &subscriber{full: full})
	return nil
}

func (s *streams) subscribeBlocks(ctx context.Context, p rpc.Params, sub *rpc.Subscription) error {
	if err := param.CheckCount(p, 0); err != nil {
		return err
	}
	s.add(sub, subBlocks, &subscriber{})
	return nil
}

// add registers a subscription from the next event on, and forgets it when it ends. The number
// is taken under s.mu, which the drain holds while it delivers: every event from sr.since on is
// delivered after the subscription is in the table (lock order: s.mu, then s.qmu).
func (s *streams) add(sub *rpc.Subscription, kind subKind, sr *subscriber) {
	s.mu.Lock()
	sr.since = s.next()
	if s.subs[kind] == nil {
		s.subs[kind] = make(map[*rpc.Subscription]*subscriber)
	}
	s.subs[kind][sub] = sr
	s.mu.Unlock()
	go func() {
		<-sub.Done()
		s.mu.Lock()
		delete(s.subs[kind], sub)
		s.mu.Unlock()
	}()
}

// sendHeadLocked sends a sealed block's header, event seq, to the newHeads subscribers, with
// the block's millisecond time ms when it is a Denim block. s.mu must be held.
func (s *streams) sendHeadLocked(seq uint64, h *types.Header, ms *uint64) {
	var header json.RawMessage
	for sub, sr := range s.subs[subNewHeads] {
		if sr.since > seq {
			continue
		}
		if header == nil {
			header = ethjson.AppendHeaderMs(nil, h, ms)
		}
		sub.Notify(header)
	}
}

// sendLogsLocked sends each log of list to every subscriber of kind (logs or pendingLogs)
// whose filter matches it and that began before event seq, one log per notification, in
// order. enc holds the logs' encodings, shared with another call for the same list; nil
// means this call's own. ms gives sealed logs their block's millisecond time; nil for
// pre-confirmed logs. s.mu must be held.
func (s *streams) sendLogsLocked(seq uint64, list []*types.Log, kind subKind, enc []encodedLog, ms *sealedMs) {
	if len(list) == 0 || len(s.subs[kind]) == 0 {
		return
	}
	if enc == nil {
		enc = make([]encodedLog, len(list))
	}
	for sub, sr := range s.subs[kind] {
		if sr.since > seq {
			continue
		}
		for i, l := range list {
			if !sr.crit.Match(l) {
				continue
			}
			if enc[i] == nil {
				enc[i] = ethjson.AppendLogMs(nil, l, ms.of(l))
			}
			sub.Notify(enc[i])
		}
	}
}

// sendTransactionsLocked sends a pre-confirmation's new transactions to the
// newFlashblockTransactions subscribers, as hashes or full objects. s.mu must be held.
func (s *streams) sendTransactionsLocked(seq uint64, snap *preconf.Snapshot) {
	if len(s.subs[subTransactions]) == 0 {
		return
	}
	added := len(snap.Block.Transactions()) - snap.FirstNew
	hashes := make([]json.RawMessage, added)
	full := make([]json.RawMessage, added)
	for sub, sr := range s.subs[subTransactions] {
		if sr.since > seq {
			continue
		}
		for k := range added {
			i := snap.FirstNew + k
			if !sr.full {
				if hashes[k] == nil {
					hashes[k] = ethjson.AppendHash(nil, snap.Block.Transactions()[i].Hash())
				}
				sub.Notify(hashes[k])
				continue
			}
			if full[k] == nil {
				full[k] = transactionWithLogs(snap, i, s.api)
			}
			sub.Notify(full[k])
		}
	}
}

// sendFlashblockLocked sends the block in progress at snap to the newFlashblocks subscribers,
// as eth_getBlockByNumber("pending", true) answers it (and from the same cache while snap is
// the newest pre-confirmation). s.mu must be held.
func (s *streams) sendFlashblockLocked(seq uint64, snap *preconf.Snapshot) {
	var block json.RawMessage
	for sub, sr := range s.subs[subBlocks] {
		if sr.since > seq {
			continue
		}
		if block == nil {
			block = s.api.PendingBlockJSON(snap, true)
		}
		sub.Notify(block)
	}
}

// transactionWithLogs is pre-confirmed transaction i as eth_getTransactionByHash returns it,
// with its receipt's logs added as "logs" (Base's TransactionWithLogs).
func transactionWithLogs(snap *preconf.Snapshot, i int, a *API) json.RawMessage {
	tx := a.PendingTxJSON(snap, i)
	out := append(tx[:len(tx)-1], `,"logs":`...) // PendingTxJSON returns a fresh slice
	out = ethjson.AppendLogs(out, snap.Receipts[i].Logs)
	return append(out, '}')
}
