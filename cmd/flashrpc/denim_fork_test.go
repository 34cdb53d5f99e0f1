package main

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/fork"
	"github.com/flashrpc/flashrpc/internal/networks"
	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// baseUpstreamOptions returns the options of `flashrpc dev --network base-mainnet` in dir,
// with chain id chainID, sealing on request (an explicit --block-time 0) or, with timer, at
// the network's 200 ms.
func baseUpstreamOptions(dir string, chainID uint64, timer bool) *devOptions {
	o := testOptions(dir)
	o.network, o.chainID = "base-mainnet", chainID
	o.given = map[string]bool{"chain-id": true, "block-time": !timer}
	if timer {
		o.blockTime = networks.DenimBlockTime
	}
	return o
}

// msBlock is what the Denim tests read of a block over JSON-RPC.
type msBlock struct {
	Number       hexutil.Uint64  `json:"number"`
	Hash         string          `json:"hash"`
	ParentHash   string          `json:"parentHash"`
	TimestampMs  *hexutil.Uint64 `json:"timestampMs"`
	Transactions []struct {
		To    *string       `json:"to"`
		Input hexutil.Bytes `json:"input"`
		Type  hexutil.Uint64
	} `json:"transactions"`
}

func blockMs(t *testing.T, c *gethrpc.Client, number uint64) msBlock {
	t.Helper()
	var b msBlock
	if err := c.Call(&b, "eth_getBlockByNumber", hexutil.Uint64(number), true); err != nil {
		t.Fatal(err)
	}
	return b
}

// checkDenimChain fails unless blocks from..to of c are Denim blocks, each with the BaseTime
// deposit as transaction 1 (its part the block's) and a millisecond time 200 after its
// parent's, the first 200 after parentMs.
func checkDenimChain(t *testing.T, c *gethrpc.Client, from, to, parentMs uint64) {
	t.Helper()
	for n := from; n <= to; n++ {
		b := blockMs(t, c, n)
		if b.TimestampMs == nil || uint64(*b.TimestampMs) != parentMs+200 {
			t.Fatalf("block %d: timestampMs %v, want %d (its parent's + 200)", n, b.TimestampMs, parentMs+200)
		}
		if len(b.Transactions) < 2 || b.Transactions[1].To == nil || !strings.EqualFold(*b.Transactions[1].To, oprollup.BaseTime.Hex()) ||
			string(b.Transactions[1].Input) != string(oprollup.BaseTimeCalldata(uint16(uint64(*b.TimestampMs)%1000))) {
			t.Fatalf("block %d: transaction 1 is not the BaseTime deposit of its part", n)
		}
		parentMs = uint64(*b.TimestampMs)
	}
}

// TestForkDenim forks `flashrpc dev --network base-mainnet --chain-id 8453`: a local chain
// with Base mainnet's chain id, which the fork does not take for Base (whose Beryl flashrpc
// does not run) but runs with Base's rules as of now. The fork runs Denim at Base's cadence
// (200 ms blocks, no pre-confirmations, without being told): its first block's millisecond
// time is the fork block's + 200, and every block its sequencer seals carries the BaseTime
// deposit and the parent's time + 200.
func TestForkDenim(t *testing.T) {
	up := startTestNode(t, baseUpstreamOptions(t.TempDir(), 8453, false))
	for range 3 {
		up.seal(t)
	}
	const n = 3
	upN := blockMs(t, up.stdRaw, n)
	if upN.TimestampMs == nil {
		t.Fatal("the upstream's block 3 has no timestampMs")
	}

	o := testOptions(t.TempDir())
	o.fork.url = up.stdURL
	o.fork.block = optionalInt{v: n, set: true}
	o.given = map[string]bool{} // Base's cadence from the chain's Denim
	tn := startTestNode(t, o)
	c := tn.Chain()
	if d := c.Denim(); d == nil || *d != 0 {
		t.Fatalf("the fork runs Denim from %v, want 0", d)
	}
	if id := c.Config().ChainID.Uint64(); id != 8453 {
		t.Fatalf("chain id %d, want the upstream's 8453", id)
	}
	if info := fork.Of(c).Info().Network; !strings.Contains(info, "Base") || !strings.Contains(info, "local chain") {
		t.Fatalf("the fork runs %q, want Base's rules as of now for a local chain", info)
	}
	if cfg := tn.Config(); cfg.BlockTime != networks.DenimBlockTime || cfg.PreconfInterval != 0 {
		t.Fatalf("the fork's cadence: blocks every %s, pre-confirmations every %s; want 200ms and none", cfg.BlockTime, cfg.PreconfInterval)
	}
	const blocks = 10
	waitFor(t, "the fork's sequencer sealing blocks", func() bool { return c.Heads().Latest.Number.Uint64() >= n+blocks })
	checkDenimChain(t, tn.stdRaw, n+1, n+blocks, uint64(*upN.TimestampMs))

	// A transaction on the fork lands in a Denim block after the BaseTime deposit.
	ctx := context.Background()
	key := testOptionsAccounts(t)[2]
	nonce, err := tn.std.NonceAt(ctx, addressOf(key), nil)
	if err != nil {
		t.Fatal(err)
	}
	to := common.Address{0xbb}
	tx := signTx(t, key, c.Config().ChainID, nonce, &to, big.NewInt(1), 21_000, nil)
	if err := tn.std.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	var receipt *types.Receipt
	waitFor(t, "the transaction's receipt", func() bool {
		receipt, err = tn.std.TransactionReceipt(ctx, tx.Hash())
		return err == nil
	})
	if receipt.Status != types.ReceiptStatusSuccessful || receipt.TransactionIndex < 2 {
		t.Fatalf("receipt: status %d, index %d", receipt.Status, receipt.TransactionIndex)
	}
	head := receipt.BlockNumber.Uint64()
	prev := blockMs(t, tn.stdRaw, head-1)
	checkDenimChain(t, tn.stdRaw, head, head, uint64(*prev.TimestampMs))
}

