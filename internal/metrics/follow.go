package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Follow are the metrics of a replica (flashrpc follow): its upstream, its feed and what
// failed verification. The follow mode registers them with [NewFollow] and feeds them.
type Follow struct {
	upstreamHead prometheus.Gauge
	lag          prometheus.Gauge
	connected    prometheus.Gauge
	feedLag      prometheus.Histogram
	messages     prometheus.Counter
	reconnects   prometheus.Counter
	failBlock    prometheus.Counter
	failFlash    prometheus.Counter
	mismatches   prometheus.Counter
}

// Kinds of verification failure (label kind of flashrpc_follow_verification_failures_total).
const (
	// FailBlock: a sealed block from the upstream whose execution did not give its header's
	// state or receipts root.
	FailBlock = "block"
	// FailFlashblock: a flashblock from the feed whose re-execution did not give what the
	// sequencer published, or that came out of order (a gap, a duplicate).
	FailFlashblock = "flashblock"
)

// NewFollow registers the follow-mode metrics with reg.
func NewFollow(reg prometheus.Registerer) *Follow {
	f := &Follow{}
	var failures *prometheus.CounterVec
	register(reg, f.table(&failures))
	f.failBlock = failures.WithLabelValues(FailBlock)
	f.failFlash = failures.WithLabelValues(FailFlashblock)
	return f
}

// table is the registration table of the follow-mode metrics; the verification failures,
// by kind, go to failures.
func (f *Follow) table(failures **prometheus.CounterVec) []metric {
	return []metric{
		{kind: gauge, subsystem: "follow", name: "upstream_head_block", into: &f.upstreamHead,
			help: "Newest block number the upstream has announced."},
		{kind: gauge, subsystem: "follow", name: "lag_blocks", into: &f.lag,
			help: "Blocks the replica's sealed head is behind the upstream's (what /health compares with --health.max-lag)."},
		{kind: gauge, subsystem: "follow", name: "feed_connected", into: &f.connected,
			help: "1 while the flashblocks feed is connected, 0 while it is redialled."},
		{kind: histogram, subsystem: "follow", name: "feed_lag_seconds", into: &f.feedLag,
			help: "Time from a flashblock's arrival on the feed to its being served (verified and published as the block in progress)."},
		{kind: counter, subsystem: "follow", name: "feed_messages_total", into: &f.messages,
			help: "Flashblocks received on the feed."},
		{kind: counter, subsystem: "follow", name: "feed_reconnects_total", into: &f.reconnects,
			help: "Times the feed was redialled after it dropped."},
		{kind: counter, subsystem: "follow", name: "verification_failures_total", labels: []string{"kind"}, into: failures,
			help: "Blocks (kind=block) and flashblocks (kind=flashblock) that failed verification and were not served."},
		{kind: counter, subsystem: "follow", name: "preconf_mismatch_total", into: &f.mismatches,
			help: "Sealed blocks that did not begin with the transactions and receipts the replica had pre-confirmed from the feed; the difference was retracted."},
	}
}

// SetUpstream records the upstream's head and the replica's lag behind it, in blocks.
func (f *Follow) SetUpstream(head, lag uint64) {
	f.upstreamHead.Set(float64(head))
	f.lag.Set(float64(lag))
}

// SetFeedConnected records whether the feed is connected.
func (f *Follow) SetFeedConnected(up bool) {
	if up {
		f.connected.Set(1)
	} else {
		f.connected.Set(0)
	}
}

// FeedMessage counts one flashblock received.
func (f *Follow) FeedMessage() { f.messages.Inc() }

// FeedServed records the time from a flashblock's arrival to its being served.
func (f *Follow) FeedServed(d time.Duration) { f.feedLag.Observe(d.Seconds()) }

// FeedReconnect counts one redial of the feed.
func (f *Follow) FeedReconnect() { f.reconnects.Inc() }

// VerificationFailed counts one failure of kind [FailBlock] or [FailFlashblock]; other
// kinds are counted as flashblocks.
func (f *Follow) VerificationFailed(kind string) {
	if kind == FailBlock {
		f.failBlock.Inc()
		return
	}
	f.failFlash.Inc()
}

// PreconfMismatch counts one sealed block that departed from its served pre-confirmations.
func (f *Follow) PreconfMismatch() { f.mismatches.Inc() }
