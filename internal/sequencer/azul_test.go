package sequencer_test

import (
	"bytes"
	"context"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/networks"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// clzRuntime returns CLZ (EIP-7939, opcode 0x1e) of the call's first word.
var clzRuntime = common.FromHex("600035" + "1e" + "60005260206000f3")

// modexpInput is MODEXP's input for base, exponent and modulus.
func modexpInput(base, exp, mod []byte) []byte {
	in := common.BigToHash(big.NewInt(int64(len(base)))).Bytes()
	in = append(in, common.BigToHash(big.NewInt(int64(len(exp)))).Bytes()...)
	in = append(in, common.BigToHash(big.NewInt(int64(len(mod)))).Bytes()...)
	in = append(in, base...)
	in = append(in, exp...)
	return append(in, mod...)
}

// p256Valid is go-ethereum's CallP256Verify vector (core/vm/testdata/precompiles/p256Verify.json):
// hash, r, s, x, y of a valid signature.
var p256Valid = common.FromHex("4cee90eb86eaa050036147a12d49004b6b9c72bd725d39d4785011fe190f0b4da73bd4903f0ce3b639bbbf6e8e80d16931ff4bcf5993d58468e8fb19086e8cac36dbcd03009df8c59286b162af3bd7fcc0450c9aa81be5d10d312af6c66b1d604aebd3099c618202fcfe16ae7770b0c49ab5eadf74b754204a3bb6060e44eff37618b065f9832de4ca6ca971a7a1adc826d0f7c00181a5fb2ddf79ae00b4e10e")

// TestAzulMatchesOsaka runs CLZ, MODEXP and P256VERIFY calls on the OP Stack dev chain and the
// same calls on go-ethereum's own EVM under plain Osaka rules (networks.DevEthereum, no overrides),
// and wants the same gas used and the same success or failure: Azul is Osaka's EVM on L2. The
// sealed blocks are also re-executed by op-geth's state processor (through the chain's insert
// and checkWithStateProcessor). Without the precompile overrides P256VERIFY costs op-geth's
// Fjord price (3,450) and MODEXP misses EIP-7823/7883, and the test fails.
func TestAzulMatchesOsaka(t *testing.T) {
	n := newOPNode(t, 0, 1)
	from := crypto.PubkeyToAddress(n.keys[0].PublicKey)
	clz := crypto.CreateAddress(from, 0)
	modexp, p256 := common.BytesToAddress([]byte{5}), common.BytesToAddress([]byte{1, 0})
	word := func(v *big.Int) []byte { return common.BigToHash(v).Bytes() }
	big1 := bytes.Repeat([]byte{0xff}, 1025) // over EIP-7823's 1,024-byte bound
	bad := common.CopyBytes(p256Valid)
	bad[40] ^= 1
	cases := []struct {
		name string
		to   common.Address
		data []byte
	}{
		{"clz 0", clz, word(big.NewInt(0))},
		{"clz 1", clz, word(big.NewInt(1))},
		{"clz 2^255", clz, word(new(big.Int).Lsh(big.NewInt(1), 255))},
		{"modexp small", modexp, modexpInput([]byte{3}, []byte{5}, []byte{7})},
		{"modexp 64-byte", modexp, modexpInput(bytes.Repeat([]byte{0xe0}, 64), []byte{1, 0, 1}, bytes.Repeat([]byte{0xfd}, 64))},
		{"modexp long exponent", modexp, modexpInput(bytes.Repeat([]byte{2}, 32), bytes.Repeat([]byte{0xff}, 40), bytes.Repeat([]byte{9}, 32))},
		{"modexp zero lengths", modexp, modexpInput(nil, nil, nil)},
		{"modexp base over 1024 bytes", modexp, modexpInput(big1, []byte{1}, []byte{7})},
		{"p256 valid", p256, p256Valid},
		{"p256 invalid signature", p256, bad},
		{"p256 short input", p256, p256Valid[:100]},
	}
	const gas = 3_000_000
	n.send(t, 0, 0, nil, nil, 200_000, initCode(clzRuntime))
	var txs []*types.Transaction
	for i, c := range cases {
		txs = append(txs, n.send(t, 0, uint64(i+1), &c.to, nil, gas, c.data))
	}
	n.preconfirm(t)
	n.now = n.now.Add(2 * time.Second)
	block, err := n.seq.Seal(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	receipts := n.chain.Receipts(block.Hash())
	if len(receipts) != len(cases)+2 { // L1 attributes, deployment, cases
		t.Fatalf("%d receipts, want %d", len(receipts), len(cases)+2)
	}
	for _, snap := range n.snaps {
		if snap.Number() == block.NumberU64() {
			checkWithStateProcessor(t, n.chain.Context().(*core.BlockChain), n.chain, n.chain.Config(), snap)
		}
	}

	// go-ethereum under plain Osaka rules, no overrides, the CLZ contract at the same address.
	st, _ := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	st.SetCode(clz, clzRuntime, 0)
	l1 := networks.DevEthereum(1)
	header := &types.Header{Number: big.NewInt(1), Time: 1, GasLimit: 60_000_000, BaseFee: new(big.Int), Difficulty: new(big.Int)}
	evm := vm.NewEVM(core.NewEVMBlockContext(header, nil, &common.Address{}, l1, st), st, l1, vm.Config{NoBaseFee: true})
	for i, c := range cases {
		to := c.to
		msg := &core.Message{From: from, To: &to, GasLimit: gas, GasPrice: new(big.Int), GasFeeCap: new(big.Int), GasTipCap: new(big.Int), Value: new(big.Int), Data: c.data, SkipNonceChecks: true}
		res, err := core.ApplyMessage(evm, msg, core.NewGasPool(gas))
		if err != nil {
			t.Fatalf("%s: go-ethereum: %v", c.name, err)
		}
		r := receipts[i+2]
		if r.TxHash != txs[i].Hash() {
			t.Fatalf("%s: receipt of %s, want %s", c.name, r.TxHash, txs[i].Hash())
		}
		okWant := !res.Failed()
		if r.GasUsed != res.UsedGas || (r.Status == types.ReceiptStatusSuccessful) != okWant {
			t.Errorf("%s: dev chain gas %d success %v, go-ethereum Osaka gas %d success %v", c.name, r.GasUsed, r.Status == 1, res.UsedGas, okWant)
		}
	}
	// P256VERIFY is EIP-7951's 6,900 gas on top of the intrinsic cost.
	intrinsic, _ := core.IntrinsicGas(p256Valid, nil, nil, false, true, true, true)
	if got := receipts[2+8].GasUsed; got != intrinsic+6_900 {
		t.Errorf("p256 valid: gas %d, want %d + 6900", got, intrinsic)
	}
}

// TestTransactionGasCap checks the refusals at submission: over EIP-7825's 2^24 (Azul) and over
// the block gas limit, with "exceeds maximum per-transaction gas limit", nothing pooled; and
// that deposits are not capped.
func TestTransactionGasCap(t *testing.T) {
	n := newOPNode(t, 0, 1)
	cfg := n.chain.Config()
	to := common.Address{0xaa}
	sign := func(gas uint64) *types.Transaction {
		tx, err := types.SignNewTx(n.keys[0], types.LatestSigner(cfg), &types.DynamicFeeTx{
			ChainID: cfg.ChainID, To: &to, Gas: gas, GasFeeCap: big.NewInt(params.GWei), GasTipCap: big.NewInt(1),
		})
		if err != nil {
			t.Fatal(err)
		}
		return tx
	}
	for _, gas := range []uint64{20_000_000, params.MaxTxGas + 1} {
		err := n.pool.Add(sign(gas), n.view())
		if !errors.Is(err, txpool.ErrTxGasCap) || !errors.Is(err, core.ErrGasLimitTooHigh) {
			t.Fatalf("gas %d: %v, want %v", gas, err, txpool.ErrTxGasCap)
		}
	}
	if n.pool.Len() != 0 {
		t.Fatalf("%d pooled", n.pool.Len())
	}
	if err := n.pool.Add(sign(params.MaxTxGas), n.view()); err != nil {
		t.Fatalf("gas at the cap: %v", err)
	}

	// Over a small chain's block gas limit.
	small := newOPNode(t, 10_000_000, 1)
	tx, _ := types.SignNewTx(small.keys[0], types.LatestSigner(cfg), &types.DynamicFeeTx{ChainID: cfg.ChainID, To: &to, Gas: 12_000_000, GasFeeCap: big.NewInt(params.GWei)})
	if err := small.pool.Add(tx, small.view()); !errors.Is(err, txpool.ErrTxGasCap) || err.Error() != "exceeds maximum per-transaction gas limit: transaction gas 12000000, block gas limit 10000000" {
		t.Fatalf("over the block gas limit: %v", err)
	}

	// A deposit of 20M gas is not capped: it lands in the next block and succeeds.
	hash, err := n.seq.Deposit(oprollup.Deposit{From: common.Address{0xd0}, To: &to, Mint: big.NewInt(1), Value: new(big.Int), Gas: 20_000_000})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		n.now = n.now.Add(2 * time.Second)
		if _, err := n.seq.Seal(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	block := n.chain.BlockByNumber(2)
	if len(block.Transactions()) < 2 || block.Transactions()[1].Hash() != hash {
		t.Fatalf("block 2 does not carry the deposit second: %d transactions", len(block.Transactions()))
	}
	if r := n.chain.Receipts(block.Hash())[1]; r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("deposit failed: %+v", r)
	}
}
