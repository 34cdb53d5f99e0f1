package devapi_test

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/flashrpc/flashrpc/internal/rpc"
)

// stampCode stores the block's timestamp in slot 0 and logs it: TIMESTAMP PUSH1 0 SSTORE
// TIMESTAMP PUSH1 0 MSTORE PUSH1 32 PUSH1 0 LOG0 STOP.
var stampCode = hexutil.MustDecode("0x426000554260005260206000a000")

// stateOf reads addr's balance, nonce, code and slot 0 at block on cl.
func stateOf(t testing.TB, cl *ethclient.Client, addr common.Address, pending bool) string {
	t.Helper()
	ctx := context.Background()
	var (
		bal   *big.Int
		nonce uint64
		code  []byte
		slot  []byte
		err   error
	)
	if pending {
		bal, err = cl.PendingBalanceAt(ctx, addr)
		if err == nil {
			nonce, err = cl.PendingNonceAt(ctx, addr)
		}
		if err == nil {
			code, err = cl.PendingCodeAt(ctx, addr)
		}
		if err == nil {
			slot, err = cl.PendingStorageAt(ctx, addr, common.Hash{31: 1})
		}
	} else {
		bal, err = cl.BalanceAt(ctx, addr, nil)
		if err == nil {
			nonce, err = cl.NonceAt(ctx, addr, nil)
		}
		if err == nil {
			code, err = cl.CodeAt(ctx, addr, nil)
		}
		if err == nil {
			slot, err = cl.StorageAt(ctx, addr, common.Hash{31: 1}, nil)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("balance %v nonce %d code %x slot1 %x", bal, nonce, code, new(big.Int).SetBytes(slot))
}

// TestStateCheats: anvil_setBalance, setCode, setNonce and setStorageAt (and their hardhat_
// aliases) are visible at once at `pending` and at `latest` on both endpoints, and the next
// sealed block carries them. The sealed block is written as
// executed, the blocks after it seal as usual on its state, and a transaction can spend a
// balance set this way. On both chain types (on an OP Stack chain each block still opens with
// its L1-attributes deposit).
func TestStateCheats(t *testing.T) {
	for _, op := range []bool{false, true} {
		for _, ns := range []string{"anvil_", "hardhat_"} {
			t.Run(fmt.Sprintf("op=%v/%s", op, ns), func(t *testing.T) {
				n := newDevNode(t, op)
				addr := common.HexToAddress("0x00000000000000000000000000000000000c0de5")
				if got := stateOf(t, n.stdEth, addr, false); got != "balance 0 nonce 0 code  slot1 0" {
					t.Fatalf("before the cheats: %s", got)
				}
				var ok bool
				mustCall(t, n.std, &ok, ns+"setBalance", addr, "0xde0b6b3a7640000") // 1 ether
				mustCall(t, n.pre, &ok, ns+"setNonce", addr, 7)
				mustCall(t, n.pre, &ok, ns+"setCode", addr, "0x6001")
				mustCall(t, n.std, &ok, ns+"setStorageAt", addr, "0x1", "0x000000000000000000000000000000000000000000000000000000000000002a")
				want := "balance 1000000000000000000 nonce 7 code 6001 slot1 2a"
				if got := stateOf(t, n.preEth, addr, true); got != want {
					t.Fatalf("pending after the cheats: %s, want %s", got, want)
				}
				// `latest` sees them at once too, on both endpoints, before any block seals.
				for _, cl := range []*ethclient.Client{n.stdEth, n.preEth} {
					if got := stateOf(t, cl, addr, false); got != want {
						t.Fatalf("latest before sealing: %s, want %s", got, want)
					}
				}
				block := n.seal(t)
				if op && (len(block.Transactions()) == 0 || !block.Transactions()[0].IsDepositTx()) {
					t.Fatalf("sealed block does not open with the L1-attributes deposit")
				}
				for _, cl := range []*ethclient.Client{n.stdEth, n.preEth} {
					if got := stateOf(t, cl, addr, false); got != want {
						t.Fatalf("latest after sealing: %s, want %s", got, want)
					}
				}
				// A fresh account funded only by the cheat pays for a transaction.
				rich := common.HexToAddress("0x00000000000000000000000000000000000f00d5")
				mustCall(t, n.pre, &ok, ns+"setBalance", rich, "0x56bc75e2d63100000") // 100 ether
				mustCall(t, n.pre, &ok, ns+"impersonateAccount", rich)
				var h common.Hash
				mustCall(t, n.pre, &h, "eth_sendTransaction", map[string]any{"from": rich, "to": addr, "value": "0x1"})
				n.preconfirm(t)
				n.seal(t)
				n.preconfirm(t)
				n.seal(t) // a plain block on top of the cheated ones: inserted and executed as usual
				r, err := n.stdEth.TransactionReceipt(context.Background(), h)
				if err != nil || r.Status != types.ReceiptStatusSuccessful {
					t.Fatalf("receipt of the cheat-funded transaction: %+v %v", r, err)
				}
				if got := balance(t, n.stdEth, addr, false); got.Cmp(big.NewInt(1e18+1)) != 0 {
					t.Fatalf("balance %v, want 1 ether + 1 wei", got)
				}
			})
		}
	}
}

// TestCheatRefusals: malformed parameters are -32602 naming the parameter, and change
// nothing.
func TestCheatRefusals(t *testing.T) {
	n := newDevNode(t, false)
	n.seal(t) // a head with a real timestamp
	addr := n.addr(0)
	before := stateOf(t, n.preEth, addr, true)
	cases := []struct {
		method string
		args   []any
		words  []string
	}{
		{"anvil_setBalance", []any{"0x12", "0x1"}, []string{"argument 0 (address)"}},
		{"anvil_setBalance", []any{addr, "-1"}, []string{"argument 1 (balance)", "negative"}},
		{"anvil_setBalance", []any{addr, "0x1" + strings.Repeat("0", 64)}, []string{"argument 1 (balance)", "256 bits"}},
		{"hardhat_setNonce", []any{addr, "0xzz"}, []string{"argument 1 (nonce)"}},
		{"anvil_setNonce", []any{addr, -3}, []string{"argument 1 (nonce)"}},
		{"anvil_setCode", []any{addr, "0x1"}, []string{"argument 1 (code)"}},
		{"anvil_setStorageAt", []any{addr, "0x1"}, []string{"missing value for required argument 2"}},
		{"anvil_setStorageAt", []any{addr, "slot", "0x1"}, []string{"argument 1 (slot)"}},
		{"evm_increaseTime", []any{-5}, []string{"argument 0 (seconds)", "negative"}},
		{"evm_increaseTime", []any{"0x"}, []string{"argument 0 (seconds)"}},
		{"evm_setNextBlockTimestamp", []any{1}, []string{"argument 0 (timestamp)", "after the parent"}},
		{"evm_setNextBlockTimestamp", []any{"soon"}, []string{"argument 0 (timestamp)"}},
		{"evm_mine", []any{0}, []string{"argument 0 (timestamp)"}},
		{"anvil_mine", []any{"0x1000000"}, []string{"argument 0 (count)", "at most"}},
		{"evm_revert", []any{"x"}, []string{"argument 0 (id)"}},
		{"anvil_reset", []any{map[string]any{"forking": map[string]any{"jsonRpcUrl": "http://x"}}}, []string{"argument 0 (options)", "--fork-url"}},
		{"hardhat_reset", []any{map[string]any{"forking": map[string]any{"blockNumber": 5}}}, []string{"argument 0 (options)", "fork"}},
	}
	head := n.chain.Head().Number.Uint64()
	for _, c := range cases {
		t.Run(c.method, func(t *testing.T) { wantError(t, n.pre, rpc.CodeInvalidParams, c.words, c.method, c.args...) })
	}
	if got := stateOf(t, n.preEth, addr, true); got != before {
		t.Fatalf("state after refusals: %s, want %s", got, before)
	}
	if n.chain.Head().Number.Uint64() != head {
		t.Fatalf("head moved")
	}
	var ok bool
	mustCall(t, n.pre, &ok, "evm_revert", "0x9")
	if ok {
		t.Fatalf("evm_revert of an unknown id: true, want false")
	}
}

// TestDropTransaction: anvil_dropTransaction removes a pool transaction and answers its hash;
// for a transaction the pool does not hold (unknown, or already pre-confirmed) it answers null.
func TestDropTransaction(t *testing.T) {
	n := newDevNode(t, false)
	from, to := n.addr(4), n.addr(5)
	var kept, dropped, pre common.Hash
	mustCall(t, n.pre, &pre, "eth_sendTransaction", map[string]any{"from": from, "to": to, "nonce": "0x0"})
	n.preconfirm(t)
	mustCall(t, n.pre, &kept, "eth_sendTransaction", map[string]any{"from": from, "to": to, "nonce": "0x1"})
	mustCall(t, n.pre, &dropped, "eth_sendTransaction", map[string]any{"from": from, "to": to, "nonce": "0x2"})
	var got *common.Hash
	mustCall(t, n.pre, &got, "hardhat_dropTransaction", dropped)
	if got == nil || *got != dropped {
		t.Fatalf("dropTransaction answered %v, want %s", got, dropped)
	}
	for _, h := range []common.Hash{dropped, pre, {1}} {
		mustCall(t, n.pre, &got, "anvil_dropTransaction", h)
		if got != nil {
			t.Fatalf("dropTransaction of %s not in the pool answered %s, want null", h, got)
		}
	}
	n.preconfirm(t)
	if _, err := n.preEth.TransactionReceipt(context.Background(), kept); err != nil {
		t.Fatalf("kept transaction: %v", err)
	}
	wantNoReceipt(t, n.preEth, dropped, "the dropped transaction (pre-confirmed)")
}

// TestNextBaseFee: anvil_setNextBlockBaseFeePerGas rebuilds the block in progress with the
// base fee: `pending` shows it, the sealed block carries it, and the next block's base fee is
// derived from it as usual.
func TestNextBaseFee(t *testing.T) {
	for _, op := range []bool{false, true} {
		t.Run(fmt.Sprintf("op=%v", op), func(t *testing.T) {
			n := newDevNode(t, op)
			ctx := context.Background()
			var h common.Hash
			mustCall(t, n.pre, &h, "eth_sendTransaction", map[string]any{"from": n.addr(0), "to": n.addr(1), "maxFeePerGas": "0x2540be400"}) // 10 gwei
			n.preconfirm(t)
			var ok bool
			mustCall(t, n.pre, &ok, "anvil_setNextBlockBaseFeePerGas", "0x12a05f200") // 5 gwei
			pending, err := n.preEth.HeaderByNumber(ctx, big.NewInt(-1))
			if err != nil || pending.BaseFee.Cmp(big.NewInt(5e9)) != 0 {
				t.Fatalf("pending base fee %v (%v), want 5 gwei", pending.BaseFee, err)
			}
			sealed := n.seal(t)
			if sealed.BaseFee().Cmp(big.NewInt(5e9)) != 0 || len(sealed.Transactions()) == 0 {
				t.Fatalf("sealed base fee %v with %d transactions", sealed.BaseFee(), len(sealed.Transactions()))
			}
			if r, err := n.stdEth.TransactionReceipt(ctx, h); err != nil || r.EffectiveGasPrice.Cmp(big.NewInt(5e9)) < 0 {
				t.Fatalf("receipt %+v %v", r, err)
			}
			n.preconfirm(t)
			next := n.seal(t)
			if next.BaseFee().Cmp(big.NewInt(5e9)) >= 0 {
				t.Fatalf("next base fee %v: want below 5 gwei (an almost empty block lowers it)", next.BaseFee())
			}
		})
	}
}

// TestBlockAttributes: anvil_setCoinbase, hardhat_setPrevRandao and evm_setBlockGasLimit
// rebuild the block in progress with the new attribute (`pending` shows it, the sealed block
// carries it); the coinbase and the gas limit stay for the blocks after it. On both chain
// types.
func TestBlockAttributes(t *testing.T) {
	for _, op := range []bool{false, true} {
		t.Run(fmt.Sprintf("op=%v", op), func(t *testing.T) {
			n := newDevNode(t, op)
			ctx := context.Background()
			coinbase := common.HexToAddress("0x00000000000000000000000000000000c0ffee05")
			randao := common.HexToHash("0x1234")
			var ok bool
			var h common.Hash
			mustCall(t, n.pre, &h, "eth_sendTransaction", map[string]any{"from": n.addr(0), "to": n.addr(1), "value": "0x1", "maxPriorityFeePerGas": "0x3b9aca00"})
			n.preconfirm(t)
			mustCall(t, n.pre, &ok, "hardhat_setCoinbase", coinbase)
			mustCall(t, n.pre, &ok, "hardhat_setPrevRandao", randao)
			mustCall(t, n.pre, &ok, "evm_setBlockGasLimit", "0x2faf080") // 50,000,000
			pending, err := n.preEth.HeaderByNumber(ctx, big.NewInt(-1))
			if err != nil || pending.Coinbase != coinbase || pending.MixDigest != randao || pending.GasLimit != 50_000_000 {
				t.Fatalf("pending header %+v %v", pending, err)
			}
			before := balance(t, n.stdEth, coinbase, false)
			sealed := n.seal(t)
			if sealed.Coinbase() != coinbase || sealed.MixDigest() != randao || sealed.GasLimit() != 50_000_000 || len(sealed.Transactions()) == 0 {
				t.Fatalf("sealed block: coinbase %s randao %s gas limit %d, %d txs", sealed.Coinbase(), sealed.MixDigest(), sealed.GasLimit(), len(sealed.Transactions()))
			}
			if got := balance(t, n.stdEth, coinbase, false); got.Cmp(before) <= 0 {
				t.Fatalf("coinbase balance %v: the tip did not reach it", got)
			}
			n.preconfirm(t)
			next := n.seal(t)
			if next.Coinbase() != coinbase || next.GasLimit() != 50_000_000 {
				t.Fatalf("next block: coinbase %s gas limit %d", next.Coinbase(), next.GasLimit())
			}
			wantError(t, n.pre, rpc.CodeInvalidParams, []string{"argument 0 (gasLimit)"}, "evm_setBlockGasLimit", "0x1")
		})
	}
}
