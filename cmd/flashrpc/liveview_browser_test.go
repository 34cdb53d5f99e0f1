package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// liveviewDir holds the browser check of the live view; screenshots go to shotDir, which
// .gitignore keeps out of the repository (CI keeps them as artifacts).
var (
	liveviewDir = filepath.Join("..", "..", "scripts", "liveview")
	shotDir     = filepath.Join("..", "..", ".artifacts", "liveview")
)

// TestLiveViewBrowser opens the live view of both endpoints of a dev node running on its
// default timing (200 ms / 2 s) in headless Chromium (scripts/liveview/check.mjs), sends
// transactions and checks that each appears with its block number and status: on the
// pre-confirmed page when pre-confirmed, on the standard one when sealed. It then stops the
// node, checks that the pages say so, starts it again on the same ports and data directory
// and checks that the pages reconnect and show the next transaction. It needs node,
// `npm ci --prefix scripts/liveview` and /usr/bin/chromium; without them it skips, unless
// FLASHRPC_BROWSER_REQUIRED is set (CI sets it: .ci/run installs them first).
func TestLiveViewBrowser(t *testing.T) {
	required := os.Getenv("FLASHRPC_BROWSER_REQUIRED") != ""
	missing := func(why string) {
		if required {
			t.Fatal(why)
		}
		t.Skip(why + " (FLASHRPC_BROWSER_REQUIRED makes this a failure)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		missing("node is not installed")
	}
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		missing("/usr/bin/chromium is not installed (apt-get install chromium)")
	}
	if _, err := os.Stat(filepath.Join(liveviewDir, "node_modules", "playwright-core")); err != nil {
		missing("playwright-core is not installed: run npm ci --prefix scripts/liveview")
	}
	dir := t.TempDir()
	o := testOptions(dir)
	o.blockTime, o.preconfInterval, o.feed.Port = 2*time.Second, 200*time.Millisecond, -1
	tn := startTestNode(t, o)
	stdPort, prePort := portOf(t, tn.stdURL), portOf(t, tn.preURL)

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	shots, err := filepath.Abs(shotDir)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "node", "check.mjs")
	cmd.Dir = liveviewDir
	cmd.Env = append(os.Environ(), "FLASHRPC_PRE_URL="+tn.preURL+"/", "FLASHRPC_STD_URL="+tn.stdURL+"/", "FLASHRPC_SHOT_DIR="+shots)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			t.Log(sc.Text())
			lines <- sc.Text()
		}
		close(lines)
	}()
	await := func(prefix string) string {
		t.Helper()
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("check.mjs ended before %q", prefix)
				}
				if strings.HasPrefix(l, prefix) {
					return l
				}
			case <-ctx.Done():
				t.Fatalf("no %q from check.mjs", prefix)
			}
		}
	}
	say := func(line string) {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("write to check.mjs: %v", err)
		}
	}
	// expect has the pages look for tx and checks the block numbers they show against the
	// sealed receipt's.
	expect := func(tx *types.Transaction) {
		t.Helper()
		say("expect " + tx.Hash().Hex())
		pre, std := await("seen pre "), await("seen std ")
		rcpt, err := tn.std.TransactionReceipt(ctx, tx.Hash())
		if err != nil {
			t.Fatalf("receipt of %s: %v", tx.Hash(), err)
		}
		for _, l := range []string{pre, std} {
			if f := strings.Fields(l); len(f) < 4 || f[3] != rcpt.BlockNumber.String() {
				t.Errorf("%q: want block %s", l, rcpt.BlockNumber)
			}
		}
	}
	keys := testOptionsAccounts(t)
	chainID := big.NewInt(1337)
	dead := common.HexToAddress("0x000000000000000000000000000000000000dEaD")
	send := func(key int, nonce uint64, value *big.Int) *types.Transaction {
		t.Helper()
		tx := signTx(t, keys[key], chainID, nonce, &dead, value, params.TxGas, nil)
		if err := tn.pre.SendTransaction(ctx, tx); err != nil {
			t.Fatalf("send: %v", err)
		}
		return tx
	}

	await("ready")
	expect(send(0, 0, big.NewInt(params.Ether)))

	// A few more, from several accounts, for the screenshot.
	var last *types.Transaction
	for i := range 12 {
		last = send(1+i%4, uint64(i/4), new(big.Int).Mul(big.NewInt(int64(i+1)), big.NewInt(params.GWei*1e6)))
	}
	expect(last)
	say("shot liveview")
	await("shot")

	// The node restarts on the same ports and data directory: the pages reconnect.
	tn.stop()
	say("down")
	await("down")
	o = testOptions(dir)
	o.blockTime, o.preconfInterval, o.feed.Port = 2*time.Second, 200*time.Millisecond, -1
	o.HTTPPort, o.PreconfPort = stdPort, prePort
	tn = startTestNode(t, o)
	say("live")
	await("live")
	expect(send(9, 0, big.NewInt(params.Ether/2)))

	say("done")
	summary := await("liveview: ")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("check.mjs: %v (%s)", err, summary)
	}
	fmt.Println(summary)
}

// portOf returns the port of an http://host:port URL.
func portOf(t *testing.T, url string) int {
	t.Helper()
	_, port, err := net.SplitHostPort(strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(port)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
