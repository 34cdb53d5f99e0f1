package events

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
	"github.com/flashrpc/flashrpc/internal/sequencer"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// TestSyncWaitSince checks the rule that makes eth_sendRawTransactionSync's waits safe: a wait
// counts only the events queued after it began, and an event queued before it was published
// with its View first, so the wait's first look-up finds what the event showed.
func TestSyncWaitSince(t *testing.T) {
	ctx := context.Background()
	n := newStreamsNode(t)
	s := n.api.streams
	tx := n.tx(t, 0)
	raw, _ := tx.MarshalBinary()
	if _, err := n.api.SendRawTransaction(ctx, rpc.Params{hexParam(t, raw)}); err != nil {
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
	if r := n.api.ReceiptJSON(n.api.View(), tx.Hash()); r == nil {
		t.Fatal("the late wait's look-up does not find the receipt its missed event showed")
	}
}

// streamsNode is a manual dev chain (no timers) with one funded sender and the pre-confirmed
// endpoint's events.
type streamsNode struct {
	chain *chain.Chain
	seq   *sequencer.Sequencer
	api   *API
	key   *ecdsa.PrivateKey
}

func newStreamsNode(t *testing.T) *streamsNode {
	t.Helper()
	key, _ := crypto.GenerateKey()
	c, err := chain.Open(chain.Config{DataDir: t.TempDir(), Genesis: chain.DevGenesis(chain.DefaultChainID, []common.Address{crypto.PubkeyToAddress(key.PublicKey)})})
	if err != nil {
		t.Fatal(err)
	}
	pre := preconf.New(c)
	pool := txpool.New(c.Config(), txpool.Config{})
	n := &streamsNode{chain: c, key: key, seq: sequencer.New(sequencer.Config{}, c, pre, pool)}
	n.api = New(core.New(core.Config{Pending: true}, core.Backend{Chain: c, Preconf: pre, Pool: pool}), Config{}, Backend{})
	if err := n.seq.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		n.seq.Close()
		c.Close()
	})
	return n
}

// tx is a call from the sender with nonce.
func (n *streamsNode) tx(t *testing.T, nonce uint64) *types.Transaction {
	t.Helper()
	to := common.Address{0xec}
	tx, err := types.SignNewTx(n.key, types.LatestSigner(n.chain.Config()), &types.DynamicFeeTx{
		ChainID: n.chain.Config().ChainID, Nonce: nonce, To: &to, Gas: 100_000,
		GasFeeCap: big.NewInt(10 * params.GWei), GasTipCap: big.NewInt(params.GWei),
	})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// hexParam encodes b as a JSON hex parameter.
func hexParam(t *testing.T, b []byte) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(hexutil.Bytes(b))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
