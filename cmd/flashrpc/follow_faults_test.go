package main

import (
	"context"
	"encoding/json"

	"math/big"
	"net"
	"net/http"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/flashblocks"
)

// relay sits between a feed and a replica and republishes every flashblock, in brotli binary
// frames, unless its fault says otherwise.
type relay struct {
	pub  *flashblocks.Publisher
	ln   net.Listener
	stop func() // disconnects everyone and stops; a second call does nothing

	mu    sync.Mutex
	fault func(*flashblocks.Payload) *flashblocks.Payload // nil: pass; returns nil to drop
	every func(*flashblocks.Payload)                      // nil: none; changes every payload
}

// startRelay reads the feed at url and serves it again on a new port.
func startRelay(t *testing.T, url string) *relay { return startRelayAt(t, url, "127.0.0.1:0") }

// startRelayAt reads the feed at url and serves it again at addr.
func startRelayAt(t *testing.T, url, addr string) *relay {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{pub: flashblocks.NewPublisher(flashblocks.PublisherConfig{Brotli: true}), ln: ln}
	go r.pub.Serve(ln)
	ctx, cancel := context.WithCancel(context.Background())
	c, err := flashblocks.Dial(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			p, err := c.Next(ctx)
			if err != nil {
				return
			}
			r.mu.Lock()
			fault, every := r.fault, r.every
			r.fault = nil
			r.mu.Unlock()
			if every != nil {
				every(p)
			}
			if fault != nil {
				if p = fault(p); p == nil {
					continue
				}
			}
			r.pub.Publish(p)
		}
	}()
	var once sync.Once
	r.stop = func() {
		once.Do(func() {
			cancel()
			<-done
			r.pub.Shutdown(context.Background())
		})
	}
	t.Cleanup(r.stop)
	return r
}

func (r *relay) url() string { return "ws://" + r.ln.Addr().String() }

// always applies change to every flashblock from the next one on.
func (r *relay) always(change func(*flashblocks.Payload)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.every = change
}

// once applies fault to the next flashblock only.
func (r *relay) once(fault func(*flashblocks.Payload) *flashblocks.Payload) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fault = fault
}

// TestFollowFeedFaults runs a replica behind a relay that drops one flashblock, then forges
// one (a transaction the sequencer never published, the block hash changed), then sends a
// malformed one: none ever reaches the replica's pending block, which falls back to the sealed head, and the replica is
// back in step with the primary from the next block. The relay sends brotli frames.
func TestFollowFeedFaults(t *testing.T) {
	ctx := context.Background()
	tn := startTestNode(t, testOptions(t.TempDir()))
	rl := startRelay(t, tn.Feed().URL)
	o := replicaOptions(tn, t.TempDir())
	o.feedURL = rl.url()
	r := startTestReplica(t, o)
	keys := testOptionsAccounts(t)
	chainID := tn.Chain().Config().ChainID
	recipient := common.HexToAddress("0x00000000000000000000000000000000000c0ffe")
	nonce := uint64(0)
	send := func() *types.Transaction {
		tx := signTx(t, keys[0], chainID, nonce, &recipient, big.NewInt(1), params.TxGas, nil)
		nonce++
		if err := tn.pre.SendTransaction(ctx, tx); err != nil {
			t.Fatalf("send: %v", err)
		}
		return tx
	}

	send()
	tn.preconfirm(t)
	r.waitInStep(t, tn.preRaw, false, "the first pre-confirmation")

	// A dropped flashblock: the next one is a gap.
	rl.once(func(*flashblocks.Payload) *flashblocks.Payload { return nil })
	dropped := send()
	tn.preconfirm(t)
	after := send()
	tn.preconfirm(t)
	r.waitFellBack(t, "the fall-back after a gap")
	r.wantAbsent(t, dropped.Hash())
	r.wantAbsent(t, after.Hash())
	tn.seal(t)
	send()
	tn.preconfirm(t)
	r.waitInStep(t, tn.preRaw, false, "back in step after the gap")

	// A forged flashblock: a transaction the sequencer never published, the hash changed.
	forged := signTx(t, keys[1], chainID, 0, &recipient, big.NewInt(1_000_000), params.TxGas, nil)
	enc, err := forged.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	rl.once(func(p *flashblocks.Payload) *flashblocks.Payload {
		p.Diff.Transactions = append(p.Diff.Transactions, hexutil.Bytes(enc))
		p.Diff.BlockHash[0] ^= 1
		return p
	})
	send()
	tn.preconfirm(t)
	r.waitFellBack(t, "the fall-back after a forged flashblock")
	r.wantAbsent(t, forged.Hash())
	if bal, err := r.pre.BalanceAt(ctx, recipient, pendingTag); err != nil {
		t.Fatal(err)
	} else if want, _ := tn.std.BalanceAt(ctx, recipient, nil); bal.Cmp(want) != 0 {
		t.Fatalf("pending balance on the replica %s, the sealed %s", bal, want)
	}
	tn.seal(t)
	send()
	tn.preconfirm(t)
	r.waitInStep(t, tn.preRaw, false, "back in step after the forgery")
	r.wantAbsent(t, forged.Hash())

	// A malformed message (a base after index 0) is logged and skipped; the sequence is broken.
	rl.once(func(p *flashblocks.Payload) *flashblocks.Payload {
		p.Base = &flashblocks.Base{BaseFeePerGas: (*hexutil.Big)(big.NewInt(1))}
		return p
	})
	malformed := send()
	tn.preconfirm(t)
	send()
	tn.preconfirm(t)
	r.waitFellBack(t, "the fall-back after a malformed message")
	r.wantAbsent(t, malformed.Hash())
	tn.seal(t)
	send()
	tn.preconfirm(t)
	r.waitInStep(t, tn.preRaw, false, "back in step after the malformed message")
}

