package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// viemPendingDir holds the viem check of the pre-confirmation streams.
var viemPendingDir = filepath.Join("..", "..", "scripts", "viem-pending")

// TestViemPending runs scripts/viem-pending/check.mjs (viem: pendingLogs, newFlashblocks,
// retraction, sendRawTransactionSync) against a node in manual mode and prints its report.
// It needs node and `npm ci --prefix scripts/viem-pending`; without them it skips, unless
// FLASHRPC_VIEM_REQUIRED is set (CI sets it: .ci/run installs the script's packages first).
func TestViemPending(t *testing.T) {
	required := os.Getenv("FLASHRPC_VIEM_REQUIRED") != ""
	missing := func(why string) {
		if required {
			t.Fatal(why)
		}
		t.Skip(why + " (FLASHRPC_VIEM_REQUIRED makes this a failure)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		missing("node is not installed")
	}
	if _, err := os.Stat(filepath.Join(viemPendingDir, "node_modules", "viem")); err != nil {
		missing("viem is not installed: run npm ci --prefix scripts/viem-pending")
	}
	tn := startTestNode(t, testOptions(t.TempDir()))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "check.mjs")
	cmd.Dir = viemPendingDir
	cmd.Env = append(os.Environ(), "FLASHRPC_PRE_URL="+tn.preURL, "FLASHRPC_PRE_WS="+wsURL(tn.preURL))
	out, err := cmd.CombinedOutput()
	if testing.Verbose() {
		fmt.Print(string(out)) // the script's report, summary line last
	}
	if err != nil {
		t.Fatalf("check.mjs: %v\n%s", err, out)
	}
}
