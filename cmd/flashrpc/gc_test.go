package main

import (
	"flag"
	"io"
	"math"
	"runtime/debug"
	"testing"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "1234": 1234, "512MiB": 512 << 20, "4GiB": 4 << 30, "3 KiB": 3 << 10, "7B": 7, "1TiB": 1 << 40} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "1.5GiB", "4GB", "abc", "9999999999TiB"} {
		if got, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) = %d, want an error", in, got)
		}
	}
}

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
	if d := defaultMemoryLimit(); machineMemory() > 0 && (d <= 0 || d > machineMemory()) {
		t.Errorf("default memory limit %d, machine memory %d", d, machineMemory())
	}
}
