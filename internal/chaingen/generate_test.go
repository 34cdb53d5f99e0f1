package chaingen_test

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/chaingen"
)

// generate writes blocks with cfg into a new datadir and returns the head hash and every log.
func generate(t *testing.T, cfg chaingen.Config) (common.Hash, []*types.Log, *chain.Chain) {
	t.Helper()
	dir := t.TempDir()
	w, err := chain.OpenBulk(chain.Config{DataDir: dir, Genesis: chaingen.Genesis(chain.DefaultChainID)})
	if err != nil {
		t.Fatal(err)
	}
	if err := chaingen.Generate(context.Background(), cfg, w); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := chain.Open(chain.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	var all []*types.Log
	for n := uint64(1); n <= c.Head().Number.Uint64(); n++ {
		all = append(all, c.FilterLogs(c.HeaderByNumber(n), func(*types.Log) bool { return true })...)
	}
	return c.Head().Hash(), all, c
}

func TestGenerateIsDeterministic(t *testing.T) {
	t.Parallel()
	cfg := chaingen.Config{Blocks: 300, Seed: 3, Accounts: 500, Senders: 50}
	one, _, _ := generate(t, cfg)
	cfg.Workers = 1
	two, _, _ := generate(t, cfg)
	cfg.Seed = 4
	other, _, _ := generate(t, cfg)
	if one != two {
		t.Fatalf("same seed, different workers: head %s vs %s", one, two)
	}
	if one == other {
		t.Fatal("different seeds gave the same chain")
	}
}

// TestGenerateShape checks what the benchmarks rely on: skewed token use, Transfer the most
// common event, the rare event rare but present, senders' nonces in order.
func TestGenerateShape(t *testing.T) {
	t.Parallel()
	const blocks = 2_000
	_, all, c := generate(t, chaingen.Config{Blocks: blocks, Seed: 1, RareEvery: 100, Accounts: 2_000, Senders: 200})
	byAddress := map[common.Address]int{}
	byTopic := map[common.Hash]int{}
	for _, l := range all {
		byAddress[l.Address]++
		byTopic[l.Topics[0]]++
	}
	if perBlock := float64(len(all)) / blocks; perBlock < 5 || perBlock > 11 {
		t.Errorf("%.1f logs per block, want about 7.5", perBlock)
	}
	if byAddress[chaingen.Token(0)] < 5*byAddress[chaingen.Token(20)] || byAddress[chaingen.Token(20)] == 0 {
		t.Errorf("token 0 has %d logs, token 20 %d: not skewed", byAddress[chaingen.Token(0)], byAddress[chaingen.Token(20)])
	}
	if byTopic[chaingen.TransferTopic] < byTopic[chaingen.ApprovalTopic] || byTopic[chaingen.ApprovalTopic] == 0 || byTopic[chaingen.SwapTopic] == 0 {
		t.Errorf("event counts %d transfers, %d approvals, %d swaps", byTopic[chaingen.TransferTopic], byTopic[chaingen.ApprovalTopic], byTopic[chaingen.SwapTopic])
	}
	if rare := byTopic[chaingen.RareTopic]; rare < 5 || rare > 60 || byAddress[chaingen.RareContract] != rare {
		t.Errorf("%d rare events in %d blocks, want about 20", rare, blocks)
	}
	signer := types.LatestSigner(c.Config())
	nonces := map[common.Address]uint64{}
	for n := uint64(1); n <= blocks; n++ {
		for _, tx := range c.BlockByNumber(n).Transactions() {
			from, err := types.Sender(signer, tx)
			if err != nil {
				t.Fatal(err)
			}
			if tx.Nonce() != nonces[from] {
				t.Fatalf("block %d: %s sent nonce %d, want %d", n, from, tx.Nonce(), nonces[from])
			}
			nonces[from]++
		}
	}
	if _, ok := nonces[chaingen.Account(0, 200)]; !ok {
		t.Error("the most active account sent nothing")
	}
}
