package api

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/devapi"
)

// TestDepositNonceEverywhere: a deposit's "nonce" is its receipt's depositNonce (deposits
// have none of their own), so every path that encodes a deposit must pass its receipt: the
// block in progress and its transactions (pre-confirmed endpoint), the sealed head's
// pre-encoded block, a sealed block by number and by hash, and transaction look-ups. Two
// deposits from one sender in one block have nonces 0 and 1; without the receipt both would
// read 0.
func TestDepositNonceEverywhere(t *testing.T) {
	n := newOPSurfaceNode(t, 1, Config{})
	// The pre-confirmed endpoint's table with the dev methods, as flashrpc dev serves it.
	table := core.NewTable(n.pre.Service().Methods, nil)
	devapi.New(devapi.Config{}, devapi.Backend{Chain: n.chain, Preconf: n.preconf, Pool: n.pool, Sequencer: n.seq}).Register(table)
	dev := table.Methods()
	from := common.HexToAddress("0x00000000000000000000000000000000000d3b05")
	var deposits [2]common.Hash
	for i := range deposits {
		res, err := dev["dev_deposit"](context.Background(), encodeParams(t, map[string]any{"from": from, "to": echoAddr, "mint": "0x64"}))
		if err != nil {
			t.Fatalf("dev_deposit: %v", err)
		}
		if err := json.Unmarshal(resultJSON(t, res), &deposits[i]); err != nil {
			t.Fatalf("dev_deposit: decode: %v", err)
		}
	}
	n.seal(t) // block 1; block 2 opens with [L1-attributes deposit, deposits…]

	type tx struct {
		Hash  common.Hash
		Nonce hexutil.Uint64
	}
	check := func(what string, txs []tx) {
		t.Helper()
		if len(txs) != 3 || txs[1].Hash != deposits[0] || txs[2].Hash != deposits[1] || txs[1].Nonce != 0 || txs[2].Nonce != 1 {
			t.Fatalf("%s: transactions %+v, want the deposits %v with nonces 0 and 1", what, txs, deposits)
		}
	}
	lookups := func(api *API, block any) {
		t.Helper()
		var one tx
		n.mustCall(t, api, &one, "eth_getTransactionByHash", deposits[1])
		var byIndex tx
		n.mustCall(t, api, &byIndex, "eth_getTransactionByBlockNumberAndIndex", block, "0x2")
		if one.Nonce != 1 || byIndex.Nonce != 1 {
			t.Fatalf("deposit 1 looked up at %v: nonce %d by hash, %d by index; want 1", block, one.Nonce, byIndex.Nonce)
		}
	}
	var pending struct{ Transactions []tx }
	n.mustCall(t, n.pre, &pending, "eth_getBlockByNumber", "pending", true)
	check("pending block", pending.Transactions)
	lookups(n.pre, "pending")

	sealed := n.seal(t)
	var head, byHash struct{ Transactions []tx }
	n.mustCall(t, n.std, &head, "eth_getBlockByNumber", "latest", true) // the head's cache
	check("sealed head", head.Transactions)
	n.mustCall(t, n.std, &byHash, "eth_getBlockByHash", sealed.Hash(), true)
	check("sealed block by hash", byHash.Transactions)
	lookups(n.std, "0x2")

	n.seal(t) // block 2 is no longer the head
	var old struct{ Transactions []tx }
	n.mustCall(t, n.std, &old, "eth_getBlockByNumber", "0x2", true)
	check("sealed block by number", old.Transactions)
}
