package main

import (
	"io"
	"strings"
	"testing"
)

func TestGenerateUsage(t *testing.T) {
	t.Parallel()
	if code := run([]string{"generate"}, io.Discard, io.Discard); code != 2 {
		t.Fatalf("generate without --datadir exited %d, want 2", code)
	}
	var out strings.Builder
	if code := run([]string{"generate", "--help"}, &out, io.Discard); code != 0 || !strings.Contains(out.String(), "--blocks") {
		t.Fatalf("generate --help exited %d:\n%s", code, out.String())
	}
}
