package devapi_test

import (
	"context"
	"fmt"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/rpc"
)

// TestImpersonation: after anvil_impersonateAccount (or its hardhat_ alias) eth_sendTransaction
// sends from an address without its key; the pool, the sequencer and the sealed chain take
// the impersonated address as the sender (its nonce moves, its balance pays), the
// pre-confirmed transaction shows it as "from", and two impersonated senders sending the same
// fields get two transactions. anvil_stopImpersonatingAccount ends it;
// anvil_autoImpersonateAccount(true) allows any sender. On both chain types.
func TestImpersonation(t *testing.T) {
	for _, op := range []bool{false, true} {
		t.Run(fmt.Sprintf("op=%v", op), func(t *testing.T) {
			n := newDevNode(t, op)
			ctx := context.Background()
			whale, other := common.HexToAddress("0x000000000000000000000000000000000000a11e"), common.HexToAddress("0x00000000000000000000000000000000000000b0")
			sink := common.HexToAddress("0x000000000000000000000000000000000000dEaD")
			ether := hexutil.Big(*big.NewInt(params.Ether))
			for _, addr := range []common.Address{whale, other} {
				var h common.Hash
				mustCall(t, n.pre, &h, "eth_sendTransaction", map[string]any{"from": n.addr(0), "to": addr, "value": &ether})
			}
			n.preconfirm(t)
			n.seal(t)

			wantError(t, n.pre, rpc.CodeServer, []string{"not a dev account"}, "eth_sendTransaction", map[string]any{"from": whale, "to": sink})
			var ok bool
			mustCall(t, n.std, &ok, "anvil_impersonateAccount", whale)
			mustCall(t, n.pre, &ok, "hardhat_impersonateAccount", other)
			var h1, h2 common.Hash
			mustCall(t, n.pre, &h1, "eth_sendTransaction", map[string]any{"from": whale, "to": sink, "value": "0x5", "nonce": "0x0", "gas": "0x5208", "maxFeePerGas": "0x77359400", "maxPriorityFeePerGas": "0x1"})
			mustCall(t, n.std, &h2, "eth_sendTransaction", map[string]any{"from": other, "to": sink, "value": "0x5", "nonce": "0x0", "gas": "0x5208", "maxFeePerGas": "0x77359400", "maxPriorityFeePerGas": "0x1"})
			if h1 == h2 {
				t.Fatalf("two impersonated senders' transactions share hash %s", h1)
			}
			n.preconfirm(t)
			for _, c := range []struct {
				hash common.Hash
				from common.Address
			}{{h1, whale}, {h2, other}} {
				var tx struct{ From common.Address }
				mustCall(t, n.pre, &tx, "eth_getTransactionByHash", c.hash)
				if tx.From != c.from {
					t.Fatalf("pre-confirmed %s: from %s, want %s", c.hash, tx.From, c.from)
				}
				r, err := n.preEth.TransactionReceipt(ctx, c.hash)
				if err != nil || r.Status != types.ReceiptStatusSuccessful {
					t.Fatalf("pre-confirmed receipt of %s: %+v %v", c.hash, r, err)
				}
			}
			before := balance(t, n.stdEth, whale, false)
			block := n.seal(t) // the chain re-executes the block: the senders must hold there too
			if len(block.Transactions()) < 2 {
				t.Fatalf("sealed block has %d transactions", len(block.Transactions()))
			}
			// Read back sealed (from the database): the sender is still the impersonated one.
			for _, c := range []struct {
				hash common.Hash
				from common.Address
			}{{h1, whale}, {h2, other}} {
				var tx, r struct{ From common.Address }
				mustCall(t, n.std, &tx, "eth_getTransactionByHash", c.hash)
				mustCall(t, n.std, &r, "eth_getTransactionReceipt", c.hash)
				var b struct {
					Transactions []struct {
						Hash common.Hash
						From common.Address
					}
				}
				mustCall(t, n.std, &b, "eth_getBlockByHash", block.Hash(), true)
				if tx.From != c.from || r.From != c.from {
					t.Fatalf("sealed %s: from %s, receipt from %s, want %s", c.hash, tx.From, r.From, c.from)
				}
				for _, btx := range b.Transactions {
					if btx.Hash == c.hash && btx.From != c.from {
						t.Fatalf("sealed block lists %s from %s, want %s", c.hash, btx.From, c.from)
					}
				}
			}
			nonce, err := n.stdEth.NonceAt(ctx, whale, nil)
			if err != nil || nonce != 1 {
				t.Fatalf("whale's sealed nonce %d (%v), want 1", nonce, err)
			}
			if after := balance(t, n.stdEth, whale, false); after.Cmp(new(big.Int).Sub(before, big.NewInt(5))) >= 0 {
				t.Fatalf("whale's balance %v after sending 5 wei and gas from %v", after, before)
			}

			// A contract deployed by an impersonated sender: its address derives from that
			// sender, pre-confirmed and sealed.
			var deploy common.Hash
			mustCall(t, n.pre, &deploy, "eth_sendTransaction", map[string]any{"from": whale, "data": "0x600a600c600039600a6000f3602a60005260206000f3"})
			n.preconfirm(t)
			wantAddr := crypto.CreateAddress(whale, 1)
			if r, err := n.preEth.TransactionReceipt(ctx, deploy); err != nil || r.ContractAddress != wantAddr {
				t.Fatalf("pre-confirmed deployment receipt: %+v %v, want contract %s", r, err, wantAddr)
			}
			n.seal(t)
			if r, err := n.stdEth.TransactionReceipt(ctx, deploy); err != nil || r.ContractAddress != wantAddr {
				t.Fatalf("sealed deployment receipt: %+v %v, want contract %s", r, err, wantAddr)
			}
			if code, err := n.stdEth.CodeAt(ctx, wantAddr, nil); err != nil || len(code) == 0 {
				t.Fatalf("no code at %s (%v)", wantAddr, err)
			}

			mustCall(t, n.pre, &ok, "anvil_stopImpersonatingAccount", whale)
			wantError(t, n.pre, rpc.CodeServer, []string{"not a dev account"}, "eth_sendTransaction", map[string]any{"from": whale, "to": sink})
			mustCall(t, n.pre, &ok, "anvil_autoImpersonateAccount", true)
			var h3 common.Hash
			mustCall(t, n.pre, &h3, "eth_sendTransaction", map[string]any{"from": whale, "to": sink, "value": "0x1"})
			mustCall(t, n.pre, &ok, "hardhat_autoImpersonateAccount", false)
			wantError(t, n.pre, rpc.CodeServer, []string{"not a dev account"}, "eth_sendTransaction", map[string]any{"from": whale, "to": sink})
			n.preconfirm(t)
			n.seal(t)
			if nonce, err := n.stdEth.NonceAt(ctx, whale, nil); err != nil || nonce != 3 {
				t.Fatalf("whale's nonce after the auto-impersonated send: %d (%v), want 3", nonce, err)
			}
			wantError(t, n.pre, rpc.CodeInvalidParams, []string{"argument 0 (address)"}, "anvil_impersonateAccount", "0xnothex")
			wantError(t, n.pre, rpc.CodeInvalidParams, []string{"argument 0 (enabled)"}, "anvil_autoImpersonateAccount", "yes")
		})
	}
}

