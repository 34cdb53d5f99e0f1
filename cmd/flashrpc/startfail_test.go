package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestStartFailures runs the real binary into every common start failure of dev, serve and
// follow: a port taken (each listener), a data directory it cannot create or that another
// process holds, an upstream nobody answers at. Each must exit 1 by itself, with one line on
// standard error (besides log lines) that says what failed and what to do, and no panic.
func TestStartFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the flashrpc binary; skipped with -short")
	}
	bin := stampedBinary(t)

	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := strconv.Itoa(taken.Addr().(*net.TCPAddr).Port)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nobody := "http://" + closed.Addr().String()
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	unwritable := filepath.Join(file, "datadir") // under a file: cannot be created, even by root

	// A stored chain for serve, and a running upstream (holding its own datadir) for follow.
	stored := t.TempDir()
	tn := startTestNode(t, testOptions(stored))
	tn.stop()
	upDir := t.TempDir()
	upstream := startBinary(t, bin, "dev", "--datadir", upDir, "--block-time", "0", "--preconf-interval", "0")
	genesis := filepath.Join(upDir, "genesis.json")

	dev := []string{"dev", "--http.port", "0", "--preconf.port", "0", "--feed.port", "-1"}
	serve := []string{"serve", "--datadir", stored, "--http.port", "0", "--preconf.port", "0"}
	follow := []string{"follow", "--upstream", upstream, "--genesis", genesis, "--http.port", "0", "--preconf.port", "0", "--feed.port", "-1"}
	with := func(base []string, more ...string) []string { return append(append([]string{}, base...), more...) }
	cases := []struct {
		name string
		args []string
		want []string // fragments of the one error line
	}{
		{"dev standard port", with(dev, "--http.port", port), []string{"standard endpoint", "address already in use", "choose another with --http.port"}},
		{"dev pre-confirmed port", with(dev, "--preconf.port", port), []string{"pre-confirmed endpoint", "choose another with --preconf.port"}},
		{"dev feed port", with(dev, "--feed.port", port), []string{"flashblocks feed", "choose another with --feed.port"}},
		{"dev metrics port", with(dev, "--metrics.port", port), []string{"metrics", "choose another with --metrics.port"}},
		{"dev datadir", with(dev, "--datadir", unwritable), []string{unwritable, "give --datadir a directory"}},
		{"dev datadir in use", with(dev, "--datadir", upDir), []string{upDir, "has that --datadir open"}},
		{"dev fork of nobody", with(dev, "--fork-url", nobody), []string{"cannot reach the upstream", nobody, "check the upstream's URL"}},
		{"serve standard port", with(serve, "--http.port", port), []string{"standard endpoint", "choose another with --http.port"}},
		{"serve datadir", with(serve, "--datadir", unwritable), []string{unwritable, "give --datadir a directory"}},
		{"follow standard port", with(follow, "--http.port", port), []string{"standard endpoint", "choose another with --http.port"}},
		{"follow pre-confirmed port", with(follow, "--preconf.port", port), []string{"pre-confirmed endpoint", "choose another with --preconf.port"}},
		{"follow feed port", with(follow, "--feed.port", port), []string{"flashblocks feed", "choose another with --feed.port"}},
		{"follow datadir", with(follow, "--datadir", unwritable), []string{unwritable, "give --datadir a directory"}},
		{"follow upstream of nobody", with(follow, "--upstream", nobody), []string{nobody, "check the upstream's URL"}},
		{"follow remote state of nobody", with(follow[:1], "--upstream", nobody, "--state", "remote", "--http.port", "0", "--preconf.port", "0", "--feed.port", "-1"), []string{"cannot reach the upstream", "check the upstream's URL"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// A deadline for a hang, not a measure: every case fails at once or after the
			// first contact's few short retries.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, tc.args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Fatalf("flashrpc %s: %v, want exit status 1\nstderr:\n%s", strings.Join(tc.args, " "), err, stderr.String())
			}
			if s := stderr.String(); strings.Contains(s, "panic") || strings.Contains(s, "goroutine ") {
				t.Fatalf("flashrpc %s panicked:\n%s", strings.Join(tc.args, " "), s)
			}
			var lines []string
			for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
				if !strings.HasPrefix(l, "time=") { // a log line
					lines = append(lines, l)
				}
			}
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "flashrpc: ") {
				t.Fatalf("flashrpc %s: want one error line, got %q", strings.Join(tc.args, " "), lines)
			}
			for _, w := range tc.want {
				if !strings.Contains(lines[0], w) {
					t.Errorf("error line %q does not say %q", lines[0], w)
				}
			}
			if strings.Contains(tc.name, "nobody") && strings.Contains(tc.name, "fork") || strings.Contains(tc.name, "remote state") {
				// The retries of the first contact are logged as they happen.
				if n := strings.Count(stderr.String(), "upstream request failed; retrying"); n != 2 {
					t.Errorf("%d retry log lines, want 2:\n%s", n, stderr.String())
				}
			}
		})
	}
}
