package txpool

import (
	"crypto/ecdsa"
	"errors"
	"math/big"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
)

var testConfig = params.AllDevChainProtocolChanges

// testState is the state a test pool validates against: nonces per account, one balance for
// all unless set.
type testState struct {
	mu       sync.Mutex
	nonces   map[common.Address]uint64
	balances map[common.Address]*uint256.Int
	header   *types.Header
}

func newTestState() *testState {
	return &testState{
		nonces:   map[common.Address]uint64{},
		balances: map[common.Address]*uint256.Int{},
		header:   &types.Header{Number: big.NewInt(1), GasLimit: 30_000_000, BaseFee: big.NewInt(params.GWei)},
	}
}

func (s *testState) setNonce(a common.Address, n uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nonces[a] = n
}

func (s *testState) setBalance(a common.Address, b *uint256.Int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.balances[a] = b
}

func (s *testState) view() View {
	return View{
		Header: s.header,
		Nonce: func(a common.Address) uint64 {
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.nonces[a]
		},
		Balance: func(a common.Address) *uint256.Int {
			s.mu.Lock()
			defer s.mu.Unlock()
			if b, ok := s.balances[a]; ok {
				return b.Clone()
			}
			return new(uint256.Int).Mul(uint256.NewInt(1000), uint256.NewInt(params.Ether))
		},
	}
}

// testKey returns a deterministic key and its address.
func testKey(i int) (*ecdsa.PrivateKey, common.Address) {
	key, err := crypto.ToECDSA(crypto.Keccak256(big.NewInt(int64(i + 1)).Bytes()))
	if err != nil {
		panic(err)
	}
	return key, crypto.PubkeyToAddress(key.PublicKey)
}

// signed returns a transfer with this nonce and tip (gwei), a fee cap of 100 gwei and size
// bytes of call data (gas to cover it).
func signed(t testing.TB, key *ecdsa.PrivateKey, nonce, tipGwei uint64, size int) *types.Transaction {
	t.Helper()
	return signedFee(t, key, nonce, tipGwei, 100, size)
}

