package main

import (
	"context"
	"encoding/json"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
)

// TestNewPendingTransactions subscribes to go-ethereum's newPendingTransactions over
// WebSocket on both endpoints (hashes, and objects with true): the pre-confirmed endpoint
// notifies a transaction when it is pre-confirmed, the standard endpoint when its block is
// sealed, each once.
func TestNewPendingTransactions(t *testing.T) {
	ctx := context.Background()
	tn := startTestNode(t, testOptions(t.TempDir()))
	type sub struct {
		hashes chan common.Hash
		full   chan json.RawMessage
	}
	subs := map[string]sub{}
	for name, url := range map[string]string{"standard": tn.stdURL, "pre-confirmed": tn.preURL} {
		c, err := gethrpc.Dial(wsURL(url))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		s := sub{hashes: make(chan common.Hash, 8), full: make(chan json.RawMessage, 8)}
		if _, err := c.EthSubscribe(ctx, s.hashes, "newPendingTransactions"); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := c.EthSubscribe(ctx, s.full, "newPendingTransactions", true); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		subs[name] = s
	}
	to := common.Address{0xb3}
	tx := signTx(t, tn.Accounts()[0].Key, big.NewInt(1337), 0, &to, big.NewInt(1), 21_000, nil)
	if err := tn.std.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	tn.preconfirm(t)
	expect := func(name string, s sub) {
		t.Helper()
		select {
		case h := <-s.hashes:
			if h != tx.Hash() {
				t.Fatalf("%s: hash %s, want %s", name, h, tx.Hash())
			}
		case <-time.After(10 * time.Second): // a guard against a hang
			t.Fatalf("%s: no notification", name)
		}
		select {
		case raw := <-s.full:
			var obj struct{ Hash common.Hash }
			if err := json.Unmarshal(raw, &obj); err != nil || obj.Hash != tx.Hash() {
				t.Fatalf("%s: full notification %s", name, raw)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no full notification", name)
		}
	}
	expect("pre-confirmed", subs["pre-confirmed"])
	tn.preconfirm(t) // a pre-confirmation of nothing: the standard endpoint is still silent
	select {
	case h := <-subs["standard"].hashes:
		t.Fatalf("standard endpoint notified %s before sealing", h)
	case <-time.After(100 * time.Millisecond):
	}
	tn.seal(t)
	expect("standard", subs["standard"])
	select {
	case h := <-subs["pre-confirmed"].hashes:
		t.Fatalf("pre-confirmed endpoint notified %s again at sealing", h)
	case <-time.After(100 * time.Millisecond):
	}
}
