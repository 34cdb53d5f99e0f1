package devapi_test

import (
	"context"
	"fmt"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// TestSnapshotRevert: evm_revert takes the chain back to the snapshot's head across several
// sealed blocks and drops the block in progress: a logs subscriber receives every dropped log
// (sealed and pre-confirmed) again with removed: true, eth_getLogs no longer returns them, the
// state is the snapshot's and the chain goes on from there. A snapshot can be reverted to
// once; an unknown id is false. anvil_reset takes the chain back to genesis. On both chain
// types.
func TestSnapshotRevert(t *testing.T) {
	for _, op := range []bool{false, true} {
		t.Run(fmt.Sprintf("op=%v", op), func(t *testing.T) {
			n := newDevNode(t, op)
			ctx := context.Background()
			stamp := common.HexToAddress("0x0000000000000000000000000000000000057a40")
			var ok bool
			mustCall(t, n.pre, &ok, "anvil_setCode", stamp, hexBytes(stampCode))
			base := n.seal(t)
			logs := subscribeLogs(t, n, "logs", stamp)
			var id hexutil.Uint64
			mustCall(t, n.std, &id, "evm_snapshot")
			nonce, err := n.stdEth.NonceAt(ctx, n.addr(0), nil)
			if err != nil {
				t.Fatalf("nonce before the snapshot's blocks: %v", err)
			}

			var sent []common.Hash
			send := func() {
				var h common.Hash
				mustCall(t, n.pre, &h, "eth_sendTransaction", map[string]any{"from": n.addr(0), "to": stamp, "gas": "0x186a0"})
				sent = append(sent, h)
				n.preconfirm(t)
			}
			send()
			n.seal(t)
			send()
			n.seal(t)
			for range 2 {
				if l := nextLog(t, logs, "sealed log"); l.Removed {
					t.Fatalf("sealed log arrived removed: %+v", l)
				}
			}
			send() // pre-confirmed only

			mustCall(t, n.pre, &ok, "evm_revert", id)
			if !ok {
				t.Fatal("evm_revert of the snapshot: false")
			}
			seen := map[common.Hash]bool{}
			for range 3 {
				l := nextLog(t, logs, "removed log")
				if !l.Removed {
					t.Fatalf("log after evm_revert not removed: %+v", l)
				}
				seen[l.TxHash] = true
			}
			for _, h := range sent {
				if !seen[h] {
					t.Fatalf("no removed log of %s (removed: %v)", h, seen)
				}
			}
			head, err := n.stdEth.HeaderByNumber(ctx, nil)
			if err != nil {
				t.Fatalf("head after evm_revert: %v", err)
			}
			if head.Hash() != base.Hash() {
				t.Fatalf("head after evm_revert: %d %s, want the snapshot's %d", head.Number, head.Hash(), base.NumberU64())
			}
			got, err := n.stdEth.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: big.NewInt(0), Addresses: []common.Address{stamp}})
			if err != nil || len(got) != 0 {
				t.Fatalf("eth_getLogs after evm_revert: %d logs (%v), want none", len(got), err)
			}
			for _, cl := range []*ethereumNonce{{"latest", false}, {"pending", true}} {
				var n2 uint64
				var err error
				if cl.pending {
					n2, err = n.preEth.PendingNonceAt(ctx, n.addr(0))
				} else {
					n2, err = n.preEth.NonceAt(ctx, n.addr(0), nil)
				}
				if err != nil {
					t.Fatalf("%s nonce after evm_revert: %v", cl.name, err)
				}
				if n2 != nonce {
					t.Fatalf("%s nonce after evm_revert: %d, want %d", cl.name, n2, nonce)
				}
			}
			wantNoReceipt(t, n.preEth, sent[2], "the dropped pre-confirmation")
			mustCall(t, n.pre, &ok, "evm_revert", id)
			if ok {
				t.Fatal("second evm_revert of the same snapshot: true, want false")
			}
			// The chain goes on from the snapshot.
			send()
			block := n.seal(t)
			if block.NumberU64() != base.NumberU64()+1 || block.ParentHash() != base.Hash() {
				t.Fatalf("block after evm_revert: %d on %s", block.NumberU64(), block.ParentHash())
			}
			if l := nextLog(t, logs, "log after evm_revert"); l.Removed || l.TxHash != sent[3] {
				t.Fatalf("log after evm_revert: %+v", l)
			}

			mustCall(t, n.std, &ok, "anvil_reset")
			if head, err := n.stdEth.HeaderByNumber(ctx, nil); err != nil || head.Number.Sign() != 0 {
				t.Fatalf("head after anvil_reset: %v (%v), want block 0", head, err)
			}
			if code, err := n.stdEth.CodeAt(ctx, stamp, nil); err != nil || len(code) != 0 {
				t.Fatalf("code after anvil_reset: %x (%v), want none", code, err)
			}
			for _, tag := range []string{"safe", "finalized", "pending"} {
				var b map[string]any
				mustCall(t, n.pre, &b, "eth_getBlockByNumber", tag, false)
				if b == nil {
					t.Fatalf("%s block after anvil_reset: null", tag)
				}
			}
			n.preconfirm(t)
			if b := n.seal(t); b.NumberU64() != 1 {
				t.Fatalf("first block after anvil_reset: %d", b.NumberU64())
			}
		})
	}
}

type ethereumNonce struct {
	name    string
	pending bool
}
