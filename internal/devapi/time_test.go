package devapi_test

import (
	"context"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
)

// subscribeLogs subscribes to logs of addr over the pre-confirmed endpoint's WebSocket.
func subscribeLogs(t *testing.T, n *devNode, kind string, addr common.Address) chan types.Log {
	t.Helper()
	cl, err := gethrpc.Dial(n.preWS)
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan types.Log, 64)
	sub, err := cl.EthSubscribe(context.Background(), ch, kind, map[string]any{"address": addr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sub.Unsubscribe()
		cl.Close()
	})
	return ch
}

// nextLog waits for the next log on ch (a subscription's delivery is asynchronous; the
// timeout only bounds a failing test).
func nextLog(t *testing.T, ch chan types.Log, what string) types.Log {
	t.Helper()
	select {
	case l := <-ch:
		return l
	case <-time.After(10 * time.Second):
		t.Fatalf("no log: %s", what)
		return types.Log{}
	}
}

// TestTimeRebuild: evm_increaseTime and evm_setNextBlockTimestamp rebuild the block in
// progress with the new timestamp: a pre-confirmed transaction whose result depends on the
// timestamp is executed again (`pending` storage shows the new time), its old log is retracted
// to pendingLogs subscribers (removed: true) and the new one sent, and evm_mine seals the
// block x seconds after its parent. On both chain types (an OP block's L1-attributes deposit is
// made again for the new time).
func TestTimeRebuild(t *testing.T) {
	for _, op := range []bool{false, true} {
		t.Run(fmt.Sprintf("op=%v", op), func(t *testing.T) {
			n := newDevNode(t, op)
			ctx := context.Background()
			stamp := common.HexToAddress("0x0000000000000000000000000000000000057a40")
			var ok bool
			mustCall(t, n.pre, &ok, "anvil_setCode", stamp, hexBytes(stampCode))
			parent := n.seal(t)
			logs := subscribeLogs(t, n, "pendingLogs", stamp)
			var h common.Hash
			mustCall(t, n.pre, &h, "eth_sendTransaction", map[string]any{"from": n.addr(0), "to": stamp, "gas": "0x186a0"})
			n.preconfirm(t)
			first := nextLog(t, logs, "pre-confirmed log")
			if new(big.Int).SetBytes(first.Data).Uint64() <= parent.Time() {
				t.Fatalf("pre-confirmed timestamp %x, parent's %d", first.Data, parent.Time())
			}

			var total string
			mustCall(t, n.pre, &total, "evm_increaseTime", 1000)
			want := parent.Time() + 1000
			if got := slotValue(t, n.preEth, stamp); got != want {
				t.Fatalf("pending timestamp slot after evm_increaseTime(1000): %d, want %d", got, want)
			}
			removed := nextLog(t, logs, "retracted log")
			if !removed.Removed || string(removed.Data) != string(first.Data) || removed.TxHash != h {
				t.Fatalf("retraction: %+v, want the first log removed", removed)
			}
			added := nextLog(t, logs, "rebuilt log")
			if added.Removed || new(big.Int).SetBytes(added.Data).Uint64() != want {
				t.Fatalf("rebuilt log: %+v, want data %d", added, want)
			}
			var ts uint64
			var pending struct{ Timestamp hexUint }
			mustCall(t, n.pre, &pending, "eth_getBlockByNumber", "pending", false)
			if ts = uint64(pending.Timestamp); ts != want {
				t.Fatalf("pending block timestamp %d, want %d", ts, want)
			}
			var zero string
			mustCall(t, n.pre, &zero, "evm_mine")
			head, err := n.stdEth.HeaderByNumber(ctx, nil)
			if err != nil || head.Time != want || head.Number.Uint64() != parent.NumberU64()+1 {
				t.Fatalf("mined block %v at %d (%v), want block %d at %d", head.Number, head.Time, err, parent.NumberU64()+1, want)
			}
			if r, err := n.stdEth.TransactionReceipt(ctx, h); err != nil || r.Status != 1 || len(r.Logs) != 1 || new(big.Int).SetBytes(r.Logs[0].Data).Uint64() != want {
				t.Fatalf("sealed receipt %+v %v", r, err)
			}
			if got := slotValue(t, n.stdEth, stamp); got != want {
				t.Fatalf("sealed timestamp slot %d, want %d", got, want)
			}

			// evm_setNextBlockTimestamp (hex), then anvil_mine with an interval.
			next := want + 5000
			mustCall(t, n.std, &ok, "evm_setNextBlockTimestamp", fmt.Sprintf("%#x", next))
			mustCall(t, n.std, &ok, "anvil_mine", "0x3", "0xa")
			for i := uint64(0); i < 3; i++ {
				h, err := n.stdEth.HeaderByNumber(ctx, new(big.Int).SetUint64(parent.NumberU64()+2+i))
				if err != nil || h.Time != next+10*i {
					t.Fatalf("mined block %d at %v (%v), want %d", parent.NumberU64()+2+i, h, err, next+10*i)
				}
				if op {
					b, err := n.stdEth.BlockByNumber(ctx, h.Number)
					if err != nil {
						t.Fatalf("block %d: %v", h.Number, err)
					}
					if b.Transactions()[0].Type() != types.DepositTxType {
						t.Fatalf("block %d does not open with the L1-attributes deposit", h.Number)
					}
				}
			}
			mustCall(t, n.std, &ok, "hardhat_mine")
			last, err := n.stdEth.HeaderByNumber(ctx, nil)
			if err != nil {
				t.Fatalf("head after hardhat_mine: %v", err)
			}
			if last.Number.Uint64() != parent.NumberU64()+5 || last.Time <= next+20 {
				t.Fatalf("hardhat_mine: head %d at %d", last.Number, last.Time)
			}
			// evm_mine with anvil's options object: two blocks, the first at a timestamp.
			mustCall(t, n.pre, &zero, "evm_mine", map[string]any{"timestamp": last.Time + 50, "blocks": "0x2"})
			firstMined, err := n.stdEth.HeaderByNumber(ctx, new(big.Int).Add(last.Number, common.Big1))
			if err != nil {
				t.Fatalf("first block of evm_mine {timestamp, blocks}: %v", err)
			}
			if head, err = n.stdEth.HeaderByNumber(ctx, nil); err != nil {
				t.Fatalf("head after evm_mine {timestamp, blocks}: %v", err)
			}
			if firstMined == nil || firstMined.Time != last.Time+50 || head.Number.Uint64() != last.Number.Uint64()+2 {
				t.Fatalf("evm_mine {timestamp, blocks}: first %v, head %d", firstMined, head.Number)
			}
		})
	}
}

// hexUint decodes a hex quantity.
type hexUint uint64

func (h *hexUint) UnmarshalJSON(b []byte) error {
	var v big.Int
	if len(b) < 4 {
		return fmt.Errorf("bad quantity %s", b)
	}
	if _, ok := v.SetString(string(b[3:len(b)-1]), 16); !ok {
		return fmt.Errorf("bad quantity %s", b)
	}
	*h = hexUint(v.Uint64())
	return nil
}

// slotValue is slot 0 of addr at `pending` (or `latest` on the standard endpoint's client).
func slotValue(t *testing.T, cl *ethclient.Client, addr common.Address) uint64 {
	t.Helper()
	v, err := cl.PendingStorageAt(context.Background(), addr, common.Hash{})
	if err != nil {
		t.Fatal(err)
	}
	return new(big.Int).SetBytes(v).Uint64()
}
