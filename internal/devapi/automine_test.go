package devapi_test

import (
	"context"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/devapi"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
	"github.com/flashrpc/flashrpc/internal/sequencer"
)

// wantAutomine checks that the three getAutomine methods answer want.
func wantAutomine(t *testing.T, n *devNode, want bool) {
	t.Helper()
	for _, m := range []string{"evm_getAutomine", "anvil_getAutomine", "hardhat_getAutomine"} {
		var got bool
		mustCall(t, n.std, &got, m)
		if got != want {
			t.Fatalf("%s = %v, want %v", m, got, want)
		}
	}
}

// signed returns a signed transfer of value wei from dev account 0 with this nonce, raw.
func signed(t *testing.T, n *devNode, nonce uint64, value int64) hexutil.Bytes {
	t.Helper()
	to := common.HexToAddress("0x00000000000000000000000000000000000000a7")
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: n.chain.Config().ChainID, Nonce: nonce, GasTipCap: big.NewInt(1),
		GasFeeCap: big.NewInt(100e9), Gas: 21000, To: &to, Value: big.NewInt(value)})
	tx, err := types.SignTx(tx, types.LatestSignerForChainID(n.chain.Config().ChainID), n.accounts[0].Key)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// sealedReceipt is h's receipt on the standard endpoint now, nil when it has none.
func sealedReceipt(t *testing.T, n *devNode, h common.Hash) map[string]any {
	t.Helper()
	var r map[string]any
	mustCall(t, n.std, &r, "eth_getTransactionReceipt", h)
	return r
}

