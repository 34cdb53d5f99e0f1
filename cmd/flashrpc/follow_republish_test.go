package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/flashrpc/flashrpc/internal/flashblocks"
)

// TestFollowRepublishesAsSent has a replica follow a feed whose producer sets its own payload
// ids and metadata members (as Base's does: receipts, new_account_balances): the replica's
// own feed carries each verified flashblock with the JSON the upstream sent, byte for byte,
// not one recomputed from the replica's block (another payload id, the metadata dropped).
func TestFollowRepublishesAsSent(t *testing.T) {
	tn := startTestNode(t, testOptions(t.TempDir()))
	rl := startRelay(t, tn.Feed().URL)
	rl.always(func(p *flashblocks.Payload) {
		p.PayloadID[0] ^= 0xff
		p.Metadata.Extra = map[string]json.RawMessage{"producer_note": json.RawMessage(fmt.Sprintf(`{"index":%d}`, p.Index))}
	})
	o := replicaOptions(tn, t.TempDir())
	o.feedURL = rl.url()
	r := startTestReplica(t, o)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	upstream, err := flashblocks.Dial(ctx, rl.url())
	if err != nil {
		t.Fatal(err)
	}
	defer upstream.Close()
	replica, err := flashblocks.Dial(ctx, r.Feed().URL)
	if err != nil {
		t.Fatal(err)
	}
	defer replica.Close()
	waitFor(t, "both consumers connected", func() bool { return r.Feed().Consumers() == 1 && rl.pub.Consumers() == 2 })

	tn.preconfirm(t) // index 0 of block 1
	tn.preconfirm(t)
	tn.seal(t)
	tn.preconfirm(t) // index 0 of block 2
	sent := make(map[string][]byte)
	key := func(p *flashblocks.Payload) string { return fmt.Sprintf("%d/%d", p.Metadata.BlockNumber, p.Index) }
	for range 3 {
		msg, err := upstream.NextRaw(ctx)
		if err != nil {
			t.Fatal(err)
		}
		p, text, err := flashblocks.DecodeText(msg)
		if err != nil {
			t.Fatal(err)
		}
		sent[key(p)] = text
	}
	for range 3 {
		msg, err := replica.NextRaw(ctx)
		if err != nil {
			t.Fatal(err)
		}
		p, err := flashblocks.Decode(msg)
		if err != nil {
			t.Fatal(err)
		}
		if want := sent[key(p)]; !bytes.Equal(msg, want) {
			t.Fatalf("flashblock %s republished as\n%s\nthe upstream sent\n%s", key(p), msg, want)
		}
	}
}
