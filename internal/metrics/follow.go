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
	failures := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Subsystem: "follow", Name: "verification_failures_total",
		Help: "Blocks (kind=block) and flashblocks (kind=flashblock) that failed verification and were not served.",
	}, []string{"kind"})
	f := &Follow{
		upstreamHead: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: namespace, Subsystem: "follow", Name: "upstream_head_block",
			Help: "Newest block number the upstream has announced.",
		}),
		lag: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: namespace, Subsystem: "follow", Name: "lag_blocks",
			Help: "Blocks the replica's sealed head is behind the upstream's (what /health compares with --health.max-lag).",
		}),
		connected: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: namespace, Subsystem: "follow", Name: "feed_connected",
			Help: "1 while the flashblocks feed is connected, 0 while it is redialled.",
		}),
		feedLag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: namespace, Subsystem: "follow", Name: "feed_lag_seconds",
			Help:    "Time from a flashblock's arrival on the feed to its being served (verified and published as the block in progress).",
			Buckets: latencyBuckets,
		}),
		messages: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "follow", Name: "feed_messages_total",
			Help: "Flashblocks received on the feed.",
		}),
		reconnects: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "follow", Name: "feed_reconnects_total",
			Help: "Times the feed was redialled after it dropped.",
		}),
		failBlock: failures.WithLabelValues(FailBlock),
		failFlash: failures.WithLabelValues(FailFlashblock),
	}
	reg.MustRegister(f.upstreamHead, f.lag, f.connected, f.feedLag, f.messages, f.reconnects, failures)
	return f
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
