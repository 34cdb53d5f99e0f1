package main

import (
	"bufio"
	"context"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
)

// TestSealedBlockSurvivesKill seals a block in a separate flashrpc process, kills it with
// SIGKILL (no shutdown code runs), and checks that a node restarted on the same data directory
// has the block, its transaction and its state.
func TestSealedBlockSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the flashrpc binary; skipped with -short")
	}
	ctx := context.Background()
	bin := filepath.Join(t.TempDir(), "flashrpc")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	cmd := exec.Command(bin, "dev", "--datadir", dir, "--http.port", "0", "--preconf.port", "0", "--feed.port", "0", "--block-time", "0", "--preconf-interval", "0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	url := endpointURL(t, stdout, "standard")

	raw, err := gethrpc.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	client := ethclient.NewClient(raw)
	key := testOptionsAccounts(t)[0]
	recipient := common.HexToAddress("0x000000000000000000000000000000000000dead")
	tx := signTx(t, key, big.NewInt(1337), 0, &recipient, big.NewInt(7), params.TxGas, nil)
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
	sealed, err := client.BlockByNumber(ctx, nil)
	if err != nil || sealed.NumberU64() != 1 {
		t.Fatalf("sealed block: %v", err)
	}
	client.Close()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	tn := startTestNode(t, testOptions(dir))
	head, err := tn.std.BlockByNumber(ctx, nil)
	if err != nil || head.Hash() != sealed.Hash() {
		t.Fatalf("after kill -9: head %v (%v), want block 1 %s", head.Number(), err, sealed.Hash())
	}
	if r, err := tn.std.TransactionReceipt(ctx, tx.Hash()); err != nil || r.BlockNumber.Uint64() != 1 {
		t.Fatalf("receipt after kill -9: %v", err)
	}
	if bal, err := tn.std.BalanceAt(ctx, recipient, nil); err != nil || bal.Int64() != 7 {
		t.Fatalf("state after kill -9: balance %v %v", bal, err)
	}
}

// endpointURL reads the node's banner until the named endpoint's URL appears.
func endpointURL(t testing.TB, r interface{ Read([]byte) (int, error) }, name string) string {
	t.Helper()
	re := regexp.MustCompile(`^\s+` + regexp.QuoteMeta(name) + `\s+(http://\S+)`)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case url := <-found:
		return url
	case <-time.After(60 * time.Second):
		t.Fatalf("the node did not print its %s endpoint", name)
		return ""
	}
}
