package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/big"
	"net"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
)

// TestShutdownOnSIGTERM stops a dev node process with SIGTERM while it has a call in flight
// and a WebSocket subscriber: the call is answered, the subscriber gets a close frame with
// status 1001, the process takes no new connection and exits 0 with its storage closed, and
// a restart on the same data directory has the sealed block and its transaction.
func TestShutdownOnSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the flashrpc binary; skipped with -short")
	}
	ctx := context.Background()
	bin := stampedBinary(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "dev", "--datadir", dir, "--http.port", "0", "--preconf.port", "0", "--feed.port", "-1",
		"--block-time", "0", "--preconf-interval", "0", "--rpc.gascap", "0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncWriter
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	urls := bannerURLs(t, stdout, "standard", "pre-confirmed")
	stdURL, preURL := urls[0], urls[1]

	// A sealed block with a transaction.
	raw, err := gethrpc.Dial(stdURL)
	if err != nil {
		t.Fatal(err)
	}
	client := ethclient.NewClient(raw)
	dead := common.HexToAddress("0x000000000000000000000000000000000000dEaD")
	tx := signTx(t, testOptionsAccounts(t)[0], big.NewInt(1337), 0, &dead, big.NewInt(7), params.TxGas, nil)
	if err := client.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	var res map[string]any
	if err := raw.Call(&res, "dev_preconfirm"); err != nil {
		t.Fatal(err)
	}
	if err := raw.Call(&res, "dev_seal"); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	// A subscriber on the pre-confirmed endpoint.
	ws, _, err := websocket.Dial(ctx, wsURL(preURL), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	if err := ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}`)); err != nil {
		t.Fatal(err)
	}
	if _, msg, err := ws.Read(ctx); err != nil || !bytes.Contains(msg, []byte(`"result":"0x`)) {
		t.Fatalf("subscribe: %s %v", msg, err)
	}
	closed := make(chan error, 1)
	go func() {
		for {
			if _, _, err := ws.Read(ctx); err != nil {
				closed <- err
				return
			}
		}
	}()

	// A call in flight: an endless loop with 500M gas (about a second here), sent just
	// before the signal. It must be answered, not cut.
	call := `{"jsonrpc":"2.0","id":7,"method":"eth_call","params":[{"to":"0x00000000000000000000000000000000000000aa","gas":"0x1DCD6500"},"latest",{"0x00000000000000000000000000000000000000aa":{"code":"0x5b600056"}}]}`
	answered := make(chan string, 1)
	go func() {
		resp, err := http.Post(stdURL, "application/json", strings.NewReader(call))
		if err != nil {
			answered <- "transport error: " + err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answered <- string(b)
	}()
	time.Sleep(100 * time.Millisecond) // let the call reach the node; if it finished first, the rest still holds
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}

	var body map[string]any
	if got := <-answered; json.Unmarshal([]byte(got), &body) != nil || body["id"] != float64(7) {
		t.Errorf("the call in flight got %q, want its JSON-RPC answer", got)
	}
	if err := <-closed; websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Errorf("subscriber: %v, want a close frame with status 1001", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v, want 0\n%s", err, stderr.String())
	}
	logs := stderr.String()
	for _, want := range []string{`msg="shutting down" signal=terminated`, `msg=stopped head=1`} {
		if !strings.Contains(logs, want) {
			t.Errorf("log has no %q:\n%s", want, logs)
		}
	}
	if c, err := net.Dial("tcp", strings.TrimPrefix(stdURL, "http://")); err == nil {
		c.Close()
		t.Error("the stopped node still takes connections")
	}

	// Storage was flushed: a restart on the same datadir has the block and its transaction.
	url := startBinary(t, bin, "dev", "--datadir", dir, "--block-time", "0", "--preconf-interval", "0")
	client2, err := ethclient.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer client2.Close()
	rcpt, err := client2.TransactionReceipt(ctx, tx.Hash())
	if err != nil || rcpt.BlockNumber.Uint64() != 1 {
		t.Fatalf("after restart: receipt %v, %v; want it in block 1", rcpt, err)
	}
}

// bannerURLs reads the node's banner until the URLs of the named endpoints appear, in the
// order of names.
func bannerURLs(t *testing.T, r io.Reader, names ...string) []string {
	t.Helper()
	found := make(chan []string, 1)
	go func() {
		urls := make([]string, len(names))
		left := len(names)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			for i, name := range names {
				re := regexp.MustCompile(`^\s+` + regexp.QuoteMeta(name) + `\s+(http://\S+)`)
				if m := re.FindStringSubmatch(sc.Text()); m != nil && urls[i] == "" {
					urls[i] = m[1]
					if left--; left == 0 {
						found <- urls
					}
				}
			}
		}
		io.Copy(io.Discard, r)
	}()
	select {
	case urls := <-found:
		return urls
	case <-time.After(60 * time.Second):
		t.Fatal("the node did not print its endpoints")
		return nil
	}
}

// syncWriter is a bytes.Buffer safe for concurrent use, for a process's output.
type syncWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
