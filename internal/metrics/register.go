package metrics

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// kind is what a metric is to Prometheus.
type kind int

const (
	counter     kind = iota
	gauge            // set by the node
	histogram        // observed in latencyBuckets
	gaugeFunc        // read at scrape time, from metric.value
	counterFunc      // read at scrape time, from metric.value, which only grows
)

// metric is one row of a subsystem's registration table: what Prometheus shows of a metric
// and the field that holds it once registered.
type metric struct {
	kind kind
	// subsystem and name make the metric's name, flashrpc_<subsystem>_<name>
	// (flashrpc_<name> when subsystem is "").
	subsystem, name string
	help            string
	// labels are the metric's variable labels; with any, the metric is a vector.
	labels []string
	// constLabels are labels every sample carries, fixed at registration.
	constLabels prometheus.Labels
	// value is a gaugeFunc's or counterFunc's value, read at scrape time; nil for other kinds.
	value func() float64
	// into points to the field that gets the collector: a *prometheus.Counter, Gauge or
	// Histogram, or with labels a **prometheus.CounterVec, GaugeVec or HistogramVec. nil
	// for a gaugeFunc or counterFunc, which nothing sets.
	into any
}

// register makes every metric of table, stores each in its field and registers them all
// with reg. It panics when a name is already registered with reg, or when a row's field
// does not fit its kind and labels (programming errors, as prometheus.MustRegister).
func register(reg prometheus.Registerer, table []metric) {
	cs := make([]prometheus.Collector, len(table))
	for i, m := range table {
		cs[i] = m.collector()
	}
	reg.MustRegister(cs...)
}

// collector makes m's collector and stores it in m.into.
func (m metric) collector() prometheus.Collector {
	opts := prometheus.Opts{Namespace: namespace, Subsystem: m.subsystem, Name: m.name, Help: m.help, ConstLabels: m.constLabels}
	vector := len(m.labels) > 0
	switch {
	case m.kind == counter && vector:
		return store(m, prometheus.NewCounterVec(prometheus.CounterOpts(opts), m.labels))
	case m.kind == counter:
		return store(m, prometheus.NewCounter(prometheus.CounterOpts(opts)))
	case m.kind == gauge && vector:
		return store(m, prometheus.NewGaugeVec(prometheus.GaugeOpts(opts), m.labels))
	case m.kind == gauge:
		return store(m, prometheus.NewGauge(prometheus.GaugeOpts(opts)))
	case m.kind == histogram && vector:
		return store(m, prometheus.NewHistogramVec(histogramOpts(opts), m.labels))
	case m.kind == histogram:
		return store(m, prometheus.NewHistogram(histogramOpts(opts)))
	case m.kind == gaugeFunc && !vector && m.value != nil && m.into == nil:
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts(opts), m.value)
	case m.kind == counterFunc && !vector && m.value != nil && m.into == nil:
		return prometheus.NewCounterFunc(prometheus.CounterOpts(opts), m.value)
	}
	panic(fmt.Sprintf("metrics: %s: kind %d with labels %v, value %v and field %T is not a metric", m.fqName(), m.kind, m.labels, m.value != nil, m.into))
}

// histogramOpts are the options of a histogram observed in latencyBuckets.
func histogramOpts(o prometheus.Opts) prometheus.HistogramOpts {
	return prometheus.HistogramOpts{
		Namespace: o.Namespace, Subsystem: o.Subsystem, Name: o.Name, Help: o.Help,
		ConstLabels: o.ConstLabels, Buckets: latencyBuckets,
	}
}

// store sets the field m.into points to to c and returns c.
func store[C prometheus.Collector](m metric, c C) C {
	p, ok := m.into.(*C)
	if !ok {
		panic(fmt.Sprintf("metrics: %s: field %T cannot hold a %T", m.fqName(), m.into, c))
	}
	*p = c
	return c
}

func (m metric) fqName() string { return prometheus.BuildFQName(namespace, m.subsystem, m.name) }
