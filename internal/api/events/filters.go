package events

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/logs"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// Polling filters, as go-ethereum has them: eth_newFilter (logs), eth_newBlockFilter (sealed
// block hashes), eth_newPendingTransactionFilter (transaction hashes, or objects with true),
// eth_getFilterChanges (what arrived since the last poll), eth_getFilterLogs (a log filter's
// query, run now, as eth_getLogs) and eth_uninstallFilter. A filter that is not polled for
// FilterTimeout (5 minutes) expires; an unknown or expired id is go-ethereum's -32000 "filter
// not found".
//
// Filters are fed by the endpoint's one fan-out (streams.go, filters_events.go), like the
// subscriptions: a filter gets what is published after it is installed. On the standard
// endpoint they see sealed data only: log filters the sealed blocks' logs (and, as in
// go-ethereum, the logs of blocks a reorganisation removes, with removed: true),
// pending-transaction filters the transactions of each sealed block (nothing is pending
// there). On the pre-confirmed endpoint a log filter whose range reaches `pending` (toBlock
// pending, or no toBlock: ethers' contract.on installs filters without a range, and on this
// endpoint pending is the point; an explicit latest keeps it sealed) gets the
// pre-confirmed logs as they arrive, as the pendingLogs subscription does: a sealed block's
// logs come only when they differ from what was pre-confirmed, after the retracted ones,
// which come once with removed: true; and a pending-transaction filter gets each transaction
// when it is pre-confirmed. go-ethereum refuses a log filter reaching `pending` ("pending logs
// are not supported"); here it is the point of the pre-confirmed endpoint.
//
// Memory is bounded: a node keeps at most FilterSlots filters, both endpoints together, and
// a filter at most FilterMaxBytes of changes not yet polled; a filter that would hold more is
// removed, and its next poll answers -32005 saying so (then "filter not found").

// Defaults of the filter limits.
const (
	// DefaultFilterTimeout is how long a filter lives without being polled, go-ethereum's.
	DefaultFilterTimeout = 5 * time.Minute
	// DefaultFiltersMax is the most filters a node keeps, both endpoints together.
	DefaultFiltersMax = 1000
	// DefaultFilterMaxBytes is the most changes, in bytes of JSON, a filter holds between
	// polls: thousands of logs, tens of thousands of hashes.
	DefaultFilterMaxBytes = 1 << 20
)

// FilterSlots bounds the polling filters of a node, shared by its endpoints. It is safe for
// concurrent use.
type FilterSlots struct {
	max  int64
	used atomic.Int64
}

// NewFilterSlots returns room for max filters (0 means DefaultFiltersMax).
func NewFilterSlots(max int) *FilterSlots {
	if max <= 0 {
		max = DefaultFiltersMax
	}
	return &FilterSlots{max: int64(max)}
}

// take reserves a slot; false when all are in use.
func (s *FilterSlots) take() bool {
	if s.used.Add(1) > s.max {
		s.used.Add(-1)
		return false
	}
	return true
}

func (s *FilterSlots) give() { s.used.Add(-1) }

// filterKind is what a filter collects.
type filterKind uint8

const (
	filterLogs filterKind = iota
	filterBlocks
	filterTransactions
)

// pollFilter is one installed filter. Its fields other than the changes are set at install
// and not modified.
type pollFilter struct {
	id      string
	kind    filterKind
	crit    logs.Criteria // log filters: as given (eth_getFilterLogs runs it)
	from    int64         // log filters: lowest block number of a change, -1 for none
	to      int64         // log filters: highest block number of a change, -1 for none
	pending bool          // log filters: the range reaches the block in progress (pre-confirmed endpoint)
	fullTx  bool          // transaction filters: objects instead of hashes
	since   uint64        // first stream event it gets

	// guarded by filterTable.mu
	deadline time.Time         // expires unless polled before
	changes  []json.RawMessage // encoded, oldest first
	bytes    int               // total length of changes
	overflow bool              // more than the table's maxBytes were not polled
}

