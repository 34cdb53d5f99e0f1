package main

import (
	"context"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
)

// devMethods are the dev-node methods (internal/devapi), with parameters a dev node accepts.
var devMethods = []struct {
	name string
	args []any
}{
	{"eth_sendTransaction", []any{map[string]any{"from": "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "to": "0x000000000000000000000000000000000000dEaD", "value": "0x1"}}},
	{"eth_sign", []any{"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "0x00"}},
	{"personal_sign", []any{"0x00", "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"}},
	{"anvil_impersonateAccount", []any{"0x000000000000000000000000000000000000a11e"}},
	{"hardhat_setBalance", []any{"0x000000000000000000000000000000000000a11e", "0xde0b6b3a7640000"}},
	{"txpool_status", nil},
	{"txpool_content", nil},
	{"evm_snapshot", nil},
	{"evm_increaseTime", []any{10}},
	{"evm_mine", nil},
	{"anvil_dumpState", nil},
}

// TestDevMethods: `flashrpc dev` serves the dev-node methods on both endpoints, an
// impersonated transaction keeps its sender and a block sealed with a cheat its state across a
// restart (read back from the database),
// --client-version sets web3_clientVersion (Hardhat's network helpers need "anvil…"),
// and `flashrpc serve` of the same chain answers -32601 for every dev method and [] for
// eth_accounts.
func TestDevMethods(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tn := startTestNode(t, testOptions(dir))
	for _, cl := range []*gethrpc.Client{tn.stdRaw, tn.preRaw} {
		var accounts []common.Address
		if err := cl.Call(&accounts, "eth_accounts"); err != nil || len(accounts) != 10 {
			t.Fatalf("eth_accounts on the dev chain: %v %v, want the ten dev accounts", accounts, err)
		}
		for _, m := range devMethods {
			var out any
			if err := cl.Call(&out, m.name, m.args...); err != nil {
				t.Fatalf("%s on the dev chain: %v", m.name, err)
			}
		}
	}
	whale := common.HexToAddress("0x000000000000000000000000000000000000a11e")
	var h common.Hash
	if err := tn.preRaw.Call(&h, "eth_sendTransaction", map[string]any{"from": whale, "to": whale, "value": "0x1"}); err != nil {
		t.Fatal(err)
	}
	rich := common.HexToAddress("0x00000000000000000000000000000000000f00d5")
	var ok bool
	if err := tn.preRaw.Call(&ok, "anvil_setBalance", rich, "0x1234"); err != nil {
		t.Fatal(err)
	}
	tn.preconfirm(t)
	tn.seal(t) // written as executed (it carries a cheat)
	tn.stop()

	o := testOptions(dir) // the same chain: read back from the database
	o.API.ClientVersion = "anvil/flashrpc"
	tn = startTestNode(t, o)
	for _, cl := range []*gethrpc.Client{tn.stdRaw, tn.preRaw} {
		var v string
		if err := cl.Call(&v, "web3_clientVersion"); err != nil || v != "anvil/flashrpc" {
			t.Fatalf("web3_clientVersion with --client-version: %q %v", v, err)
		}
	}
	var tx struct{ From common.Address }
	if err := tn.stdRaw.Call(&tx, "eth_getTransactionByHash", h); err != nil || tx.From != whale {
		t.Fatalf("impersonated transaction after a restart: from %s (%v), want %s", tx.From, err, whale)
	}
	if bal, err := tn.std.BalanceAt(ctx, rich, nil); err != nil || bal.Int64() != 0x1234 {
		t.Fatalf("balance set by a cheat, after a restart: %v %v, want 0x1234", bal, err)
	}
	tn.preconfirm(t)
	tn.seal(t) // the chain goes on from the cheated block
	tn.stop()

	std, pre := serveForTest(t, dir)
	for _, url := range []string{std, pre} {
		cl, err := gethrpc.DialContext(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		var accounts []common.Address
		if err := cl.Call(&accounts, "eth_accounts"); err != nil || len(accounts) != 0 {
			t.Fatalf("serve: eth_accounts %v %v, want []", accounts, err)
		}
		for _, m := range devMethods {
			var out any
			err := cl.Call(&out, m.name, m.args...)
			var re gethrpc.Error
			if !errors.As(err, &re) || re.ErrorCode() != -32601 {
				t.Fatalf("serve: %s answered %v, %v; want -32601", m.name, out, err)
			}
		}
	}
}