func signedFee(t testing.TB, key *ecdsa.PrivateKey, nonce, tipGwei, capGwei uint64, size int) *types.Transaction {
	t.Helper()
	to := common.Address{0xaa}
	tx, err := types.SignNewTx(key, types.LatestSigner(testConfig), &types.DynamicFeeTx{
		ChainID: testConfig.ChainID, Nonce: nonce, To: &to, Gas: params.TxGas + 40*uint64(size),
		GasFeeCap: new(big.Int).SetUint64(capGwei * params.GWei), GasTipCap: new(big.Int).SetUint64(tipGwei * params.GWei),
		Data: make([]byte, size),
	})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

func mustAdd(t *testing.T, p *Pool, s *testState, txs ...*types.Transaction) {
	t.Helper()
	for _, tx := range txs {
		if err := p.Add(tx, s.view()); err != nil {
			t.Fatalf("add nonce %d: %v", tx.Nonce(), err)
		}
	}
}

// nonces returns the nonces of addr's executable and queued transactions.
func nonces(p *Pool, addr common.Address) (pending, queued []uint64) {
	pt, qt := p.ContentFrom(addr)
	for _, tx := range pt {
		pending = append(pending, tx.Nonce())
	}
	for _, tx := range qt {
		queued = append(queued, tx.Nonce())
	}
	return pending, queued
}

func equalNonces(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func wantNonces(t *testing.T, p *Pool, addr common.Address, pending, queued []uint64) {
	t.Helper()
	gp, gq := nonces(p, addr)
	if !equalNonces(gp, pending) || !equalNonces(gq, queued) {
		t.Fatalf("%s: pending %v queued %v, want pending %v queued %v", addr.Hex()[:8], gp, gq, pending, queued)
	}
}

// checkAccounting recomputes the slot counters from the lists.
func checkAccounting(t *testing.T, p *Pool) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	var pending, queued uint64
	n := 0
	for addr, acct := range p.accounts {
		if acct.empty() {
			t.Errorf("%s: empty account kept", addr)
		}
		var ps, qs uint64
		for _, tx := range acct.pending {
			ps += numSlots(tx)
		}
		for _, tx := range acct.queued {
			qs += numSlots(tx)
		}
		if ps != acct.pendingSlots || qs != acct.queuedSlots {
			t.Errorf("%s: slots %d/%d, counted %d/%d", addr, acct.pendingSlots, acct.queuedSlots, ps, qs)
		}
		if len(acct.queued) > 0 && acct.beat.IsZero() {
			t.Errorf("%s: queued without heartbeat", addr)
		}
		pending += ps
		queued += qs
		n += len(acct.pending) + len(acct.queued)
	}
	if pending != p.pending || queued != p.queued || n != len(p.all) {
		t.Errorf("pool slots %d/%d txs %d, counted %d/%d txs %d", p.pending, p.queued, len(p.all), pending, queued, n)
	}
	if p.pending > p.cfg.GlobalSlots || p.queued > p.cfg.GlobalQueue {
		t.Errorf("slots %d/%d over the limits %d/%d", p.pending, p.queued, p.cfg.GlobalSlots, p.cfg.GlobalQueue)
	}
}

func TestPendingAndQueued(t *testing.T) {
	t.Parallel()
	s := newTestState()
	p := New(testConfig, Config{})
	key, addr := testKey(0)
	s.setNonce(addr, 3)

	mustAdd(t, p, s, signed(t, key, 3, 1, 0))
	wantNonces(t, p, addr, []uint64{3}, nil)
	mustAdd(t, p, s, signed(t, key, 5, 1, 0), signed(t, key, 7, 1, 0))
	wantNonces(t, p, addr, []uint64{3}, []uint64{5, 7})
	if pending, queued := p.Stats(); pending != 1 || queued != 2 {
		t.Fatalf("Stats = %d, %d; want 1, 2", pending, queued)
	}
	if pending, queued := p.Content(); len(pending[addr]) != 1 || len(queued[addr]) != 2 || len(pending)+len(queued) != 2 {
		t.Fatalf("Content = %v, %v", pending, queued)
	}
	// Filling the gap promotes what follows it, up to the next gap.
	mustAdd(t, p, s, signed(t, key, 4, 1, 0))
	wantNonces(t, p, addr, []uint64{3, 4, 5}, []uint64{7})
	if got := p.Pending()[addr]; len(got) != 3 {
		t.Fatalf("Pending: %d transactions, want 3", len(got))
	}
	// Too low: the state's nonce was used.
	if err := p.Add(signed(t, key, 2, 1, 0), s.view()); !errors.Is(err, core.ErrNonceTooLow) {
		t.Fatalf("nonce 2: %v, want nonce too low", err)
	}
	if err := p.Add(signed(t, key, 5, 1, 0), s.view()); !errors.Is(err, txpool.ErrAlreadyKnown) {
		t.Fatalf("again: %v, want already known", err)
	}
	checkAccounting(t, p)
}

func TestReplacement(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		nonce  uint64 // 0 is executable, 2 queued
		tip    uint64
		cap    uint64
		wantOK bool
	}{
		{"executable, both caps +10%", 0, 11, 110, true},
		{"executable, tip +5%", 0, 10, 110, false},
		{"executable, fee cap +5%", 0, 11, 105, false},
		{"queued, both caps +10%", 2, 11, 110, true},
		{"queued, same price", 2, 10, 100, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newTestState()
			p := New(testConfig, Config{})
			key, addr := testKey(1)
			old := signedFee(t, key, c.nonce, 10, 100, 0)
			mustAdd(t, p, s, old)
			err := p.Add(signedFee(t, key, c.nonce, c.tip, c.cap, 1), s.view())
			switch {
			case c.wantOK && err != nil:
				t.Fatalf("replacement refused: %v", err)
			case !c.wantOK && !errors.Is(err, txpool.ErrReplaceUnderpriced):
				t.Fatalf("got %v, want replacement transaction underpriced", err)
			}
			if (p.Get(old.Hash()) == nil) != c.wantOK || p.Len() != 1 {
				t.Fatalf("old kept: %v, pool size %d", p.Get(old.Hash()) != nil, p.Len())
			}
			if c.nonce == 0 {
				wantNonces(t, p, addr, []uint64{0}, nil)
			} else {
				wantNonces(t, p, addr, nil, []uint64{2})
			}
			checkAccounting(t, p)
		})
	}
}