// filterTable holds an endpoint's filters. Its lock is taken after streams.mu by the drain
// (filters_events.go), and by the methods before streams.qmu (installFilter); the drain never
// holds it while it takes qmu.
type filterTable struct {
	slots    *FilterSlots
	timeout  time.Duration
	maxBytes int
	now      func() time.Time

	mu   sync.Mutex // guards byID and the filters' changes
	byID map[string]*pollFilter
}

func newFilterTable(cfg Config, slots *FilterSlots) *filterTable {
	ft := &filterTable{slots: slots, timeout: cfg.FilterTimeout, maxBytes: cfg.FilterMaxBytes, now: cfg.Now, byID: make(map[string]*pollFilter)}
	if ft.slots == nil {
		ft.slots = NewFilterSlots(0)
	}
	if ft.timeout <= 0 {
		ft.timeout = DefaultFilterTimeout
	}
	if ft.maxBytes <= 0 {
		ft.maxBytes = DefaultFilterMaxBytes
	}
	if ft.now == nil {
		ft.now = time.Now
	}
	return ft
}

// install adds f, numbered from the streams' next event, and returns its id.
func (a *API) installFilter(f *pollFilter) (any, error) {
	ft := a.filters
	if !ft.slots.take() {
		return nil, core.ErrTooManyFilters(ft.slots.max, ft.timeout)
	}
	f.id = newFilterID()
	ft.mu.Lock()
	defer ft.mu.Unlock()
	// Numbered under ft.mu, which the drain needs to hand an event to the filters: every event
	// from f.since on is delivered after f is in the table.
	f.since = a.streams.next()
	now := ft.now()
	ft.sweepLocked(now)
	f.deadline = now.Add(ft.timeout)
	ft.byID[f.id] = f
	return f.id, nil
}

// sweepLocked removes the filters that expired by now. ft.mu must be held.
func (ft *filterTable) sweepLocked(now time.Time) {
	for id, f := range ft.byID {
		if now.After(f.deadline) {
			ft.removeLocked(id)
		}
	}
}

func (ft *filterTable) removeLocked(id string) {
	if _, ok := ft.byID[id]; ok {
		delete(ft.byID, id)
		ft.slots.give()
	}
}

// newFilterID returns a filter id as go-ethereum makes them: 16 random bytes as a hex
// quantity.
func newFilterID() string {
	var b [16]byte
	rand.Read(b[:])
	s := strings.TrimLeft(hex.EncodeToString(b[:]), "0")
	if s == "" {
		s = "0"
	}
	return "0x" + s
}

// NewFilter answers eth_newFilter.
func (a *API) NewFilter(ctx context.Context, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 1); err != nil {
		return nil, err
	}
	f := &pollFilter{kind: filterLogs, from: -1, to: -1}
	if err := param.DecodeArg(p, 0, &f.crit); err != nil {
		return nil, err
	}
	if err := a.filterRange(f); err != nil {
		return nil, err
	}
	return a.installFilter(f)
}

// filterRange sets a log filter's bounds from its criteria, with go-ethereum's rules: from
// and to each a number, latest or earliest (0), from at most to. On the pre-confirmed
// endpoint of a chain with pre-confirmations `pending`, or no toBlock, makes it a filter of
// pre-confirmed logs; elsewhere pending is latest. A blockHash is ignored for changes, as in go-ethereum (eth_getFilterLogs
// uses it).
func (a *API) filterRange(f *pollFilter) error {
	bound := func(b *gethrpc.BlockNumber) (n int64, pending, ok bool) {
		if b == nil {
			return -1, false, true
		}
		switch *b {
		case gethrpc.LatestBlockNumber:
			return -1, false, true
		case gethrpc.PendingBlockNumber:
			return -1, true, true
		case gethrpc.EarliestBlockNumber:
			return 0, false, true
		}
		if *b < 0 {
			return 0, false, false // safe, finalized: not a live range, as in go-ethereum
		}
		return int64(*b), false, true
	}
	from, pendingFrom, okFrom := bound(f.crit.FromBlock)
	to, pendingTo, okTo := bound(f.crit.ToBlock)
	if !okFrom || !okTo || (to >= 0 && (from < 0 || from > to)) {
		return core.ErrFilterRange()
	}
	f.from, f.to = from, to
	// Without a toBlock, a filter of the pre-confirmed endpoint reaches pending: clients that
	// install filters for their users (ethers' contract.on) pass no range at all.
	f.pending = (pendingFrom || pendingTo || f.crit.ToBlock == nil) && a.ShowsPreconfirmations()
	return nil
}

