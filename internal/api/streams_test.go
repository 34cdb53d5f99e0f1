package api

import (
	"context"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
)

// TestSyncWaitSince checks the rule that makes eth_sendRawTransactionSync's waits safe: a wait
// counts only the events queued after it began, and an event queued before it was published
// with its View first, so the wait's first look-up finds what the event showed.
func TestSyncWaitSince(t *testing.T) {
	ctx := context.Background()
	n := newViewNode(t, 1, 0, 0)
	s := n.api.streams
	tx := n.echoTx(t, 0, 0)
	raw, _ := tx.MarshalBinary()
	if _, err := n.api.sendRawTransaction(ctx, encodeParams(t, hexutil.Bytes(raw))); err != nil {
		t.Fatal(err)
	}
	early := s.wait(tx.Hash())
	defer s.unwait(tx.Hash(), early)
	if _, err := n.seq.Preconfirm(ctx); err != nil { // queues the snapshot event
		t.Fatal(err)
	}
	late := s.wait(tx.Hash()) // begins after the event was queued
	defer s.unwait(tx.Hash(), late)
	select {
	case <-early.wake:
	case <-time.After(10 * time.Second): // a guard against a hang, not a measurement
		t.Fatal("the wait that began before the pre-confirmation was not woken")
	}
	s.mu.Lock() // the drain has delivered the event: it woke early under s.mu
	s.mu.Unlock()
	select {
	case <-late.wake:
		t.Fatal("a wait was woken by an event queued before it began")
	default:
	}
	if r := n.api.receiptJSON(n.api.view(), tx.Hash()); r == nil {
		t.Fatal("the late wait's look-up does not find the receipt its missed event showed")
	}
}
