package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	gethrpc "github.com/ethereum/go-ethereum/rpc"
)

// TestVersionMatchesGit builds the binary from this checkout with VCS stamping and checks that
// `flashrpc version`, `flashrpc --version` and web3_clientVersion name the commit `git
// rev-parse HEAD` names, and say "modified" exactly when `git status` shows changes.
func TestVersionMatchesGit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the flashrpc binary; skipped with -short")
	}
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		skipOutsideCI(t, "not in a git checkout (or no git): %v", err)
	}
	if fi, err := os.Stat(filepath.Join(strings.TrimSpace(string(top)), ".git")); err != nil || !fi.IsDir() {
		// go build finds a repository by its .git directory; a worktree has a .git file, and
		// its builds carry no commit (internal/buildinfo's package comment).
		skipOutsideCI(t, "a git worktree: go stamps no VCS information here; run the test in a clone")
	}
	// A build of its own, right after reading the tree's state, which other tests' binaries
	// may predate.
	head := gitOutput(t, "rev-parse", "HEAD")
	dirty := gitOutput(t, "status", "--porcelain") != ""
	bin := filepath.Join(t.TempDir(), "flashrpc")
	if out, err := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}

	for _, arg := range []string{"version", "--version"} {
		out, err := exec.Command(bin, arg).CombinedOutput()
		if err != nil {
			t.Fatalf("flashrpc %s: %v\n%s", arg, err, out)
		}
		m := regexp.MustCompile(`(?m)^commit\s+([0-9a-f]{40})( \(modified)?`).FindSubmatch(out)
		if m == nil {
			t.Fatalf("flashrpc %s printed no commit line:\n%s", arg, out)
		}
		if string(m[1]) != head {
			t.Errorf("flashrpc %s: commit %s, git rev-parse HEAD %s", arg, m[1], head)
		}
		if modified := len(m[2]) > 0; modified != dirty {
			t.Errorf("flashrpc %s: modified = %v, git status shows changes: %v\n%s", arg, modified, dirty, out)
		}
		for _, want := range []string{"op-geth       v1.101702.3", "go-ethereum   1.17.2"} {
			if !bytes.Contains(out, []byte(want)) {
				t.Errorf("flashrpc %s: no %q in\n%s", arg, want, out)
			}
		}
	}

	url := startBinary(t, bin, "dev", "--block-time", "0", "--preconf-interval", "0")
	c, err := gethrpc.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var cv string
	if err := c.Call(&cv, "web3_clientVersion"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(cv, "flashrpc/v") || !strings.Contains(cv, "/"+head) || !strings.Contains(cv, "/op-geth-v1.101702.3/") {
		t.Errorf("web3_clientVersion = %q, want flashrpc/<version>/%s…/op-geth-v1.101702.3/…", cv, head)
	}
}

// skipOutsideCI skips the test, except in CI (CI set), where what it needs must be there.
func skipOutsideCI(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

func gitOutput(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", args...).Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// TestMain removes the binary stampedBinary built, if any.
func TestMain(m *testing.M) {
	code := m.Run()
	if binaryPath != "" {
		os.RemoveAll(filepath.Dir(binaryPath))
	}
	os.Exit(code)
}

var (
	binaryOnce sync.Once
	binaryPath string
	binaryErr  error
)

// stampedBinary builds ./cmd/flashrpc once per test run, with -buildvcs=true (this machine's
// Go environment may turn stamping off), and returns its path.
func stampedBinary(t testing.TB) string {
	t.Helper()
	binaryOnce.Do(func() {
		dir, err := os.MkdirTemp("", "flashrpc-bin-")
		if err != nil {
			binaryErr = err
			return
		}
		binaryPath = filepath.Join(dir, "flashrpc")
		if out, err := exec.Command("go", "build", "-buildvcs=true", "-o", binaryPath, ".").CombinedOutput(); err != nil {
			binaryErr = err
			t.Logf("%s", out)
		}
	})
	if binaryErr != nil {
		t.Fatalf("build flashrpc: %v", binaryErr)
	}
	return binaryPath
}

// startBinary runs bin with args (plus loopback ports chosen by the system, and for dev no
// feed) until the test ends, and returns the standard endpoint's URL.
func startBinary(t testing.TB, bin string, args ...string) string {
	t.Helper()
	args = append(args, "--http.port", "0", "--preconf.port", "0")
	if args[0] == "dev" {
		args = append(args, "--feed.port", "-1")
	}
	cmd := exec.Command(bin, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return endpointURL(t, stdout, "standard")
}
