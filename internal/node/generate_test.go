package node

import (
	"context"
	"log/slog"
	"math/big"
	"slices"
	"strings"
	"testing"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/flashrpc/flashrpc/internal/api"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/chaingen"
	"github.com/flashrpc/flashrpc/internal/logs"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// TestGenerateThenServe generates a 2,000-block chain (Generate, the generate command's), serves
// it as flashrpc serve does, and checks blocks and eth_getLogs over HTTP against the chain's own
// receipts.
func TestGenerateThenServe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var log strings.Builder
	cfg := GenerateConfig{DataDir: dir, Blocks: 2_000, Seed: 5, ChainID: chain.DefaultChainID, TxsPerBlock: 3,
		Tokens: 50, Accounts: 1_000, RareEvery: 100, Log: &log}
	if err := Generate(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "log index built") {
		t.Fatalf("no index build in the output:\n%s", log.String())
	}

	logger := slog.New(slog.DiscardHandler)
	srv := Server{DataDir: dir, HTTPAddr: "127.0.0.1", Logger: logger} // zero limits: the defaults
	c, err := chain.Open(chain.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ix, err := logs.OpenIndex(logs.IndexConfig{Store: c.LogIndexStore(), Chain: c, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if last, ok := ix.Indexed(); !ok || last != 2_000 {
		t.Fatalf("the generated index covers %d (%v), want 2000", last, ok)
	}
	b := api.Backend{Chain: c, Pool: txpool.New(c.Config(), txpool.Config{}), Logs: ix}
	eps, err := Listen(srv, api.New(apiConfig(&srv, false, logger), b).Service(), api.New(apiConfig(&srv, true, logger), b).Service())
	if err != nil {
		t.Fatal(err)
	}
	eps.Serve()
	defer eps.Shutdown(context.Background())
	client, err := ethclient.Dial(eps[0].URL())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ctx := context.Background()

	if n, err := client.BlockNumber(ctx); err != nil || n != 2_000 {
		t.Fatalf("eth_blockNumber %d, %v", n, err)
	}
	block, err := client.BlockByNumber(ctx, big.NewInt(1_234))
	if err != nil || block.Hash() != c.CanonicalHash(1_234) {
		t.Fatalf("eth_getBlockByNumber: %v", err)
	}

	all := func(keep func(*types.Log) bool) []types.Log {
		var out []types.Log
		for n := uint64(0); n <= 2_000; n++ {
			for _, r := range c.Receipts(c.CanonicalHash(n)) {
				for _, l := range r.Logs {
					if keep(l) {
						out = append(out, *l)
					}
				}
			}
		}
		return out
	}
	busiest := common.BytesToHash(chaingen.Account(0, chaingen.DefaultSenders).Bytes())
	for _, q := range []struct {
		name  string
		query ethereum.FilterQuery
		keep  func(*types.Log) bool
	}{
		{"one token", ethereum.FilterQuery{FromBlock: big.NewInt(0), Addresses: []common.Address{chaingen.Token(7)}},
			func(l *types.Log) bool { return l.Address == chaingen.Token(7) }},
		{"token and event", ethereum.FilterQuery{FromBlock: big.NewInt(100), ToBlock: big.NewInt(1_900), Addresses: []common.Address{chaingen.Token(3)}, Topics: [][]common.Hash{{chaingen.ApprovalTopic}}},
			func(l *types.Log) bool {
				return l.Address == chaingen.Token(3) && l.Topics[0] == chaingen.ApprovalTopic && l.BlockNumber >= 100 && l.BlockNumber <= 1_900
			}},
		{"rare event", ethereum.FilterQuery{FromBlock: big.NewInt(0), Topics: [][]common.Hash{{chaingen.RareTopic}}},
			func(l *types.Log) bool { return l.Topics[0] == chaingen.RareTopic }},
		{"transfers from the busiest account", ethereum.FilterQuery{FromBlock: big.NewInt(0), Topics: [][]common.Hash{{chaingen.TransferTopic}, {busiest}}},
			func(l *types.Log) bool { return l.Topics[0] == chaingen.TransferTopic && l.Topics[1] == busiest }},
	} {
		got, err := client.FilterLogs(ctx, q.query)
		if err != nil {
			t.Fatalf("%s: %v", q.name, err)
		}
		want := all(q.keep)
		if len(want) == 0 || !slices.EqualFunc(got, want, func(a, b types.Log) bool {
			return a.TxHash == b.TxHash && a.Index == b.Index && a.BlockHash == b.BlockHash && a.Address == b.Address && slices.Equal(a.Data, b.Data)
		}) {
			t.Fatalf("%s: got %d logs, want %d", q.name, len(got), len(want))
		}
	}
}
