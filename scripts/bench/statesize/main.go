// Command statesize measures how a dev chain's datadir grows per block of the realistic mix
// (internal/benchmix: ETH transfers, ERC-20 transfers, Uniswap V2-style swaps), for comparing
// the state schemes (--state.scheme hash and path). It drives a running `flashrpc dev` started
// with --block-time 0 (blocks sealed on request), so that thousands of blocks of a given
// density are sealed in minutes: each block gets --txs-per-block transactions of the mix and is
// sealed with dev_seal (after dev_preconfirm on a chain with pre-confirmations). Every --every
// blocks it prints the blocks sealed since the mix was set up and the datadir's size. The
// path scheme keeps its last 128 blocks' changes in memory: stop the node (SIGTERM) and measure
// the datadir once more for the final figure. docs/operations.md ("State schemes") has the
// method and the figures.
//
//	flashrpc dev --block-time 0 --preconf-interval 0 --accounts 100 --datadir /tmp/h --state.scheme hash &
//	go run ./scripts/bench/statesize --datadir /tmp/h --blocks 2000 --txs-per-block 200 --preconfirm
package main

import (
	"context"
	"crypto/ecdsa"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/params"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/benchmix"
	"github.com/flashrpc/flashrpc/internal/devaccounts"
)

func main() {
	rpcURL := flag.String("rpc", "http://127.0.0.1:8547", "the node's pre-confirmed endpoint")
	dataDir := flag.String("datadir", "", "the node's --datadir, whose size is reported")
	blocks := flag.Int("blocks", 2000, "blocks to seal")
	perBlock := flag.Int("txs-per-block", 40, "transactions of the mix per block")
	accounts := flag.Int("accounts", 100, "dev accounts to send from (the node's --accounts must be at least this)")
	preconfirm := flag.Bool("preconfirm", false, "call dev_preconfirm before each dev_seal (a chain with pre-confirmations)")
	every := flag.Int("every", 500, "report every this many blocks")
	flag.Parse()
	if *dataDir == "" {
		log.Fatal("--datadir is required")
	}
	ctx := context.Background()
	c, err := gethrpc.Dial(*rpcURL)
	if err != nil {
		log.Fatal(err)
	}
	var id hexutil.Big
	if err := c.Call(&id, "eth_chainId"); err != nil {
		log.Fatal(err)
	}
	chainID := id.ToInt()
	accs, err := devaccounts.Derive(devaccounts.TestMnemonic, *accounts)
	if err != nil {
		log.Fatal(err)
	}
	nonces := make([]uint64, len(accs))
	keys := make([]*ecdsa.PrivateKey, len(accs))
	for i, a := range accs {
		var n hexutil.Uint64
		if err := c.Call(&n, "eth_getTransactionCount", a.Address, "pending"); err != nil {
			log.Fatal(err)
		}
		nonces[i], keys[i] = uint64(n), a.Key
	}
	mix := benchmix.New(chainID, accs[0].Address, nonces[0], big.NewInt(100*params.GWei), big.NewInt(1000))
	deployer := nonces[0]
	nonces[0] += benchmix.SetupDeployer
	setup, err := mix.Setup(accs[0].Key, deployer, keys, nonces)
	if err != nil {
		log.Fatal(err)
	}
	var raws []hexutil.Bytes
	for _, tx := range setup {
		raw, err := tx.MarshalBinary()
		if err != nil {
			log.Fatal(err)
		}
		raws = append(raws, raw)
	}
	for start := 0; start < len(raws); start += 200 {
		send(ctx, c, raws[start:min(len(raws), start+200)])
		seal(ctx, c, *preconfirm)
	}
	for range 3 { // what the pool still holds of the set-up
		seal(ctx, c, *preconfirm)
	}
	for i, a := range accs { // the set-up advanced the senders' nonces
		var n hexutil.Uint64
		if err := c.Call(&n, "eth_getTransactionCount", a.Address, "latest"); err != nil {
			log.Fatal(err)
		}
		nonces[i] = uint64(n)
	}
	base := dirSize(*dataDir)
	start := time.Now()
	fmt.Printf("mix set up (%d transactions); datadir %s\n", len(setup), mb(base))
	fmt.Println("blocks\ttransactions\tdatadir MB\tstate history MB\tgrowth KB/block\telapsed")
	var sent, n uint64
	for b := 1; b <= *blocks; b++ {
		raws = raws[:0]
		for range *perBlock {
			a := n % uint64(len(accs))
			tx, err := mix.Tx(accs[a].Key, nonces[a], n)
			if err != nil {
				log.Fatal(err)
			}
			nonces[a]++
			n++
			raw, err := tx.MarshalBinary()
			if err != nil {
				log.Fatal(err)
			}
			raws = append(raws, raw)
		}
		send(ctx, c, raws)
		sent += uint64(len(raws))
		seal(ctx, c, *preconfirm)
		if b%*every == 0 || b == *blocks {
			size := dirSize(*dataDir)
			history := dirSize(filepath.Join(*dataDir, "chaindata", "ancient", "state"))
			fmt.Printf("%d\t%d\t%s\t%s\t%.1f\t%s\n", b, sent, mb(size), mb(history), float64(size-base)/1024/float64(b), time.Since(start).Round(time.Second))
		}
	}
}

// send sends raws in one batch and stops at the first refusal.
func send(ctx context.Context, c *gethrpc.Client, raws []hexutil.Bytes) {
	batch := make([]gethrpc.BatchElem, len(raws))
	for i, raw := range raws {
		batch[i] = gethrpc.BatchElem{Method: "eth_sendRawTransaction", Args: []any{raw}, Result: new(common.Hash)}
	}
	if err := c.BatchCallContext(ctx, batch); err != nil {
		log.Fatal(err)
	}
	for _, e := range batch {
		if e.Error != nil {
			log.Fatalf("send: %v", e.Error)
		}
	}
}

// seal seals the block in progress (pre-confirming the pool first when asked).
func seal(ctx context.Context, c *gethrpc.Client, preconfirm bool) {
	if preconfirm {
		if err := c.CallContext(ctx, nil, "dev_preconfirm"); err != nil {
			log.Fatalf("dev_preconfirm: %v", err)
		}
	}
	if err := c.CallContext(ctx, nil, "dev_seal"); err != nil {
		log.Fatalf("dev_seal: %v", err)
	}
}

// dirSize is the bytes the files under dir take (their sizes, as du --apparent-size).
func dirSize(dir string) int64 {
	var total int64
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) || strings.Contains(err.Error(), "no such file") {
				return nil // a file Pebble removed while walking
			}
			return err
		}
		if info, err := d.Info(); err == nil && !d.IsDir() {
			total += info.Size()
		}
		return nil
	})
	return total
}

func mb(b int64) string { return fmt.Sprintf("%.1f", float64(b)/1e6) }
