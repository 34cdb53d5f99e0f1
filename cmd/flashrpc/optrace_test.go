package main

import (
	"context"
	"encoding/json"
	"math/big"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/flashrpc/flashrpc/internal/node"
	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// TestOPStackTraceMatchesOpGeth traces OP Stack blocks: the first (the L1-attributes deposit
// and a deployment, on the genesis state whose L1Block holds no fee parameters yet) and one
// holding the L1-attributes deposit, a
// user deposit (minting, sending value, calling a contract that logs) and ordinary
// transactions, on flashrpc and on op-geth's own node (its eth service and debug API, in
// process) that imported the same blocks from the genesis flashrpc wrote: callTracer,
// prestateTracer (plain and diffMode) and the struct logger, per block and per transaction,
// must be equal. Tracing replays the block with op-geth's L1 cost function on the replayed
// state; had it used the parent's L1Block state (or none), the ordinary transactions' fees,
// hence prestate balances, would differ. The traces must also agree with the receipts: each
// call's gasUsed is the receipt's, and an ordinary sender pays gasUsed × effectiveGasPrice +
// l1Fee + value, and the L1FeeVault gets the block's l1Fees. The block in progress traced on the
// pre-confirmed endpoint before sealing equals the sealed block's trace.
func TestOPStackTraceMatchesOpGeth(t *testing.T) {
	if testing.Short() {
		t.Skip("starts op-geth's node")
	}
	ctx := context.Background()
	dir := t.TempDir()
	tn := startTestNode(t, testOptions(dir))
	chainID := big.NewInt(1337)
	alice, bob := tn.Accounts()[0].Key, tn.Accounts()[1].Key

	// Block 1: a contract that logs; a deposit queued for block 2.
	deploy := signTx(t, alice, chainID, 0, nil, nil, 200_000, logInit)
	if err := tn.pre.SendTransaction(ctx, deploy); err != nil {
		t.Fatal(err)
	}
	tn.preconfirm(t)
	emitter := crypto.CreateAddress(addressOf(alice), 0)
	depositor := common.HexToAddress("0x00000000000000000000000000000000000d3b05")
	var depositHash common.Hash
	if err := tn.preRaw.Call(&depositHash, "dev_deposit", map[string]any{
		"from": depositor, "to": emitter, "mint": hexutil.Big(*big.NewInt(2 * params.Ether)),
		"value": hexutil.Big(*big.NewInt(params.Ether)), "gas": hexutil.Uint64(200_000),
	}); err != nil {
		t.Fatal(err)
	}
	tn.seal(t)

	// Block 2: [L1-attributes deposit, the user deposit, a call with value, a transfer].
	to := common.HexToAddress("0x0000000000000000000000000000000000000abc")
	call := signTx(t, bob, chainID, 0, &emitter, big.NewInt(5), 100_000, []byte("calldata that costs an L1 fee"))
	transfer := signTx(t, alice, chainID, 1, &to, big.NewInt(params.GWei), params.TxGas, nil)
	for _, tx := range []*types.Transaction{call, transfer} {
		if err := tn.pre.SendTransaction(ctx, tx); err != nil {
			t.Fatal(err)
		}
	}
	tn.preconfirm(t)
	callTracer := map[string]any{"tracer": "callTracer", "tracerConfig": map[string]any{"withLog": true}}
	var pendingTrace json.RawMessage
	if err := tn.preRaw.Call(&pendingTrace, "debug_traceBlockByNumber", "pending", callTracer); err != nil {
		t.Fatalf("trace the block in progress: %v", err)
	}
	tn.seal(t)
	block, err := tn.std.BlockByNumber(ctx, big.NewInt(2))
	if err != nil {
		t.Fatal(err)
	}
	txs := block.Transactions()
	if len(txs) != 4 || !txs[0].IsDepositTx() || txs[1].Hash() != depositHash || txs[2].Hash() != call.Hash() || txs[3].Hash() != transfer.Hash() {
		t.Fatalf("block 2 holds %d transactions, want the L1-attributes deposit, the deposit, the call, the transfer", len(txs))
	}

	// op-geth imports flashrpc's blocks on the genesis flashrpc wrote.
	genesis := new(core.Genesis)
	if err := readJSON(filepath.Join(dir, node.GenesisFileName), genesis); err != nil {
		t.Fatal(err)
	}
	var blocks types.Blocks
	for n := int64(1); n <= 2; n++ {
		var raw hexutil.Bytes
		if err := tn.stdRaw.Call(&raw, "debug_getRawBlock", hexutil.EncodeBig(big.NewInt(n))); err != nil {
			t.Fatal(err)
		}
		b := new(types.Block)
		if err := rlp.DecodeBytes(raw, b); err != nil {
			t.Fatalf("block %d: %v", n, err)
		}
		blocks = append(blocks, b)
	}
	e := &diffEnv{url: tn.stdURL, geth: startGethNode(t, genesis, blocks)}

	configs := []map[string]any{
		nil, // the struct logger
		callTracer,
		{"tracer": "prestateTracer"},
		{"tracer": "prestateTracer", "tracerConfig": map[string]any{"diffMode": true}},
	}
	all := append(blocks[0].Transactions(), txs...) // block 1: the L1-attributes deposit, the deployment
	for _, cfg := range configs {
		for _, b := range blocks {
			e.same(t, "debug_traceBlockByNumber", hexNum(b.NumberU64()), cfg)
			e.same(t, "debug_traceBlockByHash", b.Hash(), cfg)
		}
		for _, tx := range all {
			e.same(t, "debug_traceTransaction", tx.Hash(), cfg)
		}
	}
	if want := len(configs) * (2*len(blocks) + len(all)); e.results != want {
		t.Fatalf("%d traces compared equal, want %d", e.results, want)
	}

	// eth_config on the OP Stack chain (op-geth's own crashes on a chain without a blob
	// schedule): every fork, the OP Stack's included, is active at genesis, none scheduled,
	// and the precompiles are op-geth's Jovian set (P256VERIFY at 0x100).
	var config struct {
		Current *struct {
			ActivationTime uint64
			BlobSchedule   any
			Precompiles    map[string]common.Address
		}
		Next, Last any
	}
	if err := tn.stdRaw.Call(&config, "eth_config"); err != nil {
		t.Fatal(err)
	}
	if c := config.Current; c == nil || c.ActivationTime != 0 || c.BlobSchedule != nil || config.Next != nil || config.Last != nil ||
		c.Precompiles["P256VERIFY"] != common.BytesToAddress([]byte{1, 0}) {
		t.Errorf("eth_config: %+v", config)
	}

	// The block in progress traced as it was pre-confirmed equals the sealed block's trace.
	sealedTrace := e.flash(t, "debug_traceBlockByNumber", "0x2", callTracer)
	if got := decodedAnswer(t, pendingTrace); !reflect.DeepEqual(got.Result, sealedTrace.Result) {
		t.Errorf("pre-confirmed block trace differs from the sealed one:\n%s", jsonDiff("", got.Result, sealedTrace.Result))
	}

	// The traces agree with the receipts.
	l1Fees := map[uint64]*big.Int{1: new(big.Int), 2: new(big.Int)}
	for _, tx := range all {
		var receipt struct {
			BlockNumber       hexutil.Uint64 `json:"blockNumber"`
			GasUsed           hexutil.Uint64 `json:"gasUsed"`
			EffectiveGasPrice *hexutil.Big   `json:"effectiveGasPrice"`
			L1Fee             *hexutil.Big   `json:"l1Fee"`
			From              common.Address `json:"from"`
		}
		if err := tn.stdRaw.Call(&receipt, "eth_getTransactionReceipt", tx.Hash()); err != nil {
			t.Fatal(err)
		}
		var frame struct{ GasUsed hexutil.Uint64 }
		traceOf(t, tn, tx.Hash(), callTracer, &frame)
		if frame.GasUsed != receipt.GasUsed {
			t.Errorf("transaction %s: callTracer gasUsed %d, receipt %d", tx.Hash(), frame.GasUsed, receipt.GasUsed)
		}
		if tx.IsDepositTx() {
			continue
		}
		if receipt.L1Fee == nil || receipt.L1Fee.ToInt().Sign() <= 0 {
			t.Fatalf("transaction %s: receipt l1Fee %v", tx.Hash(), receipt.L1Fee)
		}
		var diff struct {
			Pre, Post map[common.Address]struct{ Balance *hexutil.Big }
		}
		traceOf(t, tn, tx.Hash(), map[string]any{"tracer": "prestateTracer", "tracerConfig": map[string]any{"diffMode": true}}, &diff)
		change := func(addr common.Address) *big.Int {
			pre, post := diff.Pre[addr].Balance, diff.Post[addr].Balance
			if pre == nil || post == nil {
				t.Fatalf("transaction %s: prestate diff lacks the balance of %s", tx.Hash(), addr)
			}
			return new(big.Int).Sub(post.ToInt(), pre.ToInt())
		}
		paid := new(big.Int).Mul(new(big.Int).SetUint64(uint64(receipt.GasUsed)), receipt.EffectiveGasPrice.ToInt())
		paid.Add(paid, receipt.L1Fee.ToInt())
		paid.Add(paid, tx.Value())
		if got := new(big.Int).Neg(change(receipt.From)); got.Cmp(paid) != 0 {
			t.Errorf("transaction %s: the sender's balance fell by %v, want gasUsed × price + l1Fee + value = %v", tx.Hash(), got, paid)
		}
		l1Fees[uint64(receipt.BlockNumber)].Add(l1Fees[uint64(receipt.BlockNumber)], receipt.L1Fee.ToInt())
	}
	// op-geth's prestateTracer leaves the fee vaults out (it looks up the sender, the
	// recipient and the coinbase only): the block's L1 fees are checked on the vault.
	vault := func(n int64) *big.Int {
		b, err := tn.std.BalanceAt(ctx, oprollup.L1FeeVault, big.NewInt(n))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for n, want := range l1Fees {
		if got := new(big.Int).Sub(vault(int64(n)), vault(int64(n)-1)); got.Cmp(want) != 0 {
			t.Errorf("the L1FeeVault got %v in block %d, want the receipts' l1Fee sum %v", got, n, want)
		}
	}
}

// traceOf decodes debug_traceTransaction of hash with cfg on the standard endpoint into v.
func traceOf(t *testing.T, tn *testNode, hash common.Hash, cfg map[string]any, v any) {
	t.Helper()
	var raw json.RawMessage
	if err := tn.stdRaw.Call(&raw, "debug_traceTransaction", hash, cfg); err != nil {
		t.Fatalf("trace %s: %v", hash, err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("trace %s: %v", hash, err)
	}
}
