package devapi_test

import (
	"context"
	"fmt"
	"math/big"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/flashrpc/flashrpc/internal/sequencer"
)

// slotReader returns slot 1 of its own storage: PUSH1 1 SLOAD PUSH1 0 MSTORE PUSH1 32 PUSH1 0
// RETURN.
var slotReader = hexutil.MustDecode("0x60015460005260206000f3")

// readsEverywhere checks that every state read at `latest` and at `pending`, on both
// endpoints, sees want: the account's balance, nonce, code and slot 1 (stateOf), eth_call of
// its code, which returns slot 1, and an eth_estimateGas of a transfer of its whole balance
// from it (which only the cheated balance can pay).
func readsEverywhere(t *testing.T, n *devNode, addr common.Address, want string, slot uint64, what string) {
	t.Helper()
	ctx := context.Background()
	for _, c := range []struct {
		name string
		cl   *ethclient.Client
	}{{"standard", n.stdEth}, {"pre-confirmed", n.preEth}} {
		for _, pending := range []bool{false, true} {
			if got := stateOf(t, c.cl, addr, pending); got != want {
				t.Fatalf("%s: %s endpoint, pending=%v: %s, want %s", what, c.name, pending, got, want)
			}
			msg := ethereum.CallMsg{To: &addr}
			var out []byte
			var err error
			if pending {
				out, err = c.cl.PendingCallContract(ctx, msg)
			} else {
				out, err = c.cl.CallContract(ctx, msg, nil)
			}
			if err != nil || new(big.Int).SetBytes(out).Uint64() != slot {
				t.Fatalf("%s: %s endpoint, pending=%v: eth_call answers %x (%v), want %d", what, c.name, pending, out, err, slot)
			}
			bal := balance(t, c.cl, addr, pending)
			to := common.HexToAddress("0x00000000000000000000000000000000000000b0")
			var gas hexutil.Uint64
			tag := "latest"
			if pending {
				tag = "pending"
			}
			call := map[string]any{"from": addr, "to": to, "value": (*hexutil.Big)(bal), "gasPrice": "0x0"}
			if err := c.cl.Client().Call(&gas, "eth_estimateGas", call, tag); err != nil {
				t.Fatalf("%s: %s endpoint, %s: eth_estimateGas of a transfer of the cheated balance: %v", what, c.name, tag, err)
			}
		}
	}
}

// TestCheatsAtLatest: a state cheat (anvil_ and hardhat_ names, sent to either endpoint) is
// visible at once to every state read at `latest` and `pending` on both endpoints, whatever
// the block in progress holds, stays visible while the block in progress is rebuilt, and the
// next sealed block carries it, so no read sees it disappear. With automine on and off, on
// both chain types.
func TestCheatsAtLatest(t *testing.T) {
	for _, op := range []bool{false, true} {
		for _, automine := range []bool{false, true} {
			t.Run(fmt.Sprintf("op=%v/automine=%v", op, automine), func(t *testing.T) {
				n := newDevNode(t, op)
				ctx := context.Background()
				var ok bool
				mustCall(t, n.std, &ok, "evm_setAutomine", automine)
				if !automine {
					// Something pre-confirmed in the block in progress before the cheats.
					var h common.Hash
					mustCall(t, n.pre, &h, "eth_sendTransaction", map[string]any{"from": n.addr(0), "to": n.addr(1), "value": "0x1"})
					n.preconfirm(t)
				}
				head := n.chain.Head().Number.Uint64()
				addr := common.HexToAddress("0x00000000000000000000000000000000000c0de6")
				mustCall(t, n.std, &ok, "hardhat_setCode", addr, hexBytes(slotReader))
				mustCall(t, n.pre, &ok, "anvil_setStorageAt", addr, "0x1", "0x2a")
				mustCall(t, n.std, &ok, "anvil_setBalance", addr, "0xde0b6b3a7640000")
				mustCall(t, n.pre, &ok, "hardhat_setNonce", addr, "0x7")
				want := "balance 1000000000000000000 nonce 7 code " + fmt.Sprintf("%x", slotReader) + " slot1 2a"
				readsEverywhere(t, n, addr, want, 42, "after the cheats")
				if got := n.chain.Head().Number.Uint64(); got != head {
					t.Fatalf("the cheats sealed blocks: head %d, was %d", got, head)
				}

				// A later cheat of the same slot replaces the first at once.
				mustCall(t, n.pre, &ok, "hardhat_setStorageAt", addr, "0x1", "0x000000000000000000000000000000000000000000000000000000000000002b")
				want = want[:len(want)-2] + "2b"
				readsEverywhere(t, n, addr, want, 43, "after the second setStorageAt")

				// A rebuild of the block in progress (a new timestamp) keeps them.
				var total hexutil.Uint64
				mustCall(t, n.std, &total, "evm_increaseTime", 100)
				readsEverywhere(t, n, addr, want, 43, "after evm_increaseTime")

				var mined string
				mustCall(t, n.pre, &mined, "evm_mine")
				if got := n.chain.Head().Number.Uint64(); got != head+1 {
					t.Fatalf("evm_mine: head %d, want %d", got, head+1)
				}
				readsEverywhere(t, n, addr, want, 43, "after evm_mine")
				// The sealed block carries them: its own state, read by number, has them.
				num := new(big.Int).SetUint64(head + 1)
				code, err := n.stdEth.CodeAt(ctx, addr, num)
				if err != nil || fmt.Sprintf("%x", code) != fmt.Sprintf("%x", slotReader) {
					t.Fatalf("code in block %d: %x (%v)", head+1, code, err)
				}
				slot, err := n.stdEth.StorageAt(ctx, addr, common.Hash{31: 1}, num)
				if err != nil || new(big.Int).SetBytes(slot).Uint64() != 43 {
					t.Fatalf("slot 1 in block %d: %x (%v)", head+1, slot, err)
				}
				// Before it, the state had none of them.
				if code, err := n.stdEth.CodeAt(ctx, addr, new(big.Int).SetUint64(head)); err != nil || len(code) != 0 {
					t.Fatalf("code in block %d, before the cheats: %x (%v)", head, code, err)
				}
			})
		}
	}
}

