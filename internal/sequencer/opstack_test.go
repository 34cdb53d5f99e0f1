package sequencer_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/binary"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/sequencer"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// opNode is an OP Stack dev chain driven by hand: chain, block in progress, pool, sequencer.
type opNode struct {
	chain *chain.Chain
	pre   *preconf.Preconf
	pool  *txpool.Pool
	seq   *sequencer.Sequencer
	keys  []*ecdsa.PrivateKey
	snaps []*preconf.Snapshot // every published pre-confirmation, in order
	now   time.Time
}

// newOPNode opens an OP Stack chain whose genesis funds senders keys (gasLimit 0: Base's
// gas limit) and starts its sequencer in manual mode.
func newOPNode(t testing.TB, gasLimit uint64, senders int, options ...func(*sequencer.Config)) *opNode {
	t.Helper()
	n := &opNode{now: time.Unix(1_800_000_000, 0)}
	var funded []common.Address
	for i := range senders {
		key, _ := crypto.ToECDSA(crypto.Keccak256(binary.BigEndian.AppendUint32(nil, uint32(i+1))))
		n.keys = append(n.keys, key)
		funded = append(funded, crypto.PubkeyToAddress(key.PublicKey))
	}
	g := oprollup.DevGenesis(1337, funded, new(big.Int).Mul(big.NewInt(1e6), big.NewInt(params.Ether)))
	if gasLimit != 0 {
		g.GasLimit = gasLimit
	}
	c, err := chain.Open(chain.Config{Genesis: g})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	n.chain, n.pre, n.pool = c, preconf.New(c), txpool.New(c.Config(), txpool.Config{})
	n.pre.OnSnapshot(func(s *preconf.Snapshot) { n.snaps = append(n.snaps, s) })
	cfg := sequencer.Config{L1: &oprollup.DevL1{GenesisTime: g.Timestamp}, Now: func() time.Time { return n.now }}
	for _, o := range options {
		o(&cfg)
	}
	n.seq = sequencer.New(cfg, c, n.pre, n.pool)
	if err := n.seq.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.seq.Close)
	return n
}