func TestSlots(t *testing.T) {
	t.Parallel()
	cases := []struct {
		size  int
		slots uint64
	}{{0, 1}, {SlotSize - 200, 1}, {SlotSize, 2}, {3 * SlotSize, 4}, {120_000, 4}}
	for _, c := range cases {
		key, _ := testKey(2)
		tx := signed(t, key, 0, 1, c.size)
		if got := numSlots(tx); got != c.slots {
			t.Errorf("size %d (tx %d bytes): %d slots, want %d", c.size, tx.Size(), got, c.slots)
		}
	}
	s := newTestState()
	p := New(testConfig, Config{})
	key, _ := testKey(3)
	mustAdd(t, p, s, signed(t, key, 0, 1, 120_000), signed(t, key, 2, 1, 40_000))
	if pending, queued := p.Slots(); pending != 4 || queued != 2 {
		t.Fatalf("Slots = %d, %d; want 4, 2", pending, queued)
	}
	if err := p.Add(signed(t, key, 3, 1, MaxTxSize), s.view()); !errors.Is(err, txpool.ErrOversizedData) {
		t.Fatalf("over %d bytes: %v, want oversized data", MaxTxSize, err)
	}
}

// TestAccountQueue: one account holds at most AccountQueue queued slots; the lowest nonces
// are kept, as in go-ethereum.
func TestAccountQueue(t *testing.T) {
	t.Parallel()
	s := newTestState()
	p := New(testConfig, Config{AccountQueue: 4})
	key, addr := testKey(4)
	for n := uint64(3); n <= 6; n++ {
		mustAdd(t, p, s, signed(t, key, n, 1, 0))
	}
	err := p.Add(signed(t, key, 7, 1, 0), s.view())
	if !errors.Is(err, ErrAccountQueueFull) {
		t.Fatalf("fifth queued: %v, want account queue full", err)
	}
	t.Logf("refused with: %v", err)
	// A lower nonce takes the place of the highest one.
	mustAdd(t, p, s, signed(t, key, 2, 1, 0))
	wantNonces(t, p, addr, nil, []uint64{2, 3, 4, 5})
	// Filling the gap promotes the run.
	mustAdd(t, p, s, signed(t, key, 0, 1, 0), signed(t, key, 1, 1, 0))
	wantNonces(t, p, addr, []uint64{0, 1, 2, 3, 4, 5}, nil)
	checkAccounting(t, p)
}

// TestFutureNonceFlood is the first attack of the issue: one sender placing 10,000
// future-nonce transactions left every other sender "out of capacity" for ever. Now it holds
// at most AccountQueue slots, and others are accepted, executable or queued.
func TestFutureNonceFlood(t *testing.T) {
	t.Parallel()
	s := newTestState()
	p := New(testConfig, Config{})
	flooder, flooderAddr := testKey(5)
	refused := 0
	for n := uint64(1); n <= 10_000; n++ {
		err := p.Add(signed(t, flooder, n, 1, 0), s.view())
		switch {
		case errors.Is(err, ErrAccountQueueFull):
			refused++
		case err != nil:
			t.Fatalf("nonce %d: %v", n, err)
		}
	}
	if want := 10_000 - int(DefaultConfig.AccountQueue); refused != want {
		t.Fatalf("%d refused, want %d", refused, want)
	}
	_, queued := nonces(p, flooderAddr)
	if len(queued) != int(DefaultConfig.AccountQueue) {
		t.Fatalf("flooder has %d queued", len(queued))
	}
	other, otherAddr := testKey(6)
	mustAdd(t, p, s, signed(t, other, 0, 1, 0), signed(t, other, 2, 1, 0))
	wantNonces(t, p, otherAddr, []uint64{0}, []uint64{2})
	checkAccounting(t, p)
}

// TestExecutableFlood: one sender filling every executable slot loses its newest transactions
// to other senders, down to its guarantee; it cannot push others out.
func TestExecutableFlood(t *testing.T) {
	t.Parallel()
	s := newTestState()
	p := New(testConfig, Config{GlobalSlots: 32, AccountSlots: 4})
	flooder, flooderAddr := testKey(7)
	for n := uint64(0); n < 32; n++ {
		mustAdd(t, p, s, signed(t, flooder, n, 5, 0))
	}
	err := p.Add(signed(t, flooder, 32, 50, 0), s.view())
	if !errors.Is(err, ErrPoolFull) {
		t.Fatalf("flooder's 33rd: %v, want txpool is full", err)
	}
	t.Logf("refused with: %v", err)
	// Others get in at a lower price than the flooder's, each taking its newest slot.
	for i := range 6 {
		key, _ := testKey(100 + i)
		for n := uint64(0); n < 4; n++ {
			mustAdd(t, p, s, signed(t, key, n, 1, 0))
		}
	}
	pending, _ := nonces(p, flooderAddr)
	if len(pending) != 8 || pending[7] != 7 {
		t.Fatalf("flooder keeps %v, want its 8 lowest nonces", pending)
	}
	checkAccounting(t, p)
}