// TestSnapshotKeepsCheats: evm_snapshot captures the cheats no block carries yet and
// evm_revert restores them exactly, at `latest` and `pending` on both endpoints, before any
// block is mined and after; loadFixture's pattern (revert, take a new snapshot, revert to it
// later) works many times over. With automine on and off.
func TestSnapshotKeepsCheats(t *testing.T) {
	for _, automine := range []bool{false, true} {
		t.Run(fmt.Sprintf("automine=%v", automine), func(t *testing.T) {
			n := newDevNode(t, false)
			var ok bool
			mustCall(t, n.std, &ok, "evm_setAutomine", automine)
			rich := common.HexToAddress("0x00000000000000000000000000000000000f00d6")
			mustCall(t, n.std, &ok, "hardhat_setBalance", rich, "0x21e19e0c9bab2400000") // 10,000 ether
			mustCall(t, n.pre, &ok, "hardhat_setCode", rich, hexBytes(slotReader))
			mustCall(t, n.pre, &ok, "hardhat_setStorageAt", rich, "0x1", "0x7")
			want := "balance 10000000000000000000000 nonce 0 code " + fmt.Sprintf("%x", slotReader) + " slot1 7"
			var id hexutil.Uint64
			mustCall(t, n.std, &id, "evm_snapshot")
			mustCall(t, n.pre, &ok, "evm_revert", id)
			if !ok {
				t.Fatal("evm_revert: false")
			}
			readsEverywhere(t, n, rich, want, 7, "after evm_revert, nothing mined")

			// loadFixture: each test changes things, reverts, and snapshots again.
			for i := range 5 {
				mustCall(t, n.std, &id, "evm_snapshot")
				mustCall(t, n.pre, &ok, "hardhat_setBalance", rich, "0x1")
				mustCall(t, n.std, &ok, "hardhat_setStorageAt", rich, "0x1", "0x63")
				other := common.HexToAddress("0x00000000000000000000000000000000000000c1")
				mustCall(t, n.std, &ok, "anvil_setCode", other, "0x6001")
				var h common.Hash
				mustCall(t, n.pre, &h, "eth_sendTransaction", map[string]any{"from": n.addr(0), "to": n.addr(2), "value": "0x1"})
				if i%2 == 0 {
					var mined string
					mustCall(t, n.pre, &mined, "evm_mine")
				}
				mustCall(t, n.pre, &ok, "evm_revert", id)
				if !ok {
					t.Fatalf("round %d: evm_revert(%d): false", i, id)
				}
				readsEverywhere(t, n, rich, want, 7, fmt.Sprintf("round %d after evm_revert", i))
				if code := stateOf(t, n.stdEth, other, false); code != "balance 0 nonce 0 code  slot1 0" {
					t.Fatalf("round %d: a cheat made after the snapshot survived evm_revert: %s", i, code)
				}
			}
			var mined string
			mustCall(t, n.pre, &mined, "evm_mine")
			readsEverywhere(t, n, rich, want, 7, "after evm_mine")
		})
	}
}