// send signs and pools a dynamic-fee transaction from key i.
func (n *opNode) send(t testing.TB, i int, nonce uint64, to *common.Address, value *big.Int, gas uint64, data []byte) *types.Transaction {
	t.Helper()
	cfg := n.chain.Config()
	tx, err := types.SignNewTx(n.keys[i], types.LatestSigner(cfg), &types.DynamicFeeTx{
		ChainID: cfg.ChainID, Nonce: nonce, To: to, Value: value, Gas: gas, Data: data,
		GasFeeCap: big.NewInt(params.GWei), GasTipCap: big.NewInt(1000 + int64(i)),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.pool.Add(tx, n.view()); err != nil {
		t.Fatalf("pool: %v", err)
	}
	return tx
}

// view is the block in progress as the pool validates against it.
func (n *opNode) view() txpool.View {
	snap := n.pre.Current()
	return txpool.StateView(n.chain.Config(), snap.Header(), snap.ReadState)
}

// Runtime code used below: a log emitter (LOG1 of the call's first word), a reverter and a
// store (SSTORE slot 0 = calldata word 0).
var (
	emitterInit  = initCode(common.FromHex("600035600052600160206000a100")) // LOG1 of the calldata word, topic 1
	reverterInit = initCode(common.FromHex("60006000fd"))
	storeInit    = initCode(common.FromHex("60003560005500"))
)

// initCode returns init code deploying runtime (at most 255 bytes).
func initCode(runtime []byte) []byte {
	n := byte(len(runtime))
	return append([]byte{0x60, n, 0x60, 0x0c, 0x60, 0x00, 0x39, 0x60, n, 0x60, 0x00, 0xf3}, runtime...)
}

// TestOPDifferential builds blocks of transfers, deployments, calls with logs, reverts and
// deposits (minting, creating, failing) over several pre-confirmations each, and checks every
// pre-confirmation and every sealed block against op-geth's own state processor run on the
// parent state: the same state root, receipts root, bloom, gas, DA footprint and withdrawals
// root (ValidateBody, ValidateState), and receipts equal to flashrpc's field for field.
func TestOPDifferential(t *testing.T) {
	ctx := context.Background()
	n := newOPNode(t, 0, 4)
	bc := n.chain.Context().(*core.BlockChain)
	cfg := n.chain.Config()
	addr := func(i int) common.Address { return crypto.PubkeyToAddress(n.keys[i].PublicKey) }
	nonces := make([]uint64, len(n.keys))
	next := func(i int) uint64 { nonces[i]++; return nonces[i] - 1 }
	emitter, reverter, store := crypto.CreateAddress(addr(0), 0), crypto.CreateAddress(addr(0), 1), crypto.CreateAddress(addr(0), 2)
	var announced []chain.HeadEvent // what the chain tells its listeners at every seal
	n.chain.OnHead(func(ev chain.HeadEvent) { announced = append(announced, ev) })
	word := func(v int64) []byte { return common.BigToHash(big.NewInt(v)).Bytes() }

	for block := range 6 {
		switch block {
		case 0:
			n.send(t, 0, next(0), nil, nil, 200_000, emitterInit)
			n.send(t, 0, next(0), nil, nil, 200_000, reverterInit)
			n.send(t, 0, next(0), nil, nil, 200_000, storeInit)
		default:
			for i := range n.keys {
				to := common.Address{0xee, byte(i), byte(block)}
				n.send(t, i, next(i), &to, big.NewInt(int64(1000*block+i)), params.TxGas, nil)
			}
			n.send(t, 1, next(1), &emitter, nil, 60_000, word(int64(block)))
			n.send(t, 2, next(2), &reverter, big.NewInt(5), 60_000, bytes.Repeat([]byte{7}, 200))
			n.send(t, 3, next(3), &store, nil, 60_000, word(int64(block)+1))
		}
		n.preconfirm(t)
		// A second pre-confirmation in the same block, then deposits for the next block.
		to := common.Address{0xdd, byte(block)}
		n.send(t, 1, next(1), &to, big.NewInt(1), 30_000, []byte("data"))
		if block > 0 {
			// The store's slot, set by the first pre-confirmation, cleared in the second and
			// set again in a third: each assembly starts from the tries of the ones before.
			n.send(t, 3, next(3), &store, nil, 60_000, word(0))
			n.preconfirm(t)
			n.send(t, 3, next(3), &store, nil, 60_000, word(int64(block)+7))
		}
		n.preconfirm(t)
		for _, d := range []oprollup.Deposit{
			{From: common.Address{0xd0, byte(block)}, To: &to, Mint: big.NewInt(1e18), Value: big.NewInt(1e17), Gas: 50_000},
			{From: common.Address{0xd1, byte(block)}, Mint: big.NewInt(5), Gas: 300_000, Data: emitterInit}, // creation
			{From: common.Address{0xd2, byte(block)}, To: &emitter, Gas: 100_000, Data: word(99)},           // logs
			{From: common.Address{0xd3, byte(block)}, To: &to, Mint: big.NewInt(1), Value: big.NewInt(2), Gas: 50_000},
		} {
			if _, err := n.seq.Deposit(d); err != nil {
				t.Fatal(err)
			}
		}
		n.now = n.now.Add(5 * time.Second) // the L1 origin advances every 12 s
		if _, err := n.seq.Seal(ctx); err != nil {
			t.Fatalf("seal block %d: %v", block+1, err)
		}
	}
	if n.chain.Head().Number.Uint64() != 6 {
		t.Fatalf("head %d", n.chain.Head().Number)
	}
	var checked, userTxs, deposits int
	for _, snap := range n.snaps {
		if snap.Number() > 6 {
			continue // the block still in progress
		}
		checkWithStateProcessor(t, bc, n.chain, cfg, snap)
		checked++
		if last := n.lastSnap(snap.Number()); last == snap {
			sealed := n.chain.BlockByNumber(snap.Number())
			if sealed.Hash() != snap.Block.Hash() {
				t.Fatalf("block %d: sealed %s, last pre-confirmation %s", snap.Number(), sealed.Hash(), snap.Block.Hash())
			}
			compareReceipts(t, cfg, snap.Block, n.chain.Receipts(sealed.Hash()), snap.Receipts, "sealed vs pre-confirmed")
			for _, tx := range sealed.Transactions() {
				if tx.IsDepositTx() {
					deposits++
				} else {
					userTxs++
				}
			}
		}
	}
	// The receipts announced with a sealed block (derived from the written ones, not read
	// back) are the stored ones.
	if len(announced) != 6 {
		t.Fatalf("%d blocks announced, want 6", len(announced))
	}
	announcedLogs := 0
	for _, ev := range announced {
		compareReceipts(t, cfg, ev.Block, n.chain.Receipts(ev.Block.Hash()), ev.Receipts, "stored vs announced")
		for _, r := range ev.Receipts {
			if r.BlockHash != ev.Block.Hash() {
				t.Fatalf("block %d: an announced receipt has block hash %s", ev.Block.NumberU64(), r.BlockHash)
			}
			for _, l := range r.Logs {
				if l.BlockHash != ev.Block.Hash() {
					t.Fatalf("block %d: an announced log has block hash %s", ev.Block.NumberU64(), l.BlockHash)
				}
				announcedLogs++
			}
		}
	}
	if announcedLogs < 10 {
		t.Fatalf("%d logs announced: the emitter's calls and deposits did not log", announcedLogs)
	}
	if checked < 12 || userTxs < 30 || deposits < 25 {
		t.Fatalf("checked %d pre-confirmations, %d user transactions, %d deposits: too few", checked, userTxs, deposits)
	}
}

func (n *opNode) preconfirm(t testing.TB) {
	t.Helper()
	if _, err := n.seq.Preconfirm(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n.pool.Len() != 0 {
		t.Fatalf("%d transactions left in the pool", n.pool.Len())
	}
}

// lastSnap returns the last pre-confirmation of block number.
func (n *opNode) lastSnap(number uint64) *preconf.Snapshot {
	var last *preconf.Snapshot
	for _, s := range n.snaps {
		if s.Number() == number {
			last = s
		}
	}
	return last
}

// checkWithStateProcessor runs op-geth's state processor on snap's partial block, on its
// parent's state, and compares the outcome with the snapshot.
func checkWithStateProcessor(t *testing.T, bc *core.BlockChain, c *chain.Chain, cfg *params.ChainConfig, snap *preconf.Snapshot) {
	t.Helper()
	block := snap.Block
	parent, err := c.StateAt(snap.Parent)
	if err != nil {
		t.Fatal(err)
	}
	if err := bc.Validator().ValidateBody(block); err != nil && snap.Block.Hash() != c.CanonicalHash(block.NumberU64()) {
		t.Fatalf("block %d pre-confirmation %d: ValidateBody: %v", block.NumberU64(), snap.Index, err)
	}
	res, err := core.NewStateProcessor(bc).Process(context.Background(), block, parent, oprollup.VMConfig(cfg, vm.Config{}))
	if err != nil {
		t.Fatalf("block %d pre-confirmation %d: op-geth's processor: %v", block.NumberU64(), snap.Index, err)
	}
	if err := bc.Validator().ValidateState(block, parent, res, false); err != nil {
		t.Fatalf("block %d pre-confirmation %d: ValidateState: %v", block.NumberU64(), snap.Index, err)
	}
	receipts := types.Receipts(res.Receipts)
	if err := receipts.DeriveFields(cfg, block.Hash(), block.NumberU64(), block.Time(), block.BaseFee(), nil, block.Transactions()); err != nil {
		t.Fatal(err)
	}
	compareReceipts(t, cfg, block, receipts, snap.Receipts, "op-geth vs pre-confirmed")
}

// compareReceipts compares receipts as the API writes them, with the block hash (which a
// pre-confirmed receipt does not know) zeroed in both.
func compareReceipts(t *testing.T, cfg *params.ChainConfig, block *types.Block, want, got types.Receipts, what string) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s, block %d: %d receipts vs %d", what, block.NumberU64(), len(want), len(got))
	}
	signer := types.MakeSigner(cfg, block.Number(), block.Time())
	for i, tx := range block.Transactions() {
		a := ethjson.AppendReceipt(nil, withoutBlockHash(want[i]), tx, common.Hash{}, block.NumberU64(), signer, i, cfg)
		b := ethjson.AppendReceipt(nil, withoutBlockHash(got[i]), tx, common.Hash{}, block.NumberU64(), signer, i, cfg)
		if !bytes.Equal(a, b) {
			t.Fatalf("%s, block %d transaction %d:\n%s\n%s", what, block.NumberU64(), i, a, b)
		}
	}
}

func withoutBlockHash(r *types.Receipt) *types.Receipt {
	cp := *r
	cp.Logs = make([]*types.Log, len(r.Logs))
	for i, l := range r.Logs {
		lc := *l
		lc.BlockHash = common.Hash{}
		cp.Logs[i] = &lc
	}
	return &cp
}

// TestSealWithAnnouncesL1Fields: a block sealed with another order than was pre-confirmed
// (dev_seal with a transaction list: the block is rebuilt, preconf's Dev.SealWith) is written
// and announced with receipts that carry their L1 fields, as the stored ones.
func TestSealWithAnnouncesL1Fields(t *testing.T) {
	n := newOPNode(t, 0, 2)
	var announced []chain.HeadEvent
	n.chain.OnHead(func(ev chain.HeadEvent) { announced = append(announced, ev) })
	to := common.Address{0xee}
	a := n.send(t, 0, 0, &to, big.NewInt(1), params.TxGas, nil) // tip 1000
	b := n.send(t, 1, 0, &to, big.NewInt(2), params.TxGas, nil) // tip 1001: pre-confirmed first
	n.preconfirm(t)
	if _, err := n.seq.SealSelected(context.Background(), []common.Hash{a.Hash(), b.Hash()}); err != nil {
		t.Fatal(err)
	}
	if len(announced) != 1 {
		t.Fatalf("%d blocks announced, want 1", len(announced))
	}
	ev := announced[0]
	txs := ev.Block.Transactions()
	if len(txs) != 3 || txs[1].Hash() != a.Hash() || txs[2].Hash() != b.Hash() {
		t.Fatalf("sealed %d transactions, not the L1 attributes then a, b: the block was not rebuilt", len(txs))
	}
	compareReceipts(t, n.chain.Config(), ev.Block, n.chain.Receipts(ev.Block.Hash()), ev.Receipts, "stored vs announced (rebuilt)")
	for i, r := range ev.Receipts[1:] {
		if r.L1Fee == nil || r.L1Fee.Sign() == 0 {
			t.Fatalf("user receipt %d announced without its L1 fee", i)
		}
	}
}
