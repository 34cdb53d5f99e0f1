package main

import (
	"flag"
	"io"
	"math"
	"runtime/debug"
	"strings"
	"testing"
)

// TestMemoryLimitFlag checks that --memory-limit sets the Go runtime's memory limit, and 0
// removes it.
func TestMemoryLimitFlag(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
	for arg, want := range map[string]int64{"768MiB": 768 << 20, "0": math.MaxInt64, "1073741824": 1 << 30} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		registerMemoryLimit(fs)
		if err := fs.Parse([]string{"--memory-limit", arg}); err != nil {
			t.Fatalf("--memory-limit %s: %v", arg, err)
		}
		if got := debug.SetMemoryLimit(-1); got != want {
			t.Errorf("--memory-limit %s: the runtime's limit is %d, want %d", arg, got, want)
		}
	}
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	registerMemoryLimit(fs)
	if err := fs.Parse([]string{"--memory-limit", "lots"}); err == nil {
		t.Error("--memory-limit lots was accepted")
	}
}

// TestRemovedWSSendQueueFlag checks that --ws.send-queue, which nothing read, is gone: a
// command line with it is refused and says so, and the help no longer lists it.
func TestRemovedWSSendQueueFlag(t *testing.T) {
	var help strings.Builder
	fs, _ := devFlags(&help)
	err := fs.Parse([]string{"--ws.send-queue", "64"})
	if err == nil || !strings.Contains(err.Error(), "flag provided but not defined: -ws.send-queue") {
		t.Fatalf("--ws.send-queue: %v, want it refused as undefined", err)
	}
	help.Reset()
	fs.SetOutput(&help)
	fs.PrintDefaults()
	if strings.Contains(help.String(), "ws.send-queue ") || !strings.Contains(help.String(), "ws.send-queue-bytes") {
		t.Fatalf("help:\n%s", help.String())
	}
}