// TestTimeComposes: evm_increaseTime and evm_setNextBlockTimestamp compose as on anvil: two
// increases back to back move the next block by their sum, a pause between them by the pause
// too (the clock's offset runs from the wall clock), evm_setNextBlockTimestamp fixes the next
// block's timestamp whatever increase comes before or after it, and the clock goes on from
// it. With automine on and off, on a fake wall clock.
func TestTimeComposes(t *testing.T) {
	for _, automine := range []bool{false, true} {
		t.Run(fmt.Sprintf("automine=%v", automine), func(t *testing.T) {
			var now atomic.Int64
			now.Store(time.Now().Unix())
			clock := func() time.Time { return time.Unix(now.Load(), 0) }
			n := newDevNodeWith(t, false, sequencer.Config{Now: clock})
			ctx := context.Background()
			var ok bool
			mustCall(t, n.std, &ok, "evm_setAutomine", automine)
			var mined string
			mine := func() uint64 {
				t.Helper()
				mustCall(t, n.pre, &mined, "evm_mine")
				h, err := n.stdEth.HeaderByNumber(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				return h.Time
			}
			var total hexutil.Uint64
			parent := mine()

			mustCall(t, n.std, &total, "evm_increaseTime", 1000)
			mustCall(t, n.pre, &total, "evm_increaseTime", "0x3e8")
			if got := mine(); got != parent+2000 {
				t.Fatalf("two evm_increaseTime(1000) back to back: block at +%d, want +2000", int64(got)-int64(parent))
			}

			// With pauses: the wall clock moves 5 s between the two increases and 5 s before
			// the mine; the block is still their sum after its parent. The block after it
			// follows the wall clock plus the whole offset.
			parent = mine()
			mustCall(t, n.std, &total, "evm_increaseTime", 1000)
			now.Add(5)
			mustCall(t, n.std, &total, "evm_increaseTime", 1000)
			now.Add(5)
			if got := mine(); got != parent+2000 {
				t.Fatalf("evm_increaseTime(1000), 5 s, evm_increaseTime(1000), 5 s: block at +%d, want +2000", int64(got)-int64(parent))
			}
			if total != 4000 {
				t.Fatalf("evm_increaseTime answers the offset %d, want 4000", total)
			}
			// (It opened when its parent was sealed, on the clock as it was then.)
			if got, want := mine(), uint64(now.Load())+4000; got != want {
				t.Fatalf("the block after: at %d, want the wall clock plus the offset, %d", got, want)
			}

			// An increase then a timestamp: the timestamp.
			parent = mine()
			mustCall(t, n.std, &total, "evm_increaseTime", 500)
			mustCall(t, n.std, &ok, "evm_setNextBlockTimestamp", parent+100)
			if got := mine(); got != parent+100 {
				t.Fatalf("evm_increaseTime(500), evm_setNextBlockTimestamp(+100): block at +%d, want +100", int64(got)-int64(parent))
			}
			// A timestamp then an increase: the timestamp too (as anvil: the exact timestamp wins).
			parent = mine()
			mustCall(t, n.std, &ok, "evm_setNextBlockTimestamp", parent+300)
			mustCall(t, n.std, &total, "evm_increaseTime", 50)
			if got := mine(); got != parent+300 {
				t.Fatalf("evm_setNextBlockTimestamp(+300), evm_increaseTime(50): block at +%d, want +300", int64(got)-int64(parent))
			}
			// Then the clock goes on from there: one more increase moves the next block by it.
			parent = mine()
			mustCall(t, n.std, &total, "evm_increaseTime", 60)
			mustCall(t, n.std, &total, "evm_increaseTime", 40)
			if got := mine(); got != parent+100 {
				t.Fatalf("after a set timestamp, two increases (60, 40): block at +%d, want +100", int64(got)-int64(parent))
			}
		})
	}
}

// TestCheatsNeverFlicker: while the timer seals blocks (the cheated one as executed, the plain
// ones off the writer's lock) and the block in progress is rebuilt, readers polling `latest`
// and `pending` on both endpoints never see a cheat disappear once its call has answered.
func TestCheatsNeverFlicker(t *testing.T) {
	n := newDevNodeWith(t, false, sequencer.Config{BlockTime: 40 * time.Millisecond, PreconfInterval: 20 * time.Millisecond})
	ch := flashblocks(n)
	addr := common.HexToAddress("0x00000000000000000000000000000000000f1c4e")
	for round, value := range []int64{1_000_000, 2_000_000, 3_000_000} {
		var ok bool
		mustCall(t, n.pre, &ok, "anvil_setBalance", addr, hexutil.EncodeBig(big.NewInt(value)))
		stop := make(chan struct{})
		errs := make(chan error, 4)
		var reads atomic.Int64
		for _, cl := range []*ethclient.Client{n.stdEth, n.preEth} {
			for _, pending := range []bool{false, true} {
				go func() {
					for {
						select {
						case <-stop:
							errs <- nil
							return
						default:
						}
						var b *big.Int
						var err error
						if pending {
							b, err = cl.PendingBalanceAt(context.Background(), addr)
						} else {
							b, err = cl.BalanceAt(context.Background(), addr, nil)
						}
						if err != nil {
							errs <- err
							return
						}
						if b.Int64() != value {
							errs <- fmt.Errorf("round %d, pending=%v: balance %v, want %d", round, pending, b, value)
							return
						}
						reads.Add(1)
					}
				}()
			}
		}
		// Blocks seal meanwhile, the first carrying the cheat; a transfer makes the next
		// ones plain blocks, sealed off the writer's lock; a rebuild in between.
		var h common.Hash
		mustCall(t, n.std, &h, "eth_sendTransaction", map[string]any{"from": n.addr(0), "to": n.addr(3), "value": "0x1"})
		waitBlocks(t, n, ch, 2)
		var total hexutil.Uint64
		mustCall(t, n.std, &total, "evm_increaseTime", 1)
		waitBlocks(t, n, ch, 2)
		close(stop)
		for range 4 {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		if reads.Load() == 0 {
			t.Fatalf("round %d: no read ran", round)
		}
	}
}
