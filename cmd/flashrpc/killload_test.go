package main

import (
	"context"
	"math/big"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
)

// killedUnderLoad runs `flashrpc dev` with args on a new data directory in a separate
// process under a stream of transfers from two dev accounts, records every block a client
// saw sealed on the standard endpoint until it saw blocks 1..blocks, then kills the process
// with SIGKILL mid-stream. Once the client has seen half of the blocks, midway (when not nil)
// runs with the standard endpoint, as the stream goes on: the dev chain's cheats, say. It
// returns the data directory and the blocks seen, by number.
func killedUnderLoad(t *testing.T, blocks uint64, midway func(*gethrpc.Client), args ...string) (dir string, seen map[uint64]common.Hash) {
	t.Helper()
	ctx := context.Background()
	bin := stampedBinary(t)
	dir = t.TempDir()
	cmd := exec.Command(bin, append(append([]string{"dev"}, args...), "--datadir", dir, "--http.port", "0", "--preconf.port", "0", "--feed.port", "-1")...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	raw, err := gethrpc.Dial(endpointURL(t, stdout, "standard"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	client := ethclient.NewClient(raw)

	// The load: transfers signed beforehand, sent as fast as the endpoint takes them until
	// the process is killed.
	const perAccount = 2000
	keys := testOptionsAccounts(t)[:2]
	recipient := common.HexToAddress("0x000000000000000000000000000000000000dead")
	var killed atomic.Bool
	loadErr := make(chan error, len(keys))
	var load sync.WaitGroup
	for _, key := range keys {
		var txs []*types.Transaction
		for nonce := range uint64(perAccount) {
			txs = append(txs, signTx(t, key, big.NewInt(1337), nonce, &recipient, big.NewInt(1), params.TxGas, nil))
		}
		load.Add(1)
		go func() {
			defer load.Done()
			for _, tx := range txs {
				if err := client.SendTransaction(ctx, tx); err != nil {
					if !killed.Load() {
						loadErr <- err
					}
					return
				}
			}
		}()
	}

	// The watcher: every sealed block the standard endpoint serves, by number.
	seen = map[uint64]common.Hash{}
	var next uint64 = 1
	deadline := time.Now().Add(60 * time.Second)
	for next <= blocks {
		if time.Now().After(deadline) {
			t.Fatalf("the node sealed %d blocks in 60 s, want %d", next-1, blocks)
		}
		select {
		case err := <-loadErr:
			t.Fatalf("load: %v", err)
		default:
		}
		for {
			h, err := client.HeaderByNumber(ctx, new(big.Int).SetUint64(next))
			if err != nil {
				break // not sealed yet
			}
			seen[next] = h.Hash()
			next++
		}
		if midway != nil && next > blocks/2 {
			midway(raw)
			midway = nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	killed.Store(true)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait() // killed: its exit status says so
	load.Wait()
	close(loadErr)
	for err := range loadErr {
		t.Fatalf("load: %v", err)
	}
	return dir, seen
}

// checkSeenBlocks fails unless tn serves every block of seen with the hash a client saw
// before the kill, and at least one of them carried a transfer (the node was under load).
func checkSeenBlocks(t *testing.T, tn *testNode, seen map[uint64]common.Hash) {
	t.Helper()
	ctx := context.Background()
	var withTxs int
	for n, hash := range seen {
		h, err := tn.std.HeaderByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatalf("after kill -9: block %d: %v", n, err)
		}
		if h.Hash() != hash {
			t.Fatalf("after kill -9: block %d is %s, the client saw %s", n, h.Hash(), hash)
		}
		b, err := tn.std.BlockByHash(ctx, hash)
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Transactions()) > 2 {
			withTxs++
		}
	}
	if withTxs == 0 {
		t.Fatal("no block the client saw carried a transfer: the node was not under load")
	}
}
