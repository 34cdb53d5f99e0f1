package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/flashrpc/flashrpc/internal/cputime"
)

// selfWindow measures the load generator's own CPU over one rate's window: on this machine
// every CPU-second it spends is taken from the node under test, so each window reports it.
// With a profile path it also writes its own CPU profile of the window (--cpuprofile).
type selfWindow struct {
	profile string
	file    *os.File
	start   time.Duration
	used    time.Duration
	err     error
}

// begin runs when the window starts.
func (w *selfWindow) begin() {
	if w.profile != "" {
		if w.file, w.err = os.Create(w.profile); w.err == nil {
			w.err = pprof.StartCPUProfile(w.file)
		}
	}
	start, err := cputime.Used()
	if w.start = start; err != nil && w.err == nil {
		w.err = err
	}
}

// end runs when the window ends.
func (w *selfWindow) end() {
	now, err := cputime.Used()
	if w.used = now - w.start; err != nil && w.err == nil {
		w.err = err
	}
	if w.file != nil {
		pprof.StopCPUProfile()
		if err := w.file.Close(); w.err == nil {
			w.err = err
		}
	}
}

// report prints the window's CPU to stderr (stdout keeps the table alone).
func (w *selfWindow) report(rate int, duration time.Duration) error {
	fmt.Fprintf(os.Stderr, "rate %d: the load generator used %.2f CPU-seconds in the %v window (%.2f cores)\n", rate, w.used.Seconds(), duration, w.used.Seconds()/duration.Seconds())
	if w.err != nil {
		return fmt.Errorf("own CPU time or profile: %w", w.err)
	}
	if w.profile != "" {
		fmt.Fprintf(os.Stderr, "rate %d: CPU profile of the load generator written to %s\n", rate, w.profile)
	}
	return nil
}