// TestUnderpricedWhenFull: when every executable slot is taken by accounts within their
// guarantee, a new transaction must pay more than the cheapest to get in; a refused one
// changes nothing.
func TestUnderpricedWhenFull(t *testing.T) {
	t.Parallel()
	s := newTestState()
	p := New(testConfig, Config{GlobalSlots: 8, AccountSlots: 4})
	var cheapAddr common.Address
	for i := range 8 {
		key, addr := testKey(200 + i)
		tip := uint64(2)
		if i == 3 {
			tip, cheapAddr = 1, addr
		}
		mustAdd(t, p, s, signed(t, key, 0, tip, 0))
	}
	key, addr := testKey(300)
	err := p.Add(signed(t, key, 0, 1, 0), s.view())
	if !errors.Is(err, txpool.ErrUnderpriced) {
		t.Fatalf("same price as the cheapest: %v, want underpriced", err)
	}
	t.Logf("refused with: %v", err)
	if p.Len() != 8 {
		t.Fatalf("a refused transaction changed the pool: %d transactions", p.Len())
	}
	mustAdd(t, p, s, signed(t, key, 0, 3, 0))
	wantNonces(t, p, cheapAddr, nil, nil)
	wantNonces(t, p, addr, []uint64{0}, nil)
	checkAccounting(t, p)
}

// TestGlobalQueue: when the queued slots are full, the accounts with the oldest heartbeat
// lose their highest nonces first.
func TestGlobalQueue(t *testing.T) {
	t.Parallel()
	clock := time.Unix(1_000_000, 0)
	s := newTestState()
	p := New(testConfig, Config{GlobalQueue: 6, Now: func() time.Time { return clock }})
	var addrs []common.Address
	for i := range 3 {
		key, addr := testKey(400 + i)
		addrs = append(addrs, addr)
		mustAdd(t, p, s, signed(t, key, 5, 1, 0), signed(t, key, 6, 1, 0))
		clock = clock.Add(time.Minute)
	}
	key, addr := testKey(500)
	mustAdd(t, p, s, signed(t, key, 2, 1, 0), signed(t, key, 3, 1, 0), signed(t, key, 4, 1, 0))
	wantNonces(t, p, addrs[0], nil, nil)
	wantNonces(t, p, addrs[1], nil, []uint64{5})
	wantNonces(t, p, addrs[2], nil, []uint64{5, 6})
	wantNonces(t, p, addr, nil, []uint64{2, 3, 4})
	checkAccounting(t, p)
}

// TestLifetime: queued transactions expire Lifetime after their account's heartbeat, which
// promotion renews.
func TestLifetime(t *testing.T) {
	t.Parallel()
	start := time.Unix(1_000_000, 0)
	clock := start
	s := newTestState()
	p := New(testConfig, Config{Lifetime: time.Hour, Now: func() time.Time { return clock }})
	stale, staleAddr := testKey(600)
	live, liveAddr := testKey(601)
	mustAdd(t, p, s, signed(t, stale, 2, 1, 0))
	mustAdd(t, p, s, signed(t, live, 2, 1, 0), signed(t, live, 4, 1, 0))

	clock = start.Add(50 * time.Minute)
	mustAdd(t, p, s, signed(t, live, 0, 1, 0))
	mustAdd(t, p, s, signed(t, live, 1, 1, 0)) // promotes 2 and renews the heartbeat
	p.Reset(s.view())
	wantNonces(t, p, staleAddr, nil, []uint64{2})

	clock = start.Add(time.Hour + time.Second)
	p.Reset(s.view())
	wantNonces(t, p, staleAddr, nil, nil)
	wantNonces(t, p, liveAddr, []uint64{0, 1, 2}, []uint64{4})

	clock = start.Add(50*time.Minute + time.Hour + time.Second)
	p.Reset(s.view())
	wantNonces(t, p, liveAddr, []uint64{0, 1, 2}, nil)
	checkAccounting(t, p)
}