// TestAutomine: with evm_setAutomine(true) every send (eth_sendTransaction, eth_sendRawTransaction
// on either endpoint, eth_sendRawTransactionSync) answers after its block is sealed and
// written: the standard endpoint has its receipt at once, one transaction per block. A
// transaction behind a nonce gap seals nothing until the gap is filled, then both go in one
// block. With evm_setAutomine(false) sends wait for the timer again (none here: manual mode).
// The getAutomine methods follow; bad parameters are -32602 naming the argument.
func TestAutomine(t *testing.T) {
	for _, op := range []bool{false, true} {
		t.Run(fmt.Sprintf("op=%v", op), func(t *testing.T) {
			n := newDevNode(t, op)
			ctx := context.Background()
			wantAutomine(t, n, false)
			var ok bool
			mustCall(t, n.std, &ok, "evm_setAutomine", true)
			wantAutomine(t, n, true)
			head := n.chain.Head().Number.Uint64()
			to := common.HexToAddress("0x00000000000000000000000000000000000000a6")
			var hashes []common.Hash
			for i, send := range []func() common.Hash{
				func() (h common.Hash) {
					mustCall(t, n.pre, &h, "eth_sendTransaction", map[string]any{"from": n.addr(0), "to": to, "value": "0x1"})
					return h
				},
				func() (h common.Hash) {
					mustCall(t, n.std, &h, "eth_sendTransaction", map[string]any{"from": n.addr(0), "to": to, "value": "0x1"})
					return h
				},
				func() (h common.Hash) { mustCall(t, n.std, &h, "eth_sendRawTransaction", signed(t, n, 2, 1)); return h },
				func() (h common.Hash) { mustCall(t, n.pre, &h, "eth_sendRawTransaction", signed(t, n, 3, 1)); return h },
				func() common.Hash {
					var r map[string]any
					mustCall(t, n.std, &r, "eth_sendRawTransactionSync", signed(t, n, 4, 1))
					return common.HexToHash(r["transactionHash"].(string))
				},
			} {
				h := send()
				hashes = append(hashes, h)
				r := sealedReceipt(t, n, h)
				if r == nil {
					t.Fatalf("send %d: no receipt on the standard endpoint right after the send", i)
				}
				want := head + uint64(i) + 1
				if got := hexutil.MustDecodeUint64(r["blockNumber"].(string)); got != want {
					t.Fatalf("send %d: sealed in block %d, want %d (one block per transaction)", i, got, want)
				}
				b, err := n.stdEth.BlockByNumber(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				user := 0
				for _, tx := range b.Transactions() {
					if tx.Type() != 0x7e { // OP Stack deposits
						user++
					}
				}
				if b.NumberU64() != want || user != 1 {
					t.Fatalf("send %d: head %d with %d transactions, want %d with 1", i, b.NumberU64(), user, want)
				}
			}
			// A nonce gap seals nothing; filling it seals both in one block.
			head = n.chain.Head().Number.Uint64()
			var gap, fill common.Hash
			mustCall(t, n.std, &gap, "eth_sendRawTransaction", signed(t, n, 6, 1))
			if got := n.chain.Head().Number.Uint64(); got != head || sealedReceipt(t, n, gap) != nil {
				t.Fatalf("a transaction behind a nonce gap was sealed (head %d, was %d)", got, head)
			}
			mustCall(t, n.std, &fill, "eth_sendRawTransaction", signed(t, n, 5, 1))
			for _, h := range []common.Hash{fill, gap} {
				r := sealedReceipt(t, n, h)
				if r == nil || hexutil.MustDecodeUint64(r["blockNumber"].(string)) != head+1 {
					t.Fatalf("after filling the gap: receipt %v, want one in block %d", r, head+1)
				}
			}

			mustCall(t, n.pre, &ok, "evm_setAutomine", false)
			wantAutomine(t, n, false)
			head = n.chain.Head().Number.Uint64()
			var h common.Hash
			mustCall(t, n.std, &h, "eth_sendRawTransaction", signed(t, n, 7, 1))
			if sealedReceipt(t, n, h) != nil || n.chain.Head().Number.Uint64() != head {
				t.Fatal("automine off: the send was sealed in manual mode")
			}
			if r, err := n.preEth.TransactionReceipt(ctx, h); err == nil {
				t.Fatalf("automine off: pre-confirmed before any pre-confirmation: %+v", r)
			}
			n.preconfirm(t)
			if r, err := n.preEth.TransactionReceipt(ctx, h); err != nil || r.Status != types.ReceiptStatusSuccessful {
				t.Fatalf("automine off: pre-confirmed receipt %+v, %v", r, err)
			}
			n.seal(t)
			if sealedReceipt(t, n, h) == nil {
				t.Fatal("automine off: no receipt after the seal")
			}

			wantError(t, n.std, rpc.CodeInvalidParams, []string{"enabled"}, "evm_setAutomine", "yes")
			wantError(t, n.std, rpc.CodeInvalidParams, nil, "evm_setAutomine")
			wantError(t, n.std, rpc.CodeInvalidParams, nil, "evm_getAutomine", true)
		})
	}
}

// flashblocks returns a channel of the pre-confirmations n publishes from now on (those that
// find it full are dropped).
func flashblocks(n *devNode) <-chan *preconf.Snapshot {
	ch := make(chan *preconf.Snapshot, 64)
	n.preconf.OnSnapshot(func(s *preconf.Snapshot) {
		select {
		case ch <- s:
		default:
		}
	})
	return ch
}

// waitFlashblocks waits for k pre-confirmations on ch (at most a minute: a stuck timer fails)
// and returns the last.
func waitFlashblocks(t *testing.T, ch <-chan *preconf.Snapshot, k int) *preconf.Snapshot {
	t.Helper()
	var last *preconf.Snapshot
	timeout := time.After(time.Minute)
	for range k {
		select {
		case last = <-ch:
		case <-timeout:
			t.Fatalf("no pre-confirmation for a minute: the timer is not running")
		}
	}
	return last
}

// waitBlocks waits until the chain's head is k blocks past its current one (at most a minute).
func waitBlocks(t *testing.T, n *devNode, ch <-chan *preconf.Snapshot, k uint64) {
	t.Helper()
	want := n.chain.Head().Number.Uint64() + k
	timeout := time.After(time.Minute)
	for n.chain.Head().Number.Uint64() < want {
		select {
		case <-ch:
		case <-timeout:
			t.Fatalf("head %d after a minute, want %d: the timer does not seal", n.chain.Head().Number.Uint64(), want)
		}
	}
}

// wantNoSeals checks that no block is sealed while the timer publishes k pre-confirmations.
func wantNoSeals(t *testing.T, n *devNode, ch <-chan *preconf.Snapshot, what string) {
	t.Helper()
	// A seal the old loop made may still be in its chain write: let it land first.
	waitFlashblocks(t, ch, 3)
	head := n.chain.Head().Number.Uint64()
	last := waitFlashblocks(t, ch, 10)
	if got := n.chain.Head().Number.Uint64(); got != head || last.Number() != head+1 {
		t.Fatalf("%s: head %d (flashblock of block %d) after 10 flashblocks, was %d: a block was sealed", what, got, last.Number(), head)
	}
}

// TestIntervalMining, on a node that presents itself as Hardhat (HardhatIntervalMining):
// evm_setIntervalMining(ms) and anvil_setIntervalMining(seconds) change the
// timer's block time at runtime: 0 stops its seals while flashblocks go on, a block time
// again (a multiple of the pre-confirmation interval or not) brings blocks back. Automine on
// stops the timer's seals too, anvil_setIntervalMining turns it off, evm_setIntervalMining
// leaves it. Bad parameters are -32602 naming the argument.
func TestIntervalMining(t *testing.T) {
	n := newDevNodeWith(t, false, sequencer.Config{BlockTime: 60 * time.Millisecond, PreconfInterval: 20 * time.Millisecond},
		func(c *devapi.Config) { c.HardhatIntervalMining = true })
	ch := flashblocks(n)
	var ok bool
	waitBlocks(t, n, ch, 2)

	mustCall(t, n.std, &ok, "evm_setIntervalMining", 0)
	if got := n.seq.BlockTime(); got != 0 {
		t.Fatalf("block time %s after evm_setIntervalMining(0)", got)
	}
	wantNoSeals(t, n, ch, "evm_setIntervalMining(0)")

	mustCall(t, n.std, &ok, "evm_setIntervalMining", 100) // 5 intervals
	if got := n.seq.BlockTime(); got != 100*time.Millisecond {
		t.Fatalf("block time %s after evm_setIntervalMining(100)", got)
	}
	waitBlocks(t, n, ch, 2)

	mustCall(t, n.std, &ok, "evm_setIntervalMining", "0x23") // 35 ms: not a multiple of 20 ms
	waitBlocks(t, n, ch, 2)

	mustCall(t, n.std, &ok, "evm_setAutomine", true)
	wantNoSeals(t, n, ch, "automine on")
	mustCall(t, n.std, &ok, "evm_setIntervalMining", 60)
	wantAutomine(t, n, true)
	wantNoSeals(t, n, ch, "automine on, evm_setIntervalMining(60)")

	mustCall(t, n.std, &ok, "anvil_setIntervalMining", 1)
	wantAutomine(t, n, false)
	if got := n.seq.BlockTime(); got != time.Second {
		t.Fatalf("block time %s after anvil_setIntervalMining(1)", got)
	}
	waitBlocks(t, n, ch, 1)
	mustCall(t, n.std, &ok, "anvil_setIntervalMining", 0)
	wantNoSeals(t, n, ch, "anvil_setIntervalMining(0)")

	wantError(t, n.std, rpc.CodeInvalidParams, []string{"invalid argument 0 (interval)", "negative"}, "evm_setIntervalMining", -1)
	wantError(t, n.std, rpc.CodeInvalidParams, []string{"interval", "range"}, "evm_setIntervalMining", []int{1000, 2000})
	wantError(t, n.std, rpc.CodeInvalidParams, []string{"invalid argument 0 (seconds)"}, "anvil_setIntervalMining", "soon")
	wantError(t, n.std, rpc.CodeInvalidParams, []string{"seconds", "exceeds"}, "anvil_setIntervalMining", 1<<40)
	wantError(t, n.std, rpc.CodeInvalidParams, nil, "evm_setIntervalMining")
}

// TestIntervalMiningAnvilUnits: by default evm_setIntervalMining is anvil's, the same as
// anvil_setIntervalMining: seconds, and automine off.
func TestIntervalMiningAnvilUnits(t *testing.T) {
	n := newDevNodeWith(t, false, sequencer.Config{BlockTime: 60 * time.Millisecond, PreconfInterval: 20 * time.Millisecond})
	var ok bool
	mustCall(t, n.std, &ok, "evm_setAutomine", true)
	mustCall(t, n.std, &ok, "evm_setIntervalMining", 2)
	if got := n.seq.BlockTime(); got != 2*time.Second {
		t.Fatalf("block time %s after evm_setIntervalMining(2), want 2s (anvil's seconds)", got)
	}
	wantAutomine(t, n, false)
	mustCall(t, n.std, &ok, "evm_setIntervalMining", 0)
	if got := n.seq.BlockTime(); got != 0 {
		t.Fatalf("block time %s after evm_setIntervalMining(0)", got)
	}
	wantError(t, n.std, rpc.CodeInvalidParams, []string{"invalid argument 0 (seconds)"}, "evm_setIntervalMining", "soon")
}