// TestFollowDenim runs a replica without a feed of a Denim primary (`flashrpc dev --network
// base-mainnet`, a block every 200 ms) that learns of new blocks only by its newHeads
// subscription: /health reports it within 2 blocks of the primary as the primary seals (each
// checked with a deadline), and once the primary stops it has the primary's blocks, their
// millisecond times and receipts byte for byte. A remote-state replica started on a Denim block
// runs Denim and reaches the primary's head too.
func TestFollowDenim(t *testing.T) {
	tn := startTestNode(t, baseUpstreamOptions(t.TempDir(), 8453, true))
	o := replicaOptions(tn, t.TempDir())
	o.feedURL = ""
	o.poll = time.Hour // only the subscription moves it
	r := startTestReplica(t, o)
	if d := r.Chain().Denim(); d == nil || *d != 0 {
		t.Fatalf("the replica runs Denim from %v, want 0 (the genesis file's)", d)
	}
	waitFor(t, "the replica subscribed", r.Follower().Subscribed)
	// A remote-state replica of the same primary, started on one of its Denim blocks.
	waitFor(t, "a Denim block on the primary", func() bool { return tn.Chain().Heads().Latest.Number.Uint64() >= 2 })
	remote := startTestReplica(t, remoteReplicaOptions(tn, t.TempDir(), ""))
	if d := remote.Chain().Denim(); d == nil || *d != 0 {
		t.Fatalf("the remote-state replica runs Denim from %v, want 0", d)
	}
	for range 5 {
		target := tn.Chain().Heads().Latest.Number.Uint64() + 5
		waitFor(t, "the primary sealing", func() bool { return tn.Chain().Heads().Latest.Number.Uint64() >= target })
		waitFor(t, "/health: the replica within 2 blocks of the primary", func() bool {
			code, s := getHealth(t, r.stdURL)
			return code == 200 && s.Lag != nil && *s.Lag <= 2 && s.UpstreamHead != nil && *s.UpstreamHead >= target && s.Head+2 >= target
		})
	}
	if err := tn.Sequencer().SetBlockTime(0); err != nil {
		t.Fatal(err)
	}
	head := tn.Chain().Heads().Latest.Number.Uint64()
	waitFor(t, "the replica at the primary's head", func() bool { return r.head() == head })
	waitFor(t, "the remote-state replica at the primary's head", func() bool { return remote.head() == head })
	sameJSON(t, tn.stdRaw, remote.stdRaw, "eth_getBlockByNumber", hexutil.Uint64(head), true)
	if code, s := getHealth(t, r.stdURL); code != 200 || s.Lag == nil || *s.Lag != 0 || s.Head != head {
		t.Fatalf("/health at the primary's head: %d %+v", code, s)
	}
	for _, n := range []uint64{1, head / 2, head} {
		b := sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getBlockByNumber", hexutil.Uint64(n), true)
		if !strings.Contains(string(b), `"timestampMs"`) {
			t.Fatalf("block %d has no timestampMs: %s", n, b)
		}
		sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getBlockReceipts", hexutil.Uint64(n))
	}
	first := blockMs(t, r.stdRaw, 1)
	checkDenimChain(t, r.stdRaw, 2, head, uint64(*first.TimestampMs))
}