// NewBlockFilter answers eth_newBlockFilter.
func (a *API) NewBlockFilter(ctx context.Context, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 0); err != nil {
		return nil, err
	}
	return a.installFilter(&pollFilter{kind: filterBlocks})
}

// NewPendingTransactionFilter answers eth_newPendingTransactionFilter.
func (a *API) NewPendingTransactionFilter(ctx context.Context, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 1); err != nil {
		return nil, err
	}
	f := &pollFilter{kind: filterTransactions}
	if param.Present(p, 0) {
		full, err := param.DecodeBool(p, 0)
		if err != nil {
			return nil, err
		}
		f.fullTx = full
	}
	return a.installFilter(f)
}

// decodeFilterID decodes the filter id, parameter 0.
func decodeFilterID(p rpc.Params) (string, error) {
	if err := param.CheckCount(p, 1); err != nil {
		return "", err
	}
	if !param.Present(p, 0) {
		return "", param.Missing(0)
	}
	id, err := param.JSONString(p.At(0), `a filter id such as "0x1f"`)
	if err != nil {
		return "", param.NamedArgError(0, "id", err)
	}
	return id, nil
}

// GetFilterChanges answers eth_getFilterChanges.
func (a *API) GetFilterChanges(ctx context.Context, p rpc.Params) (any, error) {
	id, err := decodeFilterID(p)
	if err != nil {
		return nil, err
	}
	ft := a.filters
	ft.mu.Lock()
	defer ft.mu.Unlock()
	now := ft.now()
	ft.sweepLocked(now)
	f, ok := ft.byID[id]
	if !ok {
		return nil, core.ErrFilterNotFound
	}
	if f.overflow {
		ft.removeLocked(id)
		return nil, core.ErrFilterOverflow(id, ft.maxBytes)
	}
	f.deadline = now.Add(ft.timeout)
	out := make([]byte, 0, f.bytes+len(f.changes)+2)
	out = append(out, '[')
	for i, c := range f.changes {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, c...)
	}
	f.changes, f.bytes = nil, 0
	return json.RawMessage(append(out, ']')), nil
}

// GetFilterLogs answers eth_getFilterLogs.
func (a *API) GetFilterLogs(ctx context.Context, p rpc.Params) (any, error) {
	id, err := decodeFilterID(p)
	if err != nil {
		return nil, err
	}
	ft := a.filters
	ft.mu.Lock()
	ft.sweepLocked(ft.now())
	f, ok := ft.byID[id]
	ft.mu.Unlock()
	if !ok || f.kind != filterLogs {
		return nil, core.ErrFilterNotFound
	}
	crit := f.crit // eth_getLogs with the filter's criteria, on the request's view
	qctx, cancel := context.WithTimeout(ctx, a.cfg.LogsTimeout)
	defer cancel()
	found, err := a.findLogs(qctx, a.View(), &crit)
	if err != nil {
		return nil, core.LogsError(ctx, err, a.cfg.LogsTimeout)
	}
	return found, nil
}

// UninstallFilter answers eth_uninstallFilter.
func (a *API) UninstallFilter(ctx context.Context, p rpc.Params) (any, error) {
	id, err := decodeFilterID(p)
	if err != nil {
		return nil, err
	}
	ft := a.filters
	ft.mu.Lock()
	defer ft.mu.Unlock()
	ft.sweepLocked(ft.now())
	_, ok := ft.byID[id]
	ft.removeLocked(id)
	return json.RawMessage(ethjson.AppendBool(nil, ok)), nil
}
