package chain_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/binary"
	"math/big"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/logs"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/sequencer"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// TestCloseUnderLoad closes a chain that the dev sequencer writes to (timer seals, the chain
// write on its own goroutine) while transactions with logs keep coming and readers query it:
// state reads until the close begins (as the endpoints stop first), log index searches and
// block and receipt reads through the close, and one reader that holds a database iterator
// open until it sees the close begin. The sequencer and the log index are closed first, as
// the node does. Close must wait for the iterators and report nothing left open: Pebble says
// "leaked iterators" or "leaked memtable reservation" in Close's error when a reader's
// iterator outlives the database, and panics when it is released afterwards.
func TestCloseUnderLoad(t *testing.T) {
	var keys []*ecdsa.PrivateKey
	var funded []common.Address
	for i := range 4 {
		k, err := crypto.ToECDSA(crypto.Keccak256(binary.BigEndian.AppendUint32(nil, uint32(i+1))))
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
		funded = append(funded, crypto.PubkeyToAddress(k.PublicKey))
	}
	g := oprollup.DevGenesis(1337, funded, new(big.Int).Mul(big.NewInt(1e6), big.NewInt(params.Ether)))
	emitter := common.Address{0xe0}
	g.Alloc[emitter] = types.Account{Code: common.FromHex("60003560005260206000a1600035600055")} // LOG1 and SSTORE of word 0
	c, err := chain.Open(chain.Config{DataDir: t.TempDir(), Genesis: g})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := logs.OpenIndex(logs.IndexConfig{Store: c.LogIndexStore(), Chain: c})
	if err != nil {
		t.Fatal(err)
	}
	c.OnHead(func(chain.HeadEvent) { ix.Notify() })
	pre := preconf.New(c)
	pool := txpool.New(c.Config(), txpool.Config{})
	seq := sequencer.New(sequencer.Config{BlockTime: 100 * time.Millisecond, PreconfInterval: 20 * time.Millisecond, L1: &oprollup.DevL1{GenesisTime: g.Timestamp}}, c, pre, pool)
	if err := seq.Start(context.Background()); err != nil {
		t.Fatal(err)
	}

	var (
		stop      = make(chan struct{}) // readers and sender stop
		stateStop atomic.Bool           // state readers stop: the close begins
		wg        sync.WaitGroup
		panics    = make(chan any, 16)
	)
	run := func(fn func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					panics <- p
				}
			}()
			for {
				select {
				case <-stop:
					return
				default:
				}
				fn()
			}
		}()
	}
	nonces := make([]uint64, len(keys))
	var sent int
	run(func() { // the sender
		i := sent % len(keys)
		sent++
		tx, err := types.SignNewTx(keys[i], types.LatestSigner(c.Config()), &types.DynamicFeeTx{
			ChainID: c.Config().ChainID, Nonce: nonces[i], To: &emitter, Gas: 100_000,
			GasFeeCap: big.NewInt(params.GWei), GasTipCap: big.NewInt(1), Data: common.BigToHash(big.NewInt(int64(sent))).Bytes(),
		})
		if err != nil {
			panic(err)
		}
		if snap := pre.Current(); snap != nil && pool.Add(tx, txpool.StateView(c.Config(), snap.Header(), snap.ReadState)) == nil {
			nonces[i]++
		}
		time.Sleep(time.Millisecond)
	})
	run(func() { // state, until the close begins
		if stateStop.Load() {
			time.Sleep(time.Millisecond)
			return
		}
		if st, err := c.StateAt(c.Head()); err == nil {
			st.GetBalance(funded[0])
			st.GetState(emitter, common.Hash{})
		}
	})
	var searched atomic.Int64
	for range 2 {
		run(func() { // log index searches (database iterators), blocks and receipts
			h := c.Head()
			s := ix.Search(&logs.Criteria{Addresses: []common.Address{emitter}}, 0, h.Number.Uint64())
			for s.Blocks.Next() {
				s.BlockLogs(s.Blocks.At(), func(*types.Log) {})
			}
			s.Close()
			c.BlockByNumber(h.Number.Uint64())
			c.Receipts(h.Hash())
			searched.Add(1)
		})
	}
	// One iterator held open across the start of the close.
	held, holding, closeReturned := c.LogIndexStore().NewIterator(nil, nil), make(chan struct{}), new(atomic.Bool)
	wg.Add(1)
	go func() {
		defer wg.Done()
		close(holding)
		for !closeReturned.Load() {
			probe := c.LogIndexStore().NewIterator(nil, nil)
			closing := probe.Error() != nil
			probe.Release()
			if closing {
				held.Release()
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	<-holding

	waitFor(t, "blocks with logs, indexed and searched", func() bool {
		return c.Head().Number.Uint64() >= 5 && searched.Load() >= 20
	})
	stateStop.Store(true)
	seq.Close() // waits for its last chain write
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	err = c.Close()
	closeReturned.Store(true)
	close(stop)
	wg.Wait()
	close(panics)
	for p := range panics {
		t.Errorf("a reader panicked: %v", p)
	}
	if err != nil {
		t.Fatalf("close under load: %v", err)
	}
}

// waitFor polls cond until it holds, failing the test after a generous deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
