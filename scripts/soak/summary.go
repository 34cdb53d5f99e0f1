package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// recorder writes samples to a CSV file and keeps them for the summary.
type recorder struct {
	f       *os.File
	w       *csv.Writer
	names   []string // the columns after elapsed_s, from the first sample
	samples []*sample
	closed  bool
}

func newRecorder(path string) (*recorder, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &recorder{f: f, w: csv.NewWriter(f)}, nil
}

// add writes a sample; the first one writes the header.
func (r *recorder) add(s *sample) error {
	if r.names == nil {
		r.names = s.names
		if err := r.w.Write(append([]string{"elapsed_s"}, r.names...)); err != nil {
			return err
		}
	}
	row := []string{strconv.FormatFloat(s.elapsed.Seconds(), 'f', 0, 64)}
	for _, n := range r.names {
		row = append(row, strconv.FormatFloat(s.values[n], 'f', -1, 64))
	}
	r.samples = append(r.samples, s)
	if err := r.w.Write(row); err != nil {
		return err
	}
	r.w.Flush() // a run cut short keeps what it sampled
	return r.w.Error()
}

// close flushes and closes the file; a second call does nothing.
func (r *recorder) close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	r.w.Flush()
	return errors.Join(r.w.Error(), r.f.Close())
}

// trend is one series over the run.
type trend struct {
	name                        string
	n                           int // samples after the warm-up with a value
	mean, first, last, min, max float64
	perHour                     float64 // least-squares slope
	change                      float64 // the slope over the samples' span
	tolerance                   float64
	flat                        bool
	judged                      bool // head only grows: shown, not judged
}

type summary struct {
	elapsed time.Duration
	warmup  time.Duration
	samples int
	trends  []trend
}

// summarize fits a line to each series' samples after the warm-up (values of -1 were not
// read and are left out). A series is flat when the line's change over the run stays within
// its tolerance: 10% of its mean, and at least a floor per kind of series (a few open files or
// goroutines, a block of lag, a couple of MB) so that a series near zero is not judged on
// noise. The head and the allocated heap are shown, not judged (judged).
func summarize(r *recorder, warmup, elapsed time.Duration) *summary {
	sum := &summary{elapsed: elapsed, warmup: warmup, samples: len(r.samples)}
	for _, name := range r.names {
		t := trend{name: name, min: math.Inf(1), max: math.Inf(-1), judged: judged(name)}
		var xs, ys []float64
		for _, s := range r.samples {
			v := s.values[name]
			if s.elapsed < warmup || v < 0 {
				continue
			}
			xs, ys = append(xs, s.elapsed.Hours()), append(ys, v)
			t.min, t.max = math.Min(t.min, v), math.Max(t.max, v)
		}
		t.n = len(ys)
		if t.n > 0 {
			t.first, t.last = ys[0], ys[len(ys)-1]
			t.mean, t.perHour = fit(xs, ys)
			t.change = t.perHour * (xs[len(xs)-1] - xs[0])
		}
		t.tolerance = math.Max(0.1*math.Abs(t.mean), floor(name))
		t.flat = t.n >= 3 && math.Abs(t.change) <= t.tolerance
		sum.trends = append(sum.trends, t)
	}
	return sum
}

// fit returns the mean of ys and the least-squares slope of ys over xs.
func fit(xs, ys []float64) (mean, slope float64) {
	var mx, my float64
	for i := range xs {
		mx, my = mx+xs[i], my+ys[i]
	}
	n := float64(len(xs))
	mx, my = mx/n, my/n
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	if sxx == 0 {
		return my, 0
	}
	return my, sxy / sxx
}

// judged reports whether a series must be flat: not the head, which grows, nor the allocated
// heap, a collector's sawtooth of up to 1+GOGC/100 times the live heap (judged instead).
func judged(name string) bool {
	return name != "head" && !strings.HasSuffix(name, "_heap_alloc_mb")
}

// floor is the least tolerance of a series, by its kind.
func floor(name string) float64 {
	switch {
	case strings.HasSuffix(name, "_open_files"):
		return 10 // connections come and go
	case strings.HasSuffix(name, "_goroutines"):
		return 10
	case strings.HasSuffix(name, "_lag_blocks"):
		return 1
	case strings.HasSuffix(name, "_mb"):
		return 2
	default: // per-second rates
		return 0.5
	}
}

// flat reports whether every judged series was flat.
func (s *summary) flat() bool {
	for _, t := range s.trends {
		if t.judged && !t.flat {
			return false
		}
	}
	return true
}

// String is the summary as Markdown.
func (s *summary) String(cfg config) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Soak: %s of load, %d samples every %s (the first %s left out of the slopes)\n\n", s.elapsed.Round(time.Second), s.samples, cfg.sample, s.warmup)
	fmt.Fprintf(&b, "A primary and 2 replicas behind HAProxy; the realistic mix at %d tx/s from %d senders to the primary; %d reads/s through HAProxy; subscribers on every kind.\n\n", cfg.rate, cfg.accounts, cfg.reads)
	b.WriteString("| series | mean | first | last | min | max | slope per hour | change over the run | tolerance | flat |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, t := range s.trends {
		verdict := "yes"
		switch {
		case !t.judged:
			verdict = "(not judged)"
		case t.n < 3:
			verdict = "too few samples"
		case !t.flat:
			verdict = "**no**"
		}
		fmt.Fprintf(&b, "| %s | %.4g | %.4g | %.4g | %.4g | %.4g | %+.3g | %+.3g | ±%.3g | %s |\n", t.name, t.mean, t.first, t.last, t.min, t.max, t.perHour, t.change, t.tolerance, verdict)
	}
	if s.flat() {
		b.WriteString("\nEvery series is flat.\n")
	} else {
		b.WriteString("\nNot flat: the series marked **no**.\n")
	}
	return b.String()
}
