package metrics

import (
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestTablesRegister registers every table into one registry: each row fits its field,
// and no two rows of any subsystem share a name.
func TestTablesRegister(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewPedanticRegistry()
	m := New(reg)
	NewFollow(reg)
	NewUpstream(reg)
	register(reg, m.chainTable())
	register(reg, m.preconfTable())
	register(reg, m.poolTable())
	for _, table := range [][]metric{m.table(new(prometheus.Gauge)), new(Follow).table(new(*prometheus.CounterVec)), new(Upstream).table(), m.chainTable(), m.preconfTable(), m.poolTable()} {
		for _, row := range table {
			if row.help == "" || !strings.HasPrefix(row.fqName(), "flashrpc_") {
				t.Errorf("%s: help %q", row.fqName(), row.help)
			}
		}
	}
}

// TestRegisterRows checks that a row becomes the collector its kind and labels say, in its
// field, and that a row whose field does not fit panics.
func TestRegisterRows(t *testing.T) {
	t.Parallel()
	var (
		c  prometheus.Counter
		cv *prometheus.CounterVec
		g  prometheus.Gauge
		gv *prometheus.GaugeVec
		h  prometheus.Histogram
		hv *prometheus.HistogramVec
	)
	reg := prometheus.NewRegistry()
	register(reg, []metric{
		{kind: counter, name: "c", help: "c", into: &c},
		{kind: counter, name: "cv", help: "cv", labels: []string{"l"}, into: &cv},
		{kind: gauge, name: "g", help: "g", into: &g},
		{kind: gauge, name: "gv", help: "gv", labels: []string{"l"}, into: &gv},
		{kind: histogram, name: "h", help: "h", into: &h},
		{kind: histogram, name: "hv", help: "hv", labels: []string{"l"}, into: &hv},
		{kind: gaugeFunc, name: "gf", help: "gf", value: func() float64 { return 7 }},
		{kind: counterFunc, name: "cf", help: "cf", value: func() float64 { return 8 }},
	})
	c.Inc()
	cv.WithLabelValues("x").Inc()
	g.Set(2)
	gv.WithLabelValues("x").Set(3)
	h.Observe(0.001)
	hv.WithLabelValues("x").Observe(0.001)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	if len(mfs) != 8 {
		t.Errorf("%d families, want 8", len(mfs))
	}
	for _, mf := range mfs {
		if mf.GetName() == "flashrpc_cf" && (mf.GetType().String() != "COUNTER" || mf.Metric[0].Counter.GetValue() != 8) {
			t.Errorf("the counterFunc row gathered as %v", mf)
		}
		if mf.GetName() == "flashrpc_hv" {
			if got := len(mf.Metric[0].Histogram.Bucket); got != len(latencyBuckets) {
				t.Errorf("histogram of %d buckets, want latencyBuckets' %d", got, len(latencyBuckets))
			}
		}
	}

	for i, row := range []metric{
		{kind: counter, name: "x", help: "x", labels: []string{"l"}, into: &c},
		{kind: counter, name: "x", help: "x", into: &g},
		{kind: histogram, name: "x", help: "x", into: &hv},
		{kind: gaugeFunc, name: "x", help: "x", value: func() float64 { return 0 }, into: &g},
		{kind: gaugeFunc, name: "x", help: "x"},
		{kind: counterFunc, name: "x", help: "x"},
		{kind: counterFunc, name: "x", help: "x", labels: []string{"l"}, value: func() float64 { return 0 }},
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("row %+v registered, want a panic", row)
				}
			}()
			register(prometheus.NewRegistry(), []metric{row})
		})
	}
}