// TestFollowHealth checks the replica's GET /health: 200 with its head, the upstream's, the lag,
// the pending index and the feed while it follows; 503 once the primary is gone.
func TestFollowHealth(t *testing.T) {
	tn := startTestNode(t, testOptions(t.TempDir()))
	r := startTestReplica(t, replicaOptions(tn, t.TempDir()))
	tn.preconfirm(t)
	tn.seal(t)
	get := func() (int, map[string]any) {
		resp, err := http.Get(r.preURL + "/health")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		if err := jsonDecode(resp.Body, &body); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, body
	}
	waitFor(t, "a healthy replica at the primary's head", func() bool {
		code, body := get()
		return code == http.StatusOK && body["head"] == float64(1) && body["upstreamHead"] == float64(1) && body["lag"] == float64(0) && body["feed"] == "connected" && body["pendingIndex"] != nil
	})
	tn.stop()
	waitFor(t, "503 once the primary is gone", func() bool {
		code, body := get()
		return code == http.StatusServiceUnavailable && body["feed"] == "disconnected"
	})
	waitFor(t, "the upstream's head unknown", func() bool {
		code, body := get()
		return code == http.StatusServiceUnavailable && body["upstreamHead"] == nil
	})
	if _, err := r.std.BlockByNumber(context.Background(), big.NewInt(1)); err != nil {
		t.Fatalf("sealed data after the primary died: %v", err)
	}
}

func jsonDecode(r interface{ Read([]byte) (int, error) }, v any) error {
	return json.NewDecoder(r).Decode(v)
}

// TestFollowFeedRedial drops the replica's feed (the relay goes away) and brings it back on
// the same address: /health says 503 with the feed disconnected meanwhile, sealed blocks keep
// coming, and once the replica has redialled it is back in step with the primary.
func TestFollowFeedRedial(t *testing.T) {
	ctx := context.Background()
	tn := startTestNode(t, testOptions(t.TempDir()))
	rl := startRelay(t, tn.Feed().URL)
	o := replicaOptions(tn, t.TempDir())
	o.feedURL = rl.url()
	r := startTestReplica(t, o)
	keys := testOptionsAccounts(t)
	chainID := tn.Chain().Config().ChainID
	nonce := uint64(0)
	step := func(seal bool) {
		t.Helper()
		tx := signTx(t, keys[0], chainID, nonce, &common.Address{0xc0}, big.NewInt(1), params.TxGas, nil)
		nonce++
		if err := tn.pre.SendTransaction(ctx, tx); err != nil {
			t.Fatal(err)
		}
		tn.preconfirm(t)
		if seal {
			tn.seal(t)
		}
	}
	health := func() (int, string) {
		resp, err := http.Get(r.preURL + "/health")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct {
			Feed string `json:"feed"`
		}
		jsonDecode(resp.Body, &body)
		return resp.StatusCode, body.Feed
	}
	step(false)
	r.waitInStep(t, tn.preRaw, false, "the first pre-confirmation")

	addr := rl.ln.Addr().String()
	rl.stop()
	waitFor(t, "503 with the feed disconnected", func() bool {
		code, feed := health()
		return code == http.StatusServiceUnavailable && feed == "disconnected"
	})
	step(true)
	waitFor(t, "sealed blocks without the feed", func() bool { return r.head() == tn.Chain().Head().Number.Uint64() })

	startRelayAt(t, tn.Feed().URL, addr)
	waitFor(t, "200 with the feed connected again", func() bool {
		code, feed := health()
		return code == http.StatusOK && feed == "connected"
	})
	step(true) // a new block: its index 0 reaches the replica through the new relay
	step(false)
	r.waitInStep(t, tn.preRaw, false, "back in step after the redial")
}