// TestImpersonateContract: an account with code (a contract) can be impersonated, as anvil and
// Hardhat allow: its transaction passes go-ethereum's sender-is-not-a-contract check (EIP-3607)
// on the dev chain only, is pre-confirmed, and its block is sealed as executed.
func TestImpersonateContract(t *testing.T) {
	for _, op := range []bool{false, true} {
		t.Run(fmt.Sprintf("op=%v", op), func(t *testing.T) {
			n := newDevNode(t, op)
			ctx := context.Background()
			safe := common.HexToAddress("0x00000000000000000000000000000000005afe01")
			sink := common.HexToAddress("0x000000000000000000000000000000000000dEaD")
			var ok bool
			mustCall(t, n.pre, &ok, "anvil_setCode", safe, "0x00")
			mustCall(t, n.pre, &ok, "anvil_setBalance", safe, "0xde0b6b3a7640000")
			mustCall(t, n.pre, &ok, "anvil_impersonateAccount", safe)
			n.seal(t)
			before := balance(t, n.stdEth, sink, false)
			var h common.Hash
			mustCall(t, n.pre, &h, "eth_sendTransaction", map[string]any{"from": safe, "to": sink, "value": "0x7"})
			n.preconfirm(t)
			if r, err := n.preEth.TransactionReceipt(ctx, h); err != nil || r.Status != types.ReceiptStatusSuccessful {
				t.Fatalf("pre-confirmed receipt of the contract's transaction: %+v %v", r, err)
			}
			n.seal(t)
			n.preconfirm(t)
			n.seal(t) // and a plain block after it
			if got := balance(t, n.stdEth, sink, false); got.Cmp(new(big.Int).Add(before, big.NewInt(7))) != 0 {
				t.Fatalf("sink balance %v, want %v + 7", got, before)
			}
			if nonce, err := n.stdEth.NonceAt(ctx, safe, nil); err != nil || nonce != 1 {
				t.Fatalf("contract's nonce %d (%v), want 1", nonce, err)
			}
		})
	}
}
