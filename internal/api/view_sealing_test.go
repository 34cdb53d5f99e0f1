package api

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/flashrpc/flashrpc/internal/preconf"
)

// TestViewWhileSealing answers from the View preconf publishes while the chain writes a
// sealed block (preconf.SealAsync): Latest the parent, Sealing the sealed block's last
// pre-confirmation, Pending the next block built on it. On the pre-confirmed endpoint the
// sealed block's transaction, receipt, block and logs are found (as pre-confirmed) while
// `latest` stays the parent; on the standard endpoint (neither Sealing nor Pending) the block
// does not exist yet, even where the chain has already stored it.
func TestViewWhileSealing(t *testing.T) {
	ctx := context.Background()
	n := newViewNode(t, 1, 0, 0)
	if _, err := n.seq.Seal(ctx); err != nil { // block 1, empty: the test's block is 2
		t.Fatal(err)
	}
	tx := n.echoTx(t, 0, 0)
	raw, _ := tx.MarshalBinary()
	if _, err := n.api.events.SendRawTransaction(ctx, encodeParams(t, hexutil.Bytes(raw))); err != nil {
		t.Fatal(err)
	}
	if _, err := n.seq.Preconfirm(ctx); err != nil {
		t.Fatal(err)
	}
	preconfirmed := n.api.core.View()
	block, err := n.seq.Seal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	next := n.api.core.View() // block 2 sealed, block 3 in progress on it
	sealing := preconf.View{Latest: preconfirmed.Latest, Sealing: preconfirmed.Pending, Pending: next.Pending}
	standard := preconf.View{Latest: preconfirmed.Latest}
	if sealing.Sealing == nil || sealing.Sealing.Block.Hash() != block.Hash() || sealing.Pending == nil || sealing.Pending.Parent.Hash() != block.Hash() {
		t.Fatal("the test's views are not those of a block being written")
	}

	hash := tx.Hash()
	type answer = map[string]any
	call := func(t *testing.T, v preconf.View, m viewMethod, args ...any) any {
		t.Helper()
		res, err := m(ctx, v, encodeParams(t, args...))
		if err != nil {
			t.Fatal(err)
		}
		var got any
		if err := json.Unmarshal(resultJSON(t, res), &got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	oneLog := func(t *testing.T, got any) {
		t.Helper()
		list, _ := got.([]any)
		if len(list) != 1 || list[0].(answer)["transactionHash"] != hash.Hex() || list[0].(answer)["blockNumber"] != "0x2" {
			t.Fatalf("logs %v, want block 2's one log", got)
		}
	}
	t.Run("pre-confirmed endpoint", func(t *testing.T) {
		if r, _ := call(t, sealing, n.api.reads.GetTransactionReceipt, hash).(answer); r == nil || r["blockNumber"] != "0x2" {
			t.Fatalf("receipt %v, want block 2's", r)
		}
		if r := n.api.reads.TransactionByHash(sealing, hash, nil); string(r) == "null" {
			t.Fatal("transaction not found")
		}
		if got := call(t, sealing, n.api.reads.BlockNumber); got != "0x1" {
			t.Fatalf("block number %v: latest moved before the block is durable", got)
		}
		for _, m := range []struct {
			name string
			fn   viewMethod
			arg  any
		}{{"eth_getBlockByNumber", n.api.reads.GetBlockByNumber, "0x2"}, {"eth_getBlockByHash", n.api.reads.GetBlockByHash, block.Hash()}} {
			r, _ := call(t, sealing, m.fn, m.arg, false).(answer)
			if txs, _ := r["transactions"].([]any); r == nil || r["hash"] != block.Hash().Hex() || len(txs) != 1 {
				t.Fatalf("%s: %v, want block 2", m.name, r)
			}
		}
		// By block hash as by number: answered as pre-confirmed (the chain of this test has
		// already stored the block, so a look-up that skipped Sealing would answer the sealed
		// shape, with a block hash, and differ).
		byHash := call(t, sealing, n.api.reads.GetTransactionByBlockHashAndIndex, block.Hash(), "0x0")
		byNumber := call(t, sealing, n.api.reads.GetTransactionByBlockNumberAndIndex, "0x2", "0x0")
		if r, _ := byHash.(answer); r == nil || r["hash"] != hash.Hex() || !reflect.DeepEqual(byHash, byNumber) {
			t.Fatalf("eth_getTransactionByBlockHashAndIndex: %v, want what by number answers: %v", byHash, byNumber)
		}
		rawTx, _ := tx.MarshalBinary()
		if got := call(t, sealing, n.api.reads.GetRawTransactionByBlockHashAndIndex, block.Hash(), "0x0"); got != hexutil.Encode(rawTx) {
			t.Fatalf("debug_getRawTransactionByBlockHashAndIndex: %v, want the transaction's encoding", got)
		}
		encoded, err := rlp.EncodeToBytes(block)
		if err != nil {
			t.Fatal(err)
		}
		if got := call(t, sealing, n.api.reads.GetRawBlock, block.Hash()); got != hexutil.Encode(encoded) {
			t.Fatalf("debug_getRawBlock by hash: %v, want the block's encoding", got)
		}
		if r, _ := call(t, sealing, n.api.reads.GetBlockByNumber, "pending", false).(answer); r == nil || r["number"] != "0x3" {
			t.Fatalf("pending block %v, want block 3", r)
		}
		if r, _ := call(t, sealing, n.api.reads.FeeHistory, "0x3", "pending", []float64{}).(answer); r == nil || r["oldestBlock"] != "0x1" {
			t.Fatalf("eth_feeHistory up to pending: %v, want blocks 1 to 3", r)
		} else if ratios, _ := r["gasUsedRatio"].([]any); len(ratios) != 3 {
			t.Fatalf("eth_feeHistory up to pending: %v, want blocks 1 to 3", r)
		}
		if list, _ := call(t, sealing, n.api.reads.GetBlockReceipts, "0x2").([]any); len(list) != 1 {
			t.Fatalf("block 2's receipts: %v", list)
		}
		oneLog(t, call(t, sealing, n.api.events.GetLogs, answer{"address": echoAddr, "fromBlock": "0x1", "toBlock": "pending"}))
		oneLog(t, call(t, sealing, n.api.events.GetLogs, answer{"address": echoAddr, "fromBlock": "0x2", "toBlock": "0x2"}))
		oneLog(t, call(t, sealing, n.api.events.GetLogs, answer{"address": echoAddr, "fromBlock": "0x2", "toBlock": "pending"}))
		oneLog(t, call(t, sealing, n.api.events.GetLogs, answer{"address": echoAddr, "blockHash": block.Hash()}))
		if list, _ := call(t, sealing, n.api.events.GetLogs, answer{"address": echoAddr, "fromBlock": "0x1", "toBlock": "latest"}).([]any); len(list) != 0 {
			t.Fatalf("logs up to latest %v: block 2 is not latest yet", list)
		}
	})
	t.Run("standard endpoint", func(t *testing.T) {
		if got := call(t, standard, n.api.reads.GetTransactionReceipt, hash); got != nil {
			t.Fatalf("receipt %v before the block is durable", got)
		}
		if got := call(t, standard, n.api.reads.GetBlockByNumber, "0x2", false); got != nil {
			t.Fatalf("block 2 %v before it is durable", got)
		}
		if _, err := n.api.events.GetLogs(ctx, standard, encodeParams(t, answer{"fromBlock": "0x2", "toBlock": "0x2"})); err == nil {
			t.Fatal("eth_getLogs over block 2 answered before it is durable")
		}
	})
}
