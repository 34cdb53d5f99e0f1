package oprollup

import (
	"bytes"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"
)

// baseMainnetDenim is Base mainnet's Denim activation, and the first Denim block's number and
// timestamp as Base's derivation places it (base/base BASE_MAINNET_CONFIG: genesis l2_time
// 1686789347 at number 0, 2 s blocks).
const (
	baseMainnetGenesisTime = 1686789347
	baseMainnetDenim       = 1793901600
	baseMainnetFirstDenim  = 53_556_127
)

// TestBaseTimeDeposit checks the BaseTime deposit of Base mainnet's first Denim blocks
// against the specification: sourceHash = keccak256(uint256(3) ‖ keccak256(uint256(number))),
// the fields of base/base's BaseTimeUpdateTx, and the raw encoding of block 53,556,128's
// deposit as computed independently from the specification's formula (shared research,
// issue 27; not yet compared with a block fetched from Base).
func TestBaseTimeDeposit(t *testing.T) {
	sources := []struct {
		number uint64
		source string
	}{
		{53556127, "0x732c0e3790ffb8b0c2c505631185452a46004ee3b97d48b751ca5b653363f46d"},
		{53556128, "0xfcdd244deecb482cd1d3ffbf23efc224600f3cf97156779dce3e5cb32f27d930"},
		{53556131, "0xca6a751bab6549cfae48a998d1afac7f10cc9355682e482022792e5d525acba0"},
		{53556132, "0x2dd9581325173853b2eae411b8c04389fc1603ceeb913e2e9d6c8fc52d1e2827"},
	}
	for _, c := range sources {
		if got := BaseTimeSourceHash(c.number); got != common.HexToHash(c.source) {
			t.Errorf("BaseTimeSourceHash(%d) = %s, want %s", c.number, got, c.source)
		}
	}
	tx := BaseTimeDeposit(53556128, 200)
	if tx.Type() != types.DepositTxType || tx.From() != DepositorAccount || tx.To() == nil || *tx.To() != BaseTime ||
		tx.Mint() != nil && tx.Mint().Sign() != 0 || tx.Value().Sign() != 0 || tx.Gas() != 1_000_000 || tx.IsSystemTx() {
		t.Fatalf("deposit fields: from %s to %v mint %v value %v gas %d system %v", tx.From(), tx.To(), tx.Mint(), tx.Value(), tx.Gas(), tx.IsSystemTx())
	}
	wantData := hexutil.MustDecode("0x86bdf39400000000000000000000000000000000000000000000000000000000000000c8")
	if !bytes.Equal(tx.Data(), wantData) {
		t.Fatalf("calldata %x, want %x", tx.Data(), wantData)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	wantRaw := "0x7ef877a0fcdd244deecb482cd1d3ffbf23efc224600f3cf97156779dce3e5cb32f27d93094deaddeaddeaddeaddeaddeaddeaddeaddead00019442000000000000000000000000000000000000308080830f424080a486bdf39400000000000000000000000000000000000000000000000000000000000000c8"
	if hexutil.Encode(raw) != wantRaw {
		t.Fatalf("raw deposit\n got %x\nwant %s", raw, wantRaw)
	}
	if want := common.HexToHash("0x307d72aaea9895b2516bea6bff3a96dfe1e579e38670dd4ccf55a25ba6fe158a"); tx.Hash() != want {
		t.Fatalf("hash %s, want %s", tx.Hash(), want)
	}
	if part, ok := BaseTimePart(tx); !ok || part != 200 {
		t.Fatalf("BaseTimePart = %d, %v", part, ok)
	}
	// Transactions that are not the BaseTime deposit give no part.
	other := (&Deposit{From: common.Address{1}, To: &BaseTime, Gas: 1_000_000, Data: BaseTimeCalldata(200)}).Tx(common.Hash{})
	if _, ok := BaseTimePart(other); ok {
		t.Fatal("a deposit from another sender read as BaseTime's")
	}
	info := (&L1Info{BaseFee: big.NewInt(1), BlobBaseFee: big.NewInt(1)}).DepositTx()
	if ms, ok := BlockTimeMs(1793901601, types.Transactions{info, tx}); !ok || ms != 1793901601200 {
		t.Fatalf("BlockTimeMs = %d, %v", ms, ok)
	}
	if _, ok := BlockTimeMs(1793901601, types.Transactions{info}); ok {
		t.Fatal("a block without the deposit has a millisecond time")
	}
}

// TestBaseTimeCode checks the embedded implementation against base/base's
// IMPLEMENTATION_CODE_HASH.
func TestBaseTimeCode(t *testing.T) {
	code := BaseTimeCode()
	want := common.HexToHash("0x9c4c8a497a69d0b8f2ba67be0bee7a1373186055978c3be6ec3068e0ec27f32a")
	if len(code) != 878 || crypto.Keccak256Hash(code) != want {
		t.Fatalf("BaseTime code: %d bytes, hash %s; want 878 bytes, %s", len(code), crypto.Keccak256Hash(code), want)
	}
}

// denimState returns the state of a Denim dev genesis and an EVM on it at time.
func denimState(t *testing.T, time uint64) (*vm.EVM, *state.StateDB) {
	t.Helper()
	g, err := DevDenimGenesis(8453, nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	st, err := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	if err != nil {
		t.Fatal(err)
	}
	for addr, acc := range g.Alloc {
		st.SetCode(addr, acc.Code, tracing.CodeChangeUnspecified)
		for k, v := range acc.Storage {
			st.SetState(addr, k, v)
		}
		if acc.Balance != nil {
			st.SetBalance(addr, uint256.MustFromBig(acc.Balance), tracing.BalanceChangeUnspecified)
		}
		st.SetNonce(addr, acc.Nonce, tracing.NonceChangeUnspecified)
	}
	random := common.Hash{1}
	ctx := vm.BlockContext{
		CanTransfer: core.CanTransfer, Transfer: core.Transfer,
		GetHash:  func(uint64) common.Hash { return common.Hash{} },
		Coinbase: SequencerFeeVault, GasLimit: g.GasLimit, BlockNumber: big.NewInt(5), Time: time,
		Difficulty: new(big.Int), BaseFee: big.NewInt(1), BlobBaseFee: big.NewInt(1), Random: &random,
	}
	ctx.L1CostFunc = types.NewL1CostFunc(g.Config, st)
	ctx.OperatorCostFunc = types.NewOperatorCostFunc(g.Config, st)
	return vm.NewEVM(ctx, st, g.Config, VMConfig(g.Config, vm.Config{})), st
}

// TestBaseTimeContract runs BaseTime's genesis proxy and implementation in op-geth's EVM: the
// BaseTime deposit sets the part, timestampMs() and timestampMillisPart() read it back, and
// the setter reverts for another caller and for a part BaseTime refuses.
func TestBaseTimeContract(t *testing.T) {
	const now = 1793901601
	evm, st := denimState(t, now)
	view := func(selector []byte) uint64 {
		t.Helper()
		out, _, err := evm.Call(common.Address{7}, BaseTime, selector, 100_000, new(uint256.Int))
		if err != nil || len(out) != 32 {
			t.Fatalf("call %x: %x, %v", selector, out, err)
		}
		return new(big.Int).SetBytes(out).Uint64()
	}
	if ms := view(TimestampMsSelector); ms != now*1000 {
		t.Fatalf("timestampMs() before any deposit = %d, want %d", ms, now*1000)
	}
	// The deposit itself, as a block carries it: a deposit message through op-geth's state
	// transition.
	msg, err := core.TransactionToMessage(BaseTimeDeposit(5, 600), types.LatestSigner(evm.ChainConfig()), big.NewInt(1))
	if err != nil {
		t.Fatal(err)
	}
	res, err := core.ApplyMessage(evm, msg, core.NewGasPool(1_000_000))
	if err != nil || res.Failed() {
		t.Fatalf("BaseTime deposit: %v, %v", err, res.Err)
	}
	if ms := view(TimestampMsSelector); ms != now*1000+600 {
		t.Fatalf("timestampMs() = %d, want %d", ms, now*1000+600)
	}
	if part := view(TimestampMillisPartSelector); part != 600 {
		t.Fatalf("timestampMillisPart() = %d, want 600", part)
	}
	if slot := st.GetState(BaseTime, common.Hash{}); slot != common.BigToHash(big.NewInt(600)) {
		t.Fatalf("slot 0 = %s, want the part in its low 16 bits", slot)
	}
	reverts := []struct {
		name   string
		from   common.Address
		part   uint16
		reason []byte
	}{
		{"not the depositor", common.Address{7}, 200, BaseTimeNotDepositorError},
		{"part over 800", DepositorAccount, 1000, BaseTimeInvalidPartError},
		{"part not a multiple of 200", DepositorAccount, 300, BaseTimeInvalidPartError},
	}
	for _, c := range reverts {
		out, _, err := evm.Call(c.from, BaseTime, BaseTimeCalldata(c.part), 100_000, new(uint256.Int))
		if !errors.Is(err, vm.ErrExecutionReverted) || !bytes.Equal(out, c.reason) {
			t.Errorf("%s: out %x err %v, want revert %x", c.name, out, err, c.reason)
		}
	}
	if part := view(TimestampMillisPartSelector); part != 600 {
		t.Fatalf("a reverted call changed the part to %d", part)
	}
	for _, part := range []uint16{0, 200, 400, 600, 800} {
		if _, _, err := evm.Call(DepositorAccount, BaseTime, BaseTimeCalldata(part), 100_000, new(uint256.Int)); err != nil || !ValidBaseTimePart(part) {
			t.Errorf("part %d: %v", part, err)
		}
	}
}

// TestDenimTime checks the millisecond arithmetic: 200 ms a block across second boundaries,
// and the first Denim block of Base mainnet and Base Sepolia.
func TestDenimTime(t *testing.T) {
	ts, part := uint64(1793901601), uint16(0)
	want := []struct {
		ts   uint64
		part uint16
	}{{1793901601, 200}, {1793901601, 400}, {1793901601, 600}, {1793901601, 800}, {1793901602, 0}, {1793901602, 200}}
	for i, w := range want {
		prev := TimeMs(ts, part)
		ts, part = NextDenimTime(ts, part)
		if ts != w.ts || part != w.part || TimeMs(ts, part) != prev+200 {
			t.Fatalf("step %d: (%d, %d), want (%d, %d)", i, ts, part, w.ts, w.part)
		}
	}
	n, at := DenimActivationBlock(0, baseMainnetGenesisTime, 2, baseMainnetDenim)
	if n != baseMainnetFirstDenim || at != 1793901601 {
		t.Fatalf("Base mainnet's first Denim block: %d at %d, want %d at 1793901601", n, at, baseMainnetFirstDenim)
	}
	if n, at := DenimActivationBlock(0, 1695768288, 2, 1792605600); n != 48_418_656 || at != 1792605600 {
		t.Fatalf("Base Sepolia's first Denim block: %d at %d, want 48418656 at 1792605600", n, at)
	}
	denim := uint64(baseMainnetDenim)
	if !IsFirstDenimBlock(&denim, at-2, at) || IsFirstDenimBlock(&denim, at, at) || IsFirstDenimBlock(&denim, at-4, at-2) {
		t.Fatal("IsFirstDenimBlock")
	}
	if IsDenim(nil, at) || !IsDenim(&denim, denim) || IsDenim(&denim, denim-1) {
		t.Fatal("IsDenim")
	}
}

// TestDenimGasParams checks the first Denim block's gas parameters: the limit ÷ 10, the
// denominator × 10, elasticity and minimum base fee kept; and that the base fee of the block
// after it changes ten times slower.
func TestDenimGasParams(t *testing.T) {
	g, err := DevDenimGenesis(8453, nil, nil, 1000)
	if err != nil {
		t.Fatal(err)
	}
	limit, extra, err := DenimGasParams(g.Config, 1000, g.GasLimit, g.ExtraData)
	if err != nil {
		t.Fatal(err)
	}
	if limit != DefaultGasLimit/10 {
		t.Fatalf("gas limit %d, want %d", limit, DefaultGasLimit/10)
	}
	d, e, m := eip1559.DecodeOptimismExtraData(g.Config, 1000, extra)
	if d != EIP1559Denominator*10 || e != EIP1559Elasticity || m == nil || *m != MinBaseFee {
		t.Fatalf("extraData %x: denominator %d elasticity %d min %v", extra, d, e, m)
	}
	// A full parent raises the base fee by 1/denominator of it: ten times less under Denim.
	var da uint64 // Jovian's DA footprint, none here
	parent := &types.Header{Number: big.NewInt(1), Time: 1000, GasLimit: limit, GasUsed: limit, BaseFee: big.NewInt(1e9), Extra: extra, BlobGasUsed: &da}
	before := &types.Header{Number: big.NewInt(1), Time: 1000, GasLimit: g.GasLimit, GasUsed: g.GasLimit, BaseFee: big.NewInt(1e9), Extra: g.ExtraData, BlobGasUsed: &da}
	rise := new(big.Int).Sub(eip1559.CalcBaseFee(g.Config, parent, 1001), parent.BaseFee)
	riseBefore := new(big.Int).Sub(eip1559.CalcBaseFee(g.Config, before, 1001), before.BaseFee)
	if new(big.Int).Mul(rise, big.NewInt(10)).Cmp(riseBefore) != 0 {
		t.Fatalf("base fee rise %s under Denim, %s before: want a tenth", rise, riseBefore)
	}
	if _, _, err := DenimGasParams(g.Config, 1000, g.GasLimit, nil); !errors.Is(err, ErrNoEIP1559Params) {
		t.Fatalf("no extraData: %v", err)
	}
	g0, err := DevDenimGenesis(8453, nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if g0.GasLimit != DefaultGasLimit/10 || !bytes.Equal(g0.ExtraData, extra) {
		t.Fatalf("Denim from genesis: gas limit %d extraData %x", g0.GasLimit, g0.ExtraData)
	}
}