// TestReset follows the state: used nonces leave, unpayable transactions leave and queue the
// sender's later ones again, a run that no longer starts at the nonce is queued, and queued
// transactions the new nonce reaches become executable.
func TestReset(t *testing.T) {
	t.Parallel()
	s := newTestState()
	p := New(testConfig, Config{})
	a, addrA := testKey(700)
	b, addrB := testKey(701)
	c, addrC := testKey(702)
	mustAdd(t, p, s, signed(t, a, 0, 1, 0), signed(t, a, 1, 1, 0), signed(t, a, 2, 1, 0), signed(t, a, 4, 1, 0))
	mustAdd(t, p, s, signed(t, b, 0, 1, 0), signed(t, b, 1, 1, 0), signed(t, b, 2, 1, 0))
	mustAdd(t, p, s, signed(t, c, 0, 1, 0), signed(t, c, 2, 1, 0))

	// A's first two were pre-confirmed elsewhere, and its nonce 3 too.
	s.setNonce(addrA, 4)
	// B can no longer pay for one transaction (each costs 0.0021 ETH at most).
	s.setBalance(addrB, uint256.NewInt(params.Ether/1000))
	// C's nonce moved past its gap.
	s.setNonce(addrC, 2)
	p.Reset(s.view())
	wantNonces(t, p, addrA, []uint64{4}, nil)
	wantNonces(t, p, addrB, nil, nil)
	wantNonces(t, p, addrC, []uint64{2}, nil)

	// Removing an executable transaction from the middle queues the ones after it at the next
	// Reset; removing the first of the run, then resetting to a state whose nonce moved past
	// it, leaves the rest executable.
	_, addrD := testKey(703)
	d, _ := testKey(703)
	txs := []*types.Transaction{signed(t, d, 0, 1, 0), signed(t, d, 1, 1, 0), signed(t, d, 2, 1, 0)}
	mustAdd(t, p, s, txs...)
	p.Remove(txs[1])
	p.Reset(s.view())
	wantNonces(t, p, addrD, []uint64{0}, []uint64{2})
	p.Remove(txs[0])
	s.setNonce(addrD, 1)
	p.Reset(s.view())
	wantNonces(t, p, addrD, nil, []uint64{2})
	checkAccounting(t, p)
}

// TestStaleView: an Add validated against a view older than the pool's last Reset neither
// queues executable transactions again nor accepts used nonces.
func TestStaleView(t *testing.T) {
	t.Parallel()
	s := newTestState()
	p := New(testConfig, Config{})
	key, addr := testKey(800)
	old := s.view()
	mustAdd(t, p, s, signed(t, key, 0, 1, 0), signed(t, key, 1, 1, 0), signed(t, key, 2, 1, 0))
	p.Remove(p.Pending()[addr][0])
	s.setNonce(addr, 1)
	p.Reset(s.view())
	if err := p.Add(signed(t, key, 3, 1, 0), old); err != nil {
		t.Fatal(err)
	}
	wantNonces(t, p, addr, []uint64{1, 2, 3}, nil)
	if err := p.Add(signed(t, key, 0, 2, 0), old); !errors.Is(err, core.ErrNonceTooLow) {
		t.Fatalf("used nonce with a stale view: %v, want nonce too low", err)
	}
	checkAccounting(t, p)
}

// TestRemoveUsedThenStaleAdd: the sequencer drops what it pre-confirmed (RemoveUsed) before it
// resets the pool to the new state, and an Add validated against the view from before the
// pre-confirmation can take the pool's lock in between. That Add finds the sender's run still
// starting at the sender's nonce: nothing is queued again, nothing is dropped over the
// account's queue limit, and the new transaction is executable.
func TestRemoveUsedThenStaleAdd(t *testing.T) {
	t.Parallel()
	s := newTestState()
	p := New(testConfig, Config{})
	key, addr := testKey(900)
	before := s.view() // what a send read while the sequencer was building
	const sent = 80    // more than Config.AccountQueue behind what the block took
	var txs []*types.Transaction
	for n := range uint64(sent) {
		txs = append(txs, signed(t, key, n, 1, 0))
	}
	mustAdd(t, p, s, txs...)
	p.RemoveUsed(txs[:10]...) // pre-confirmed; the pool's Reset to the new state comes next
	if err := p.Add(signed(t, key, sent, 1, 0), before); err != nil {
		t.Fatalf("add nonce %d against the view from before the pre-confirmation: %v", sent, err)
	}
	var want []uint64
	for n := uint64(10); n <= sent; n++ {
		want = append(want, n)
	}
	wantNonces(t, p, addr, want, nil)
	s.setNonce(addr, 10)
	p.Reset(s.view())
	wantNonces(t, p, addr, want, nil)

	// A used nonce that is not the run's next (another transaction took it) drops what is
	// below it too, and the whole account once nothing is left.
	p.RemoveUsed(signed(t, key, sent, 2, 0))
	wantNonces(t, p, addr, nil, nil)
	if n := p.Len(); n != 0 {
		t.Fatalf("%d transactions pooled after their nonces were used, want 0", n)
	}
	checkAccounting(t, p)
}

