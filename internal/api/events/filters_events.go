package events

import (
	"encoding/json"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// What each stream event (streams.go) adds to the polling filters (filters.go). The drain
// calls deliverFilters for every event, in order, after the subscriptions got it; each item
// is encoded once for all the filters that take it.

// deliverFilters adds ev to the filters installed before it; expired filters are removed
// first. It runs on the drain goroutine with s.mu held.
func (s *streams) deliverFilters(ev *event) {
	a := s.api
	ft := a.filters
	ft.mu.Lock()
	defer ft.mu.Unlock()
	ft.sweepLocked(ft.now())
	if len(ft.byID) == 0 {
		return
	}
	switch ev.kind {
	case eventHead:
		block := ev.head.Block
		hash := json.RawMessage(ethjson.AppendHash(nil, block.Hash()))
		var sealed []*types.Log
		for _, r := range ev.head.Receipts {
			sealed = append(sealed, r.Logs...)
		}
		logEnc := make([]json.RawMessage, len(sealed))
		txs := newTxEncoder(a, block, nil)
		for _, f := range ft.byID {
			if f.since > ev.seq {
				continue
			}
			switch {
			case f.kind == filterBlocks:
				ft.addLocked(f, hash)
			case f.kind == filterLogs && !f.pending:
				ft.addLogsLocked(f, sealed, logEnc, &sealedMs{c: a.Chain})
			case f.kind == filterTransactions && !a.ShowsPreconfirmations():
				for i, tx := range block.Transactions() {
					if announced(tx) {
						ft.addLocked(f, txs.get(i, f.fullTx))
					}
				}
			}
		}
	case eventReorg:
		enc := make([]json.RawMessage, len(ev.removed))
		for _, f := range ft.byID {
			if f.since <= ev.seq && f.kind == filterLogs {
				ft.addLogsLocked(f, ev.removed, enc, &sealedMs{c: a.Chain})
			}
		}
	case eventSnapshot:
		snap := ev.snap
		added := len(snap.Block.Transactions()) - snap.FirstNew
		if added == 0 {
			return
		}
		var newLogs []*types.Log
		for _, r := range snap.Receipts[snap.FirstNew:] {
			newLogs = append(newLogs, r.Logs...)
		}
		logEnc := make([]json.RawMessage, len(newLogs))
		txs := newTxEncoder(a, snap.Block, snap)
		for _, f := range ft.byID {
			if f.since > ev.seq {
				continue
			}
			switch {
			case f.kind == filterLogs && f.pending:
				ft.addLogsLocked(f, newLogs, logEnc, nil)
			case f.kind == filterTransactions:
				for i := snap.FirstNew; i < len(snap.Block.Transactions()); i++ {
					if !announced(snap.Block.Transactions()[i]) {
						continue
					}
					ft.addLocked(f, txs.get(i, f.fullTx))
				}
			}
		}
	case eventRetraction:
		removed := make([]json.RawMessage, len(ev.retract.Removed))
		added := make([]json.RawMessage, len(ev.retract.Added))
		for _, f := range ft.byID {
			if f.since <= ev.seq && f.kind == filterLogs && f.pending {
				ft.addLogsLocked(f, ev.retract.Removed, removed, nil)
				ft.addLogsLocked(f, ev.retract.Added, added, nil)
			}
		}
	}
}

// addLogsLocked adds the logs of list that f selects, encoding each (into enc, shared by the
// filters of one event) the first time a filter takes it. ft.mu must be held.
func (ft *filterTable) addLogsLocked(f *pollFilter, list []*types.Log, enc []json.RawMessage, ms *sealedMs) {
	for i, l := range list {
		if (f.from >= 0 && l.BlockNumber < uint64(f.from)) || (f.to >= 0 && l.BlockNumber > uint64(f.to)) || !f.crit.Match(l) {
			continue
		}
		if enc[i] == nil {
			enc[i] = ethjson.AppendLogMs(nil, l, ms.of(l))
		}
		ft.addLocked(f, enc[i])
	}
}

// addLocked adds one change to f, unless f already holds as much as a filter may: then f is
// marked overflowed and its changes dropped (its next poll says so). ft.mu must be held.
func (ft *filterTable) addLocked(f *pollFilter, item json.RawMessage) {
	if f.overflow {
		return
	}
	if f.bytes+len(item) > ft.maxBytes {
		f.overflow, f.changes, f.bytes = true, nil, 0
		return
	}
	f.changes = append(f.changes, item)
	f.bytes += len(item) + 1
}

// txEncoder encodes a block's transactions for the transaction filters, each once: as a hash
// or as the object eth_getTransactionByHash answers (sealed, or pre-confirmed when snap is
// set).
type txEncoder struct {
	a            *API
	block        *types.Block
	snap         *preconf.Snapshot
	hashes, full []json.RawMessage
}

func newTxEncoder(a *API, block *types.Block, snap *preconf.Snapshot) *txEncoder {
	n := len(block.Transactions())
	return &txEncoder{a: a, block: block, snap: snap, hashes: make([]json.RawMessage, n), full: make([]json.RawMessage, n)}
}

func (e *txEncoder) get(i int, full bool) json.RawMessage {
	if !full {
		if e.hashes[i] == nil {
			e.hashes[i] = ethjson.AppendHash(nil, e.block.Transactions()[i].Hash())
		}
		return e.hashes[i]
	}
	if e.full[i] == nil {
		if e.snap != nil {
			e.full[i] = e.a.PendingTxJSON(e.snap, i)
		} else {
			tx := e.block.Transactions()[i]
			e.full[i] = ethjson.AppendTransaction(nil, tx, e.a.SealedLocation(e.block.Header(), uint64(i), tx), e.a.ChainConfig)
		}
	}
	return e.full[i]
}
