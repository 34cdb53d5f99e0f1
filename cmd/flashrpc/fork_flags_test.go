package main

import (
	"errors"
	"io"
	"strings"
	"testing"
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