// checkOrder checks every account's lists: nonces ascending and unique, queued above pending,
// all in the lookup; and the executable run starts at the account's nonce without a gap, except
// for the accounts in gapped (a transaction left out of order and no Reset has come since:
// Remove leaves the rest in place until then).
func checkOrder(t *testing.T, p *Pool, gapped map[common.Address]bool) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for addr, acct := range p.accounts {
		all := append(append([]*types.Transaction(nil), acct.pending...), acct.queued...)
		for i, tx := range all {
			if p.all[tx.Hash()] != tx {
				t.Fatalf("%s: nonce %d missing from the lookup", addr, tx.Nonce())
			}
			if i > 0 && tx.Nonce() <= all[i-1].Nonce() {
				t.Fatalf("%s: nonces out of order: %d after %d", addr, tx.Nonce(), all[i-1].Nonce())
			}
			if tx.Nonce() < acct.nonce {
				t.Fatalf("%s: nonce %d below the account's %d", addr, tx.Nonce(), acct.nonce)
			}
		}
		if !gapped[addr] {
			for i, tx := range acct.pending {
				if tx.Nonce() != acct.nonce+uint64(i) {
					t.Fatalf("%s: executable nonce %d at position %d, account nonce %d", addr, tx.Nonce(), i, acct.nonce)
				}
			}
		}
		if acct.queuedSlots > p.cfg.AccountQueue {
			t.Fatalf("%s: %d queued slots, over %d", addr, acct.queuedSlots, p.cfg.AccountQueue)
		}
	}
}

// TestRandomOperations runs a seeded random mix of adds (executable, future, replacements,
// large), removals, state changes and clock moves against small limits, and checks the pool's
// accounting and order after each step.
func TestRandomOperations(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	clock := time.Unix(1_000_000, 0)
	s := newTestState()
	p := New(testConfig, Config{AccountSlots: 3, GlobalSlots: 12, AccountQueue: 4, GlobalQueue: 8, Lifetime: time.Hour, Now: func() time.Time { return clock }})
	const accounts = 6
	var keys []*ecdsa.PrivateKey
	var addrs []common.Address
	for i := range accounts {
		key, addr := testKey(900 + i)
		keys, addrs = append(keys, key), append(addrs, addr)
	}
	sizes := []int{0, 0, 0, 40_000, 120_000}
	accepted := 0
	gapped := map[common.Address]bool{}
	for step := range 1500 {
		i := rng.IntN(accounts)
		switch op := rng.IntN(10); {
		case op < 6: // add a transaction near the account's nonce, sometimes a replacement
			nonce := s.view().Nonce(addrs[i]) + uint64(rng.IntN(8))
			err := p.Add(signed(t, keys[i], nonce, 1+uint64(rng.IntN(30)), sizes[rng.IntN(len(sizes))]), s.view())
			if err == nil {
				accepted++
			}
			checkOrder(t, p, gapped)
		case op < 7: // the sequencer includes some executable transactions
			for addr, txs := range p.Pending() {
				n := rng.IntN(len(txs) + 1)
				p.Remove(txs[:n]...)
				if n > 0 {
					s.setNonce(addr, txs[n-1].Nonce()+1)
				}
			}
			p.Reset(s.view())
			clear(gapped)
			checkOrder(t, p, gapped)
		case op < 8: // a transaction leaves out of order
			if pending, queued := p.ContentFrom(addrs[i]); len(pending)+len(queued) > 0 {
				all := append(pending, queued...)
				p.Remove(all[rng.IntN(len(all))])
			}
			gapped[addrs[i]] = true
			checkOrder(t, p, gapped)
		case op < 9: // the clock moves
			clock = clock.Add(time.Duration(rng.IntN(40)) * time.Minute)
			p.Reset(s.view())
			clear(gapped)
			checkOrder(t, p, gapped)
		default: // the nonce moves on its own (a transaction from elsewhere)
			s.setNonce(addrs[i], s.view().Nonce(addrs[i])+uint64(rng.IntN(3)))
			p.Reset(s.view())
			clear(gapped)
			checkOrder(t, p, gapped)
		}
		checkAccounting(t, p)
		if t.Failed() {
			t.Fatalf("step %d", step)
		}
	}
	t.Logf("%d transactions accepted", accepted)
}
