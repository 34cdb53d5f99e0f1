package main

import (
	"strings"
	"testing"
)

// TestStateCacheFlag: --state.cache is in the --help of every command that opens a chain,
// and a value too small to mean what it says is refused, naming the flag and the least.
func TestStateCacheFlag(t *testing.T) {
	for _, cmd := range []string{"dev", "follow", "serve"} {
		code, out, _ := runCommand(cmd, "--help")
		if code != 0 || !strings.Contains(out, "-state.cache") {
			t.Errorf("%s --help (exit %d) lacks --state.cache", cmd, code)
		}
	}
	code, _, errOut := runCommand("dev", "--state.cache", "10")
	if want := "--state.cache 10: want at least 64"; code == 0 || !strings.Contains(errOut, want) {
		t.Errorf("dev --state.cache 10: exit %d, stderr %q; want an error containing %q", code, errOut, want)
	}
}
