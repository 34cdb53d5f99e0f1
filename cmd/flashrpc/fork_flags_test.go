package main

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/flashrpc/flashrpc/internal/remote"
)

// TestForkFlags runs `flashrpc dev` with fork flags that cannot work together: each is refused
// before anything starts, with a message that says what to change.
func TestForkFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		wantErr string // "" : a usage error (the flag package printed why)
	}{
		{"block without url", []string{"--fork-block-number", "5"}, "need --fork-url"},
		{"chain id without url", []string{"--fork-chain-id", "8453"}, "need --fork-url"},
		{"no caching without url", []string{"--no-storage-caching"}, "need --fork-url"},
		{"negative retries", []string{"--fork-url", "http://127.0.0.1:1", "--fork-retries", "-1"}, "--fork-retries must not be negative"},
		{"gas limit on a fork", []string{"--fork-url", "http://127.0.0.1:1", "--gas-limit", "30000000"}, "--gas-limit does not apply with --fork-url"},
		{"block not a number", []string{"--fork-url", "http://127.0.0.1:1", "--fork-block-number", "latest"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := runDev(tt.args, io.Discard, io.Discard)
			switch {
			case tt.wantErr == "" && !errors.Is(err, errUsage):
				t.Fatalf("error %v, want the usage error", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestForkRetryBackoff: --fork-retry-backoff takes a duration like every other time flag; the
// old bare integer is still milliseconds, with a deprecation note on the command's output.
func TestForkRetryBackoff(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		arg      string
		want     time.Duration
		wantNote bool
	}{
		{"", remote.DefaultBackoff, false},
		{"250ms", 250 * time.Millisecond, false},
		{"2s", 2 * time.Second, false},
		{"250", 250 * time.Millisecond, true},
	} {
		var out bytes.Buffer
		fs, o := devFlags(&out)
		args := []string{}
		if tt.arg != "" {
			args = append(args, "--fork-retry-backoff", tt.arg)
		}
		if err := fs.Parse(args); err != nil {
			t.Fatalf("%q: %v", tt.arg, err)
		}
		if got := o.fork.config().Backoff; got != tt.want {
			t.Errorf("%q: backoff %v, want %v", tt.arg, got, tt.want)
		}
		if note := strings.Contains(out.String(), "deprecated; write 250ms"); note != tt.wantNote {
			t.Errorf("%q: deprecation note %v, want %v (output %q)", tt.arg, note, tt.wantNote, out.String())
		}
	}
	fs, _ := devFlags(io.Discard)
	if err := fs.Parse([]string{"--fork-retry-backoff", "soon"}); err == nil {
		t.Error(`--fork-retry-backoff soon was accepted`)
	}
}

// TestHelpShowsOneDefault: in every command's --help, each flag's text names at most one
// default, and `flashrpc version --help` is help, not a usage error.
func TestHelpShowsOneDefault(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"dev", "serve", "follow", "import", "generate", "networks", "version"} {
		var out, errOut bytes.Buffer
		if code := run([]string{cmd, "--help"}, &out, &errOut); code != 0 {
			t.Errorf("flashrpc %s --help: exit %d\n%s", cmd, code, errOut.String())
			continue
		}
		if out.Len() == 0 {
			t.Errorf("flashrpc %s --help printed nothing on stdout", cmd)
		}
		for _, block := range regexp.MustCompile(`(?m)^  -`).Split(out.String(), -1)[1:] {
			if n := strings.Count(block, "(default"); n > 1 {
				t.Errorf("flashrpc %s --help: %d defaults in\n  -%s", cmd, n, block)
			}
		}
	}
}
