package main

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"log"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/benchmix"
	"github.com/flashrpc/flashrpc/internal/devaccounts"
)

// load sends internal/benchmix's realistic mix to the primary at a steady rate and reads
// through HAProxy.
type load struct {
	primary, primaryStd *client // the primary's pre-confirmed and standard endpoints
	lbPre, lbStd        *client // HAProxy's frontends
	keys                []*ecdsa.PrivateKey
	addrs               []common.Address
	mix                 *benchmix.Mix

	// The sender's goroutine alone uses these.
	nonces []uint64
	resync []bool
	n      uint64 // the mix's next transaction

	sent, refused, readOK, readFailed atomic.Int64 // since the start
	head                              atomic.Uint64

	mu       sync.Mutex
	refusals map[string]int // by message, since the last takeRefusals; guarded by mu
}

// newLoad deploys the mix's contracts with the primary's dev accounts (the test mnemonic),
// gives every sender tokens and approvals, and waits until all of it is sealed.
func newLoad(primary, primaryStd, lbPre, lbStd *client, cfg config) (*load, error) {
	accs, err := devaccounts.Derive(devaccounts.TestMnemonic, cfg.accounts)
	if err != nil {
		return nil, err
	}
	l := &load{primary: primary, primaryStd: primaryStd, lbPre: lbPre, lbStd: lbStd, nonces: make([]uint64, len(accs)), resync: make([]bool, len(accs))}
	for i, a := range accs {
		l.keys, l.addrs = append(l.keys, a.Key), append(l.addrs, a.Address)
		if l.nonces[i], err = primary.nonce(a.Address, "pending"); err != nil {
			return nil, err
		}
	}
	chainID, err := primary.chainID()
	if err != nil {
		return nil, err
	}
	l.mix = benchmix.New(chainID, l.addrs[0], l.nonces[0], big.NewInt(100*params.GWei), big.NewInt(1000))
	deployer := l.nonces[0]
	l.nonces[0] += benchmix.SetupDeployer
	txs, err := l.mix.Setup(l.keys[0], deployer, l.keys, l.nonces)
	if err != nil {
		return nil, err
	}
	for start := 0; start < len(txs); start += 200 {
		var raws [][]byte
		for _, tx := range txs[start:min(len(txs), start+200)] {
			raw, err := tx.MarshalBinary()
			if err != nil {
				return nil, err
			}
			raws = append(raws, raw)
		}
		refusals, err := primary.sendBatch(raws)
		if err != nil {
			return nil, err
		}
		for i, r := range refusals {
			if r != "" {
				return nil, fmt.Errorf("set-up transaction %d refused: %s", start+i, r)
			}
		}
	}
	if err := l.waitSealed(); err != nil {
		return nil, err
	}
	for i, a := range l.addrs { // the set-up sent from every sender
		if l.nonces[i], err = primaryStd.nonce(a, "latest"); err != nil {
			return nil, err
		}
	}
	log.Printf("soak: mix set up (%d transactions)", len(txs))
	return l, nil
}

// waitSealed waits, at most two minutes, until every sender's transactions are sealed: the
// primary's pending nonce (pool included) is its sealed one.
func (l *load) waitSealed() error {
	deadline := time.Now().Add(2 * time.Minute)
	for _, a := range l.addrs {
		for {
			pending, err := l.primary.nonce(a, "pending")
			if err != nil {
				return err
			}
			sealed, err := l.primaryStd.nonce(a, "latest")
			if err != nil {
				return err
			}
			if sealed >= pending {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s: nonce %d sealed, %d pending", a, sealed, pending)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	return nil
}

// send sends rate transactions a second, in a batch every 100 ms, until ctx ends. A sender
// whose transaction was refused reads its nonce again before it sends the next.
func (l *load) send(ctx context.Context, rate int) {
	const every = 100 * time.Millisecond
	tick := time.NewTicker(every)
	defer tick.Stop()
	start, due := time.Now(), 0.0
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			want := int(float64(rate)*now.Sub(start).Seconds() - due)
			if want <= 0 {
				continue
			}
			due += float64(want)
			l.sendBatch(want)
		}
	}
}

func (l *load) sendBatch(count int) {
	var raws [][]byte
	var from []int
	for range count {
		i := int(l.n % uint64(len(l.keys)))
		if l.resync[i] {
			n, err := l.primary.nonce(l.addrs[i], "pending")
			if err != nil {
				l.note(err.Error())
				continue
			}
			l.nonces[i], l.resync[i] = n, false
		}
		tx, err := l.mix.Tx(l.keys[i], l.nonces[i], l.n)
		l.n++
		if err != nil {
			l.note(err.Error())
			continue
		}
		raw, err := tx.MarshalBinary()
		if err != nil {
			l.note(err.Error())
			continue
		}
		l.nonces[i]++
		raws, from = append(raws, raw), append(from, i)
	}
	refusals, err := l.primary.sendBatch(raws)
	l.sent.Add(int64(len(raws)))
	if err != nil {
		l.refused.Add(int64(len(raws)))
		l.note(err.Error())
		for _, i := range from {
			l.resync[i] = true
		}
		return
	}
	for k, r := range refusals {
		if r != "" {
			l.refused.Add(1)
			l.note(r)
			l.resync[from[k]] = true
		}
	}
}

// note counts a refusal or failure by its message.
func (l *load) note(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.refusals == nil {
		l.refusals = map[string]int{}
	}
	l.refusals[msg]++
}

// takeRefusals returns the refusals counted since the last call.
func (l *load) takeRefusals() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.refusals
	l.refusals = nil
	return r
}

// read sends reads requests a second through HAProxy, one at a time, in turn: the head, a
// sender's pending and latest balance, a token balance by eth_call on pending, and the last
// ten blocks' logs of the pool.
func (l *load) read(ctx context.Context, reads int) {
	if reads <= 0 {
		return
	}
	tick := time.NewTicker(time.Second / time.Duration(reads))
	defer tick.Stop()
	tokenA, _, pool := l.mix.Addresses()
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		addr := l.addrs[n%len(l.addrs)]
		var err error
		switch n % 5 {
		case 0:
			var h uint64
			if h, err = l.lbStd.blockNumber(); err == nil {
				l.head.Store(h)
			}
		case 1:
			err = l.lbPre.call(nil, "eth_getBalance", addr, "pending")
		case 2:
			err = l.lbStd.call(nil, "eth_getBalance", addr, "latest")
		case 3:
			data := append(hexutil.MustDecode("0x70a08231"), common.LeftPadBytes(addr.Bytes(), 32)...) // balanceOf(address)
			err = l.lbPre.call(nil, "eth_call", map[string]any{"to": tokenA, "data": hexutil.Bytes(data)}, "pending")
		case 4:
			from := max(l.head.Load(), 10) - 10
			err = l.lbStd.call(nil, "eth_getLogs", map[string]any{"fromBlock": hexutil.Uint64(from), "toBlock": "latest", "address": pool})
		}
		if err != nil {
			l.readFailed.Add(1)
			l.note("read: " + err.Error())
		} else {
			l.readOK.Add(1)
		}
	}
}
