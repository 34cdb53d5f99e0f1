package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
)

// TestCluster runs scripts/cluster (a primary, two replicas and Debian's HAProxy, as real
// processes on loopback), sends requests through HAProxy while one replica is killed with
// SIGKILL, and checks that (almost) none fails, that the replica rejoins after a restart with
// its chain intact, and that a transaction sent through HAProxy is pre-confirmed on both
// replicas.
func TestCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the cluster script with real processes; skipped with -short")
	}
	if _, err := exec.LookPath("haproxy"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("haproxy is not installed (.ci/run installs Debian's haproxy)")
		}
		t.Skip("haproxy is not installed (apt-get install haproxy, or let scripts/cluster install it)")
	}
	bin := filepath.Join(t.TempDir(), "flashrpc")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	base := freePortBlock(t)
	dir := t.TempDir()
	script := exec.Command("../../scripts/cluster", "--port", strconv.Itoa(base), "--dir", dir)
	script.Env = append(os.Environ(), "FLASHRPC_BIN="+bin)
	stdout, err := script.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	script.Stderr = os.Stderr
	if err := script.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		script.Process.Signal(syscall.SIGTERM) // the script stops what it started
		script.Wait()
	})
	t.Cleanup(func() { // a failed run shows what each process logged
		if t.Failed() {
			logs, err := filepath.Glob(filepath.Join(dir, "*.log"))
			if err != nil {
				t.Logf("cluster logs: %v", err)
			}
			for _, name := range logs {
				data, err := os.ReadFile(name)
				if err != nil {
					t.Logf("%s: %v", name, err)
					continue
				}
				t.Logf("%s (last 4 kB):\n%s", filepath.Base(name), data[max(0, len(data)-4096):])
			}
		}
	})
	waitLine(t, stdout, "cluster ready")
	lb := fmt.Sprintf("http://127.0.0.1:%d", base+101)
	replicaPre := func(i int) string { return fmt.Sprintf("http://127.0.0.1:%d", base+10*i+1) }

	// Load through HAProxy; replica 1 is killed in the middle of it.
	var ok, failed atomic.Int64
	var mu sync.Mutex
	served := map[string]int{}
	var failures []string
	stop := make(chan struct{})
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 10 * time.Second}
	for range 4 {
		wg.Go(func() {
			for i := 0; i < 5000; i++ {
				select {
				case <-stop:
					return
				default:
				}
				replica, err := rpcOnce(client, lb, `{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["pending",false]}`)
				mu.Lock()
				if err != nil {
					failed.Add(1)
					failures = append(failures, err.Error())
				} else {
					ok.Add(1)
					served[replica]++
				}
				mu.Unlock()
			}
		})
	}
	waitFor(t, "requests through HAProxy", func() bool { return ok.Load() > 500 })
	pid := readPid(t, filepath.Join(dir, "replica1.pid"))
	head1 := blockNumber(t, client, replicaPre(1))
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killedAt := ok.Load()
	waitFor(t, "requests after the kill", func() bool { return ok.Load() > killedAt+1500 })
	close(stop)
	wg.Wait()
	t.Logf("through HAProxy: %d answered, %d failed across the SIGKILL of a replica; answered by %v", ok.Load(), failed.Load(), served)
	if failed.Load() > 5 { // "a handful" (issue 18); aim 0
		t.Fatalf("%d requests failed (at most a handful allowed): %q", failed.Load(), failures)
	}

	// Restart the killed replica: its chain survived, and it rejoins HAProxy.
	restart := exec.Command(filepath.Join(dir, "replica1.sh"))
	if err := restart.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { restart.Process.Kill(); restart.Wait() })
	restarted := time.Now()
	waitFor(t, "the restarted replica healthy", func() bool {
		resp, err := client.Get(replicaPre(1) + "/health")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	healthyAfter := time.Since(restarted)
	if h := blockNumber(t, client, replicaPre(1)); h < head1 {
		t.Fatalf("the restarted replica's head %d is below its head before the kill, %d", h, head1)
	}
	waitFor(t, "HAProxy sending requests to the restarted replica", func() bool {
		replica, err := rpcOnce(client, lb, `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`)
		return err == nil && replica == "replica1"
	})
	t.Logf("restarted replica healthy %s after its start, back behind HAProxy %s after it", healthyAfter.Round(10*time.Millisecond), time.Since(restarted).Round(10*time.Millisecond))

	// A WebSocket subscription through HAProxy: the tunnel passes notifications through.
	ws, err := ethclient.Dial(fmt.Sprintf("ws://127.0.0.1:%d", base+101))
	if err != nil {
		t.Fatalf("WebSocket through HAProxy: %v", err)
	}
	defer ws.Close()
	heads := make(chan *types.Header, 4)
	sub, err := ws.SubscribeNewHead(context.Background(), heads)
	if err != nil {
		t.Fatalf("subscribe through HAProxy: %v", err)
	}
	defer sub.Unsubscribe()
	select {
	case h := <-heads:
		t.Logf("newHeads through HAProxy: block %d", h.Number)
	case err := <-sub.Err():
		t.Fatal(err)
	case <-time.After(30 * time.Second):
		t.Fatal("no new head through HAProxy's WebSocket tunnel")
	}

	// A transaction through HAProxy is pre-confirmed on both replicas.
	key := testOptionsAccounts(t)[3]
	tx := signTx(t, key, big.NewInt(1337), 0, &common.Address{0xc1}, big.NewInt(1), params.TxGas, nil)
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":[%q]}`, hexutil.Encode(raw))
	if _, err := rpcOnce(client, lb, body); err != nil {
		t.Fatalf("send through HAProxy: %v", err)
	}
	for i := 1; i <= 2; i++ {
		waitFor(t, fmt.Sprintf("the transaction pre-confirmed on replica %d", i), func() bool {
			var res struct {
				Result *struct {
					BlockNumber *hexutil.Uint64 `json:"blockNumber"`
				} `json:"result"`
			}
			err := rpcJSON(client, replicaPre(i), fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"eth_getTransactionByHash","params":[%q]}`, tx.Hash()), &res)
			return err == nil && res.Result != nil && res.Result.BlockNumber != nil
		})
	}
}

// rpcOnce posts one JSON-RPC request and returns the replica that answered (HAProxy's
// X-Flashrpc-Replica header); an HTTP error or a JSON-RPC error is an error.
func rpcOnce(client *http.Client, url, body string) (string, error) {
	resp, err := client.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, data)
	}
	if bytes.Contains(data, []byte(`"error"`)) {
		return "", fmt.Errorf("JSON-RPC error: %.200s", data)
	}
	return resp.Header.Get("X-Flashrpc-Replica"), nil
}

func rpcJSON(client *http.Client, url, body string, out any) error {
	resp, err := client.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(out)
}

func blockNumber(t *testing.T, client *http.Client, url string) uint64 {
	t.Helper()
	var res struct {
		Result hexutil.Uint64 `json:"result"`
	}
	if err := rpcJSON(client, url, `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`, &res); err != nil {
		t.Fatal(err)
	}
	return uint64(res.Result)
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// waitLine reads r until a line contains want.
func waitLine(t *testing.T, r io.Reader, want string) {
	t.Helper()
	found := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if strings.Contains(sc.Text(), want) {
				close(found)
				break
			}
		}
		io.Copy(io.Discard, r)
	}()
	select {
	case <-found:
	case <-time.After(3 * time.Minute):
		t.Fatalf("no %q line from the cluster script", want)
	}
}

// freePortBlock returns a base port whose cluster ports (base..base+102) are free now.
func freePortBlock(t *testing.T) int {
	t.Helper()
	ctx := context.Background()
	for range 50 {
		base := 20000 + rand.IntN(300)*100
		free := true
		for _, off := range []int{0, 1, 2, 10, 11, 12, 20, 21, 22, 100, 101, 102} {
			ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", fmt.Sprintf("127.0.0.1:%d", base+off))
			if err != nil {
				free = false
				break
			}
			ln.Close()
		}
		if free {
			return base
		}
	}
	t.Fatal("no free block of ports")
	return 0
}
