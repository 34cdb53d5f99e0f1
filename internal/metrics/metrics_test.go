package metrics

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/flashrpc/flashrpc/internal/rpc"
)

// scrape gathers reg in the Prometheus text format and parses it back, as Prometheus would.
func scrape(t *testing.T, reg *prometheus.Registry) map[string]*dto.MetricFamily {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	parsed, err := parser.TextToMetricFamilies(&buf)
	if err != nil {
		t.Fatalf("the text format does not parse: %v", err)
	}
	for name := range parsed {
		if !strings.HasPrefix(name, "flashrpc_") && !strings.HasPrefix(name, "go_") && !strings.HasPrefix(name, "process_") {
			t.Errorf("metric %s does not start with flashrpc_", name)
		}
	}
	return parsed
}

// value returns the counter, gauge or histogram count of the series of family name with the
// given labels (name=value pairs), and whether it exists.
func value(mfs map[string]*dto.MetricFamily, name string, labels ...string) (float64, bool) {
	mf := mfs[name]
	if mf == nil {
		return 0, false
	}
next:
	for _, m := range mf.Metric {
		have := map[string]string{}
		for _, lp := range m.Label {
			have[lp.GetName()] = lp.GetValue()
		}
		for i := 0; i+1 < len(labels); i += 2 {
			if have[labels[i]] != labels[i+1] {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

func TestEndpointObserver(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	m := New(reg)
	ep := m.Endpoint("pre-confirmed")
	getCode := ep.Method("eth_getCode")
	unknown := ep.Method("")
	ep.Method("eth_chainId") // never called: no series
	getCode.ObserveCall(time.Millisecond, 0)
	getCode.ObserveCall(time.Millisecond, rpc.CodeInvalidParams)
	unknown.ObserveCall(time.Microsecond, rpc.CodeMethodNotFound)
	unknown.ObserveCall(time.Microsecond, -39999) // a code flashrpc does not define
	ep.WebSocketConns(1)
	ep.Subscriptions(1)
	ep.Subscriptions(1)
	ep.Subscriptions(-1)
	ep.SlowConsumer()

	mfs := scrape(t, reg)
	cases := []struct {
		name   string
		labels []string
		want   float64
	}{
		{"flashrpc_rpc_requests_total", []string{"endpoint", "pre-confirmed", "method", "eth_getCode"}, 2},
		{"flashrpc_rpc_request_duration_seconds", []string{"endpoint", "pre-confirmed", "method", "eth_getCode"}, 2},
		{"flashrpc_rpc_requests_total", []string{"method", "unknown"}, 2},
		{"flashrpc_rpc_errors_total", []string{"code", "-32602"}, 1},
		{"flashrpc_rpc_errors_total", []string{"code", "-32601"}, 1},
		{"flashrpc_rpc_errors_total", []string{"code", "-39999"}, 1},
		{"flashrpc_ws_connections", []string{"endpoint", "pre-confirmed"}, 1},
		{"flashrpc_ws_subscriptions", []string{"endpoint", "pre-confirmed"}, 1},
		{"flashrpc_ws_slow_consumers_total", []string{"endpoint", "pre-confirmed"}, 1},
		{"flashrpc_build_info", nil, 1},
	}
	for _, tc := range cases {
		if got, ok := value(mfs, tc.name, tc.labels...); !ok || got != tc.want {
			t.Errorf("%s%v = %v (present %v), want %v", tc.name, tc.labels, got, ok, tc.want)
		}
	}
	// Series exist for what happened: no method that was not called, no error code that was
	// not answered.
	for _, tc := range []struct {
		name   string
		labels []string
	}{
		{"flashrpc_rpc_requests_total", []string{"method", "eth_chainId"}},
		{"flashrpc_rpc_request_duration_seconds", []string{"method", "eth_chainId"}},
		{"flashrpc_rpc_errors_total", []string{"code", "3"}},
	} {
		if got, ok := value(mfs, tc.name, tc.labels...); ok {
			t.Errorf("%s%v present (%v) though nothing happened", tc.name, tc.labels, got)
		}
	}
}

// TestFollowAndUpstream checks that the follow and fork metrics register beside the node's
// and move when fed.
func TestFollowAndUpstream(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	New(reg)
	f := NewFollow(reg)
	u := NewUpstream(reg)
	f.SetUpstream(120, 3)
	f.SetFeedConnected(true)
	f.FeedMessage()
	f.FeedServed(3 * time.Millisecond)
	f.FeedReconnect()
	f.VerificationFailed(FailBlock)
	f.VerificationFailed(FailFlashblock)
	f.VerificationFailed(FailFlashblock)
	f.PreconfMismatch()
	get := u.Method("eth_getProof")
	get.Observe(3, 20*time.Millisecond, false)
	get.Observe(1, time.Second, true)
	acct := u.Cache("account")
	acct.Hit()
	acct.Hit()
	acct.Miss()

	mfs := scrape(t, reg)
	cases := []struct {
		name   string
		labels []string
		want   float64
	}{
		{"flashrpc_follow_upstream_head_block", nil, 120},
		{"flashrpc_follow_lag_blocks", nil, 3},
		{"flashrpc_follow_feed_connected", nil, 1},
		{"flashrpc_follow_feed_messages_total", nil, 1},
		{"flashrpc_follow_feed_lag_seconds", nil, 1},
		{"flashrpc_follow_feed_reconnects_total", nil, 1},
		{"flashrpc_follow_verification_failures_total", []string{"kind", "block"}, 1},
		{"flashrpc_follow_verification_failures_total", []string{"kind", "flashblock"}, 2},
		{"flashrpc_follow_preconf_mismatch_total", nil, 1},
		{"flashrpc_upstream_requests_total", []string{"method", "eth_getProof"}, 4},
		{"flashrpc_upstream_request_duration_seconds", []string{"method", "eth_getProof"}, 2},
		{"flashrpc_upstream_errors_total", []string{"method", "eth_getProof"}, 1},
		{"flashrpc_upstream_cache_hits_total", []string{"kind", "account"}, 2},
		{"flashrpc_upstream_cache_misses_total", []string{"kind", "account"}, 1},
	}
	for _, tc := range cases {
		if got, ok := value(mfs, tc.name, tc.labels...); !ok || got != tc.want {
			t.Errorf("%s%v = %v (present %v), want %v", tc.name, tc.labels, got, ok, tc.want)
		}
	}
}

// BenchmarkObserveCall measures what metrics add to one call on the request path.
func BenchmarkObserveCall(b *testing.B) {
	reg := prometheus.NewRegistry()
	obs := New(reg).Endpoint("standard").Method("eth_getBlockByNumber")
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		obs.ObserveCall(time.Since(start), 0)
	}
}
