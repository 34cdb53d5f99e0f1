package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/flashrpc/flashrpc/internal/health"
)

// scrapeMetrics fetches GET /metrics and parses it with Prometheus's text parser.
func scrapeMetrics(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	return mfs
}

// metricValue returns the value of the series of name whose labels include the given pairs
// (0 when there is none).
func metricValue(mfs map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	mf := mfs[name]
	if mf == nil {
		return 0
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
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	return 0
}

// TestMetricsMoveWithTraffic runs a dev node with --metrics.port and --log.requests and
// checks that /metrics parses and that its counters and gauges follow the traffic sent:
// calls by endpoint and method, errors by code, unknown methods, WebSocket connections and
// subscriptions, the sealed head and the block in progress; and that each call is logged.
func TestMetricsMoveWithTraffic(t *testing.T) {
	o := testOptions(t.TempDir())
	o.metricsPort = optionalPort{port: 0, set: true}
	o.logRequests = true
	logs := new(syncWriter)
	tn := startTestNodeWithLogger(t, o, slog.New(slog.NewTextHandler(logs, nil)))
	url := tn.MetricsURL()
	before := scrapeMetrics(t, url)

	for range 3 {
		postJSON(t, tn.stdURL, `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`)
	}
	postJSON(t, tn.preURL, `[{"jsonrpc":"2.0","id":1,"method":"eth_getCode","params":["0xnot-an-address","latest"]},{"jsonrpc":"2.0","id":2,"method":"eth_getCode","params":[]},{"jsonrpc":"2.0","id":3,"method":"no_such_method"}]`)
	ctx := context.Background()
	ws, _, err := websocket.Dial(ctx, wsURL(tn.preURL), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}`))
	if _, _, err := ws.Read(ctx); err != nil {
		t.Fatal(err)
	}
	tn.preconfirm(t)
	tn.seal(t)
	tn.preconfirm(t)

	after := scrapeMetrics(t, url)
	delta := func(name string, labels ...string) float64 {
		return metricValue(after, name, labels...) - metricValue(before, name, labels...)
	}
	cases := []struct {
		what string
		got  float64
		want float64
	}{
		{"eth_blockNumber calls on standard", delta("flashrpc_rpc_requests_total", "endpoint", "standard", "method", "eth_blockNumber"), 3},
		{"their durations", delta("flashrpc_rpc_request_duration_seconds", "endpoint", "standard", "method", "eth_blockNumber"), 3},
		{"eth_getCode calls on pre-confirmed", delta("flashrpc_rpc_requests_total", "endpoint", "pre-confirmed", "method", "eth_getCode"), 2},
		{"-32602 errors on pre-confirmed", delta("flashrpc_rpc_errors_total", "endpoint", "pre-confirmed", "code", "-32602"), 2},
		{"unknown methods", delta("flashrpc_rpc_requests_total", "endpoint", "pre-confirmed", "method", "unknown"), 1},
		{"-32601 errors", delta("flashrpc_rpc_errors_total", "endpoint", "pre-confirmed", "code", "-32601"), 1},
		{"eth_subscribe calls", delta("flashrpc_rpc_requests_total", "endpoint", "pre-confirmed", "method", "eth_subscribe"), 1},
		{"WebSocket connections", metricValue(after, "flashrpc_ws_connections", "endpoint", "pre-confirmed"), 1},
		{"subscriptions", metricValue(after, "flashrpc_ws_subscriptions", "endpoint", "pre-confirmed"), 1},
		{"sealed head", metricValue(after, "flashrpc_chain_head_block"), float64(tn.Chain().Head().Number.Uint64())},
		{"head updates", delta("flashrpc_chain_head_updates_total"), 1},
		{"block in progress", metricValue(after, "flashrpc_preconf_block"), float64(tn.Chain().Head().Number.Uint64() + 1)},
		{"pre-confirmation index", metricValue(after, "flashrpc_preconf_index"), 1},
		{"pre-confirmations built (dev_preconfirm twice; dev_seal seals what was built)", delta("flashrpc_flashblock_build_seconds"), 2},
		{"pre-confirmations applied (opening the next block too)", delta("flashrpc_flashblock_apply_seconds"), 3},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("%s: %v, want %v", tc.what, tc.got, tc.want)
		}
	}
	for _, name := range []string{"flashrpc_txpool_pending", "flashrpc_preconf_age_seconds", "flashrpc_build_info", "go_goroutines", "flashrpc_db_write_stalls_total", "flashrpc_db_write_stall_seconds_total"} {
		if after[name] == nil {
			t.Errorf("no %s", name)
		}
	}
	if n := strings.Count(logs.String(), `msg="rpc request"`); n < 8 || !strings.Contains(logs.String(), `endpoint=pre-confirmed method=eth_getCode duration=`) {
		t.Errorf("request log: %d lines\n%s", n, logs.String())
	}
}

// TestHealthAndPages checks GET /health and GET / on both endpoints of a dev node: the
// health JSON with the dev fields and nulls for the follow ones, the live view for a
// browser, a text saying what the endpoint is for other GETs (404 for /metrics, which lives on
// --metrics.port); serve mode's health is in
// TestServeHealth.
func TestHealthAndPages(t *testing.T) {
	tn := startTestNode(t, testOptions(t.TempDir()))
	tn.preconfirm(t)
	for _, url := range []string{tn.stdURL, tn.preURL} {
		code, s := getHealth(t, url)
		if code != 200 || s.Head != tn.Chain().Head().Number.Uint64() || s.PendingIndex == nil || *s.PendingIndex != 1 || s.UpstreamHead != nil || s.Lag != nil || s.Feed != nil || s.Problems != nil {
			t.Errorf("%s/health: %d %+v", url, code, s)
		}
		req, _ := http.NewRequest("GET", url+"/", nil)
		req.Header.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !bytes.Contains(b, []byte("newFlashblocks")) {
			t.Errorf("browser GET %s/: %d %s, %d bytes", url, resp.StatusCode, resp.Header.Get("Content-Type"), len(b))
		}
		name := "standard endpoint"
		if url == tn.preURL {
			name = "pre-confirmed endpoint"
		}
		for _, page := range []struct {
			path   string
			status int
			want   []string
		}{
			{"/", 200, []string{"flashrpc " + name, "JSON-RPC 2.0 over HTTP POST and WebSocket", "open " + url + "/ in a browser", "Health: " + url + "/health", "Metrics: "}},
			{"/metrics", 404, []string{"--metrics.port", "flashrpc " + name}},
		} {
			resp, err = http.Get(url + page.path)
			if err != nil {
				t.Fatal(err)
			}
			b, err = io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != page.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
				t.Errorf("plain GET %s%s: %d %s, want %d text/plain", url, page.path, resp.StatusCode, resp.Header.Get("Content-Type"), page.status)
			}
			for _, w := range page.want {
				if !bytes.Contains(b, []byte(w)) {
					t.Errorf("plain GET %s%s: no %q in\n%s", url, page.path, w, b)
				}
			}
		}
	}
}

// TestServeHealth checks GET /health of flashrpc serve: 200 with the stored head and no
// block in progress.
func TestServeHealth(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the flashrpc binary; skipped with -short")
	}
	dir := t.TempDir()
	tn := startTestNode(t, testOptions(dir))
	tn.preconfirm(t)
	tn.seal(t)
	tn.stop()
	url := startBinary(t, stampedBinary(t), "serve", "--datadir", dir)
	code, s := getHealth(t, url)
	if code != 200 || s.Head != 1 || s.PendingIndex != nil || s.UpstreamHead != nil || s.Feed != nil {
		t.Errorf("serve /health: %d %+v, want 200, head 1, nulls", code, s)
	}
}

func getHealth(t *testing.T, url string) (int, health.Status) {
	t.Helper()
	resp, err := http.Get(url + "/health")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var s health.Status
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		t.Fatalf("/health: %v", err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("/health Content-Type %q", ct)
	}
	return resp.StatusCode, s
}
