package metrics

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// watched are the parts of the node the gauges read at scrape time. A node whose chain is
// replaced (a re-fork) watches the new parts: the gauges are registered once and read the
// newest.
type watched struct {
	chain     atomic.Pointer[chain.Chain]
	preconf   atomic.Pointer[preconf.Preconf]
	last      atomic.Pointer[preconf.Snapshot]
	pool      atomic.Pointer[txpool.Pool]
	chainOnce sync.Once
	preOnce   sync.Once
	poolOnce  sync.Once
}

// WatchChain reports c's sealed head: flashrpc_chain_head_block and
// flashrpc_chain_head_timestamp_seconds (read at scrape time), and
// flashrpc_chain_head_updates_total. A later call watches another chain instead.
func (m *Metrics) WatchChain(c *chain.Chain) {
	m.watched.chain.Store(c)
	m.watched.chainOnce.Do(func() { register(m.reg, m.chainTable()) })
	c.OnHead(func(chain.HeadEvent) { m.blocks.Inc() })
}

// WatchPreconf reports p's pre-confirmations: flashrpc_preconf_index, _block, _age_seconds,
// _transactions, _published_total and the flashblock apply time. A later call watches
// another Preconf instead.
func (m *Metrics) WatchPreconf(p *preconf.Preconf) {
	last := &m.watched.last
	last.Store(nil)
	m.watched.preconf.Store(p)
	p.OnSnapshot(func(s *preconf.Snapshot) {
		last.Store(s)
		m.preconfs.Inc()
		m.lastIndex.Set(float64(s.Index))
		m.ObserveApply(s.Assembly)
	})
	m.watched.preOnce.Do(func() { register(m.reg, m.preconfTable()) })
}

// chainTable is the registration table of the sealed head's gauges, read at scrape time.
func (m *Metrics) chainTable() []metric {
	return []metric{
		{kind: gaugeFunc, subsystem: "chain", name: "head_block", value: func() float64 { return float64(m.watched.chain.Load().Head().Number.Uint64()) },
			help: "Number of the sealed head (the latest block)."},
		{kind: gaugeFunc, subsystem: "chain", name: "head_timestamp_seconds", value: func() float64 { return float64(m.watched.chain.Load().Head().Time) },
			help: "Timestamp of the sealed head (Unix seconds, from its header)."},
		{kind: counterFunc, subsystem: "db", name: "write_stalls_total", value: func() float64 { return float64(m.watched.chain.Load().WriteStalls().Count) },
			help: "Times the database stopped the chain's writes until a flush or compaction caught up (its memtables or level 0 full), since the chain was opened."},
		{kind: counterFunc, subsystem: "db", name: "write_stall_seconds_total", value: func() float64 { return m.watched.chain.Load().WriteStalls().Duration.Seconds() },
			help: "Time the database's writes were stopped by those stalls, since the chain was opened."},
	}
}

// preconfTable is the registration table of the block in progress's gauges, read at scrape
// time.
func (m *Metrics) preconfTable() []metric {
	last := &m.watched.last
	return []metric{
		{kind: gaugeFunc, subsystem: "preconf", name: "block", value: func() float64 {
			if s := last.Load(); s != nil {
				return float64(s.Number())
			}
			return 0
		}, help: "Number of the block in progress (the newest pre-confirmation's block)."},
		{kind: gaugeFunc, subsystem: "preconf", name: "age_seconds", value: func() float64 {
			if s := last.Load(); s != nil {
				return time.Since(s.Published).Seconds()
			}
			return 0
		}, help: "Seconds since the newest pre-confirmation was published (0 before the first)."},
		{kind: gaugeFunc, subsystem: "preconf", name: "transactions", value: func() float64 {
			if s := m.watched.preconf.Load().Current(); s != nil {
				return float64(len(s.Block.Transactions()))
			}
			return 0
		}, help: "Transactions pre-confirmed in the block in progress so far."},
	}
}

// WatchPool reports the transaction pool's size: flashrpc_txpool_pending and _queued. A
// later call watches another pool instead.
func (m *Metrics) WatchPool(pool *txpool.Pool) {
	m.watched.pool.Store(pool)
	m.watched.poolOnce.Do(func() { register(m.reg, m.poolTable()) })
}

// poolTable is the registration table of the pool's gauges, read at scrape time.
func (m *Metrics) poolTable() []metric {
	return []metric{
		{kind: gaugeFunc, subsystem: "txpool", name: "pending", value: func() float64 { p, _ := m.watched.pool.Load().Stats(); return float64(p) },
			help: "Executable transactions waiting in the pool (not pre-confirmed yet)."},
		{kind: gaugeFunc, subsystem: "txpool", name: "queued", value: func() float64 { _, q := m.watched.pool.Load().Stats(); return float64(q) },
			help: "Transactions waiting in the pool for an earlier nonce (future nonces)."},
	}
}

// ObserveBuild records the time the sequencer took to build one pre-confirmation (for
// sequencer.Config.ObserveBuild).
func (m *Metrics) ObserveBuild(d time.Duration) { m.build.Observe(d.Seconds()) }

// ObserveApply records the time taken to apply one pre-confirmation. WatchPreconf does it
// for every snapshot preconf publishes; follow mode adds its verification time.
func (m *Metrics) ObserveApply(d time.Duration) { m.apply.Observe(d.Seconds()) }
