package main

import (
	"testing"
	"time"
)

// TestSummarize judges made-up runs: steady series pass; a subscription that never delivers,
// a steady rate of refused transactions above the tolerance, and any subscription failure
// fail, though each is flat.
func TestSummarize(t *testing.T) {
	steady := map[string]float64{"tx_sent": 30, "tx_refused": 0, "reads_ok": 10, "reads_failed": 0, "sub_lbpre_newHeads": 0.5, "sub_failures": 0, "primary_goroutines": 60}
	for _, tc := range []struct {
		name   string
		change map[string]float64
		fails  string // the series that fails, "" for none
	}{
		{"steady", nil, ""},
		{"refusals within the tolerance", map[string]float64{"tx_refused": 0.2}, ""},
		{"subscription never delivers", map[string]float64{"sub_lbpre_newHeads": 0}, "sub_lbpre_newHeads"},
		{"steady refusals", map[string]float64{"tx_refused": 3}, "tx_refused"},
		{"steady read failures", map[string]float64{"reads_failed": 1}, "reads_failed"},
		{"subscription failures", map[string]float64{"sub_failures": 0.1}, "sub_failures"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{}
			for i := range 10 {
				s := &sample{elapsed: time.Duration(i) * time.Minute, values: map[string]float64{}}
				for _, name := range []string{"tx_sent", "tx_refused", "reads_ok", "reads_failed", "sub_lbpre_newHeads", "sub_failures", "primary_goroutines"} {
					v, ok := tc.change[name]
					if !ok {
						v = steady[name]
					}
					s.set(name, v)
				}
				if r.names == nil {
					r.names = s.names
				}
				r.samples = append(r.samples, s)
			}
			sum := summarize(r, 2*time.Minute, 10*time.Minute)
			for _, tr := range sum.trends {
				if failed := !tr.flat; failed != (tr.name == tc.fails) {
					t.Errorf("%s: passed %v (mean %v, tolerance %v, %s)", tr.name, tr.flat, tr.mean, tr.tolerance, tr.why)
				}
			}
			if sum.flat() != (tc.fails == "") {
				t.Errorf("run passed %v", sum.flat())
			}
		})
	}
}
