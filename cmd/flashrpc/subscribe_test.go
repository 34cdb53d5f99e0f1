package main

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
)

// TestSubscriptions subscribes to newHeads and logs over WebSocket on both endpoints and checks
// that sealing a block that emits a log delivers its header and the log, once each.
func TestSubscriptions(t *testing.T) {
	ctx := context.Background()
	tn := startTestNode(t, testOptions(t.TempDir()))
	key := tn.Accounts()[0].Key
	chainID := big.NewInt(1337)
	deploy := signTx(t, key, chainID, 0, nil, new(big.Int), 200_000, logInit)
	contract := crypto.CreateAddress(addressOf(key), 0)

	type subs struct {
		heads chan *types.Header
		logs  chan types.Log
	}
	all := map[string]subs{}
	for _, url := range []string{tn.stdURL, tn.preURL} {
		ws, err := ethclient.Dial(strings.Replace(url, "http://", "ws://", 1))
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		s := subs{heads: make(chan *types.Header, 8), logs: make(chan types.Log, 8)}
		if _, err := ws.SubscribeNewHead(ctx, s.heads); err != nil {
			t.Fatalf("%s newHeads: %v", url, err)
		}
		if _, err := ws.SubscribeFilterLogs(ctx, ethereum.FilterQuery{Addresses: []common.Address{contract}}, s.logs); err != nil {
			t.Fatalf("%s logs: %v", url, err)
		}
		all[url] = s
	}
	if err := tn.std.SendTransaction(ctx, deploy); err != nil {
		t.Fatal(err)
	}
	tn.preconfirm(t)
	tn.seal(t) // block 1: the deployment (no log)
	call := signTx(t, key, chainID, 1, &contract, new(big.Int), 50_000, nil)
	if err := tn.std.SendTransaction(ctx, call); err != nil {
		t.Fatal(err)
	}
	tn.preconfirm(t)
	tn.seal(t) // block 2: the call, one log
	for url, s := range all {
		for want := uint64(1); want <= 2; want++ {
			select {
			case h := <-s.heads:
				if h.Number.Uint64() != want {
					t.Fatalf("%s: head %d, want %d", url, h.Number, want)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: no newHeads notification for block %d", url, want)
			}
		}
		select {
		case l := <-s.logs:
			if l.BlockNumber != 2 || l.TxHash != call.Hash() || l.Topics[0] != logTopic || l.Removed {
				t.Fatalf("%s: log %+v", url, l)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no logs notification", url)
		}
		select {
		case l := <-s.logs:
			t.Fatalf("%s: unexpected second log %+v", url, l)
		default:
		}
	}
}
