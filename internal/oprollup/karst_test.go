package oprollup

import (
	"bytes"
	"errors"
	"fmt"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	"github.com/flashrpc/flashrpc/internal/networks"
)

// Karst's rules are checked against go-ethereum's Osaka: the same inputs run through op-geth's
// EVM with flashrpc's configuration of OP Mainnet at its Karst time (and flashrpc's VMConfig)
// and through a plain Ethereum chain with Osaka (go-ethereum's own rules, no overrides), and
// must give the same results and gas.

var (
	sender   = common.HexToAddress("0x5e0d")
	clzAddr  = common.HexToAddress("0xc12")
	testCoin = new(uint256.Int).Lsh(uint256.NewInt(1), 100)
)

// clzCode returns runtime code that returns CLZ of its 32-byte call data:
// PUSH1 0 CALLDATALOAD CLZ PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN.
var clzCode = []byte{0x60, 0x00, 0x35, 0x1e, 0x60, 0x00, 0x52, 0x60, 0x20, 0x60, 0x00, 0xf3}

// rig is one side of the differential test: a chain configuration at a block, and the
// vm.Config its EVM runs with.
type rig struct {
	name   string
	config *params.ChainConfig
	number uint64
	time   uint64
	vm     vm.Config
}

// opMainnet returns OP Mainnet's network as flashrpc knows it.
func opMainnet(t *testing.T) networks.Network {
	t.Helper()
	n, ok := networks.Lookup(10)
	if !ok || n.Config.KarstTime == nil {
		t.Fatal("op mainnet unknown or without karst")
	}
	return n
}

// karstRig is OP Mainnet at its Karst time with flashrpc's VMConfig; preKarstRig one second
// before; osakaRig a plain Ethereum chain with Osaka and go-ethereum's own precompiles.
func karstRig(t *testing.T) rig {
	cfg := opMainnet(t).Config
	return rig{"karst", cfg, 150_000_000, *cfg.KarstTime, VMConfig(cfg, vm.Config{})}
}

func preKarstRig(t *testing.T) rig {
	cfg := opMainnet(t).Config
	return rig{"before karst", cfg, 150_000_000, *cfg.KarstTime - 1, VMConfig(cfg, vm.Config{})}
}

func osakaRig() rig {
	cfg := networks.DevEthereum(1)
	return rig{"go-ethereum osaka", cfg, 1, 1, vm.Config{}}
}

// evm returns an EVM of r on a fresh state holding the CLZ contract and a funded sender.
func (r rig) evm(t *testing.T) (*vm.EVM, *state.StateDB) {
	t.Helper()
	st, err := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	if err != nil {
		t.Fatal(err)
	}
	st.SetCode(clzAddr, clzCode, tracing.CodeChangeUnspecified)
	st.SetBalance(sender, testCoin, tracing.BalanceChangeUnspecified)
	random := common.Hash{1}
	ctx := vm.BlockContext{
		CanTransfer: core.CanTransfer, Transfer: core.Transfer,
		GetHash:  func(uint64) common.Hash { return common.Hash{} },
		GasLimit: 1 << 30, BlockNumber: new(big.Int).SetUint64(r.number), Time: r.time,
		Difficulty: new(big.Int), BaseFee: big.NewInt(1), BlobBaseFee: big.NewInt(1), Random: &random,
	}
	if r.config.IsOptimism() { // op-geth's, as core.NewEVMBlockContext sets them
		ctx.L1CostFunc = types.NewL1CostFunc(r.config, st)
		ctx.OperatorCostFunc = types.NewOperatorCostFunc(r.config, st)
	}
	evm := vm.NewEVM(ctx, st, r.config, r.vm)
	if !evm.ChainConfig().IsOsaka(ctx.BlockNumber, ctx.Time) && r.name != "before karst" {
		t.Fatalf("%s: osaka is off", r.name)
	}
	return evm, st
}

// outcome is what a call gave: its output, error text and gas used.
type outcome struct {
	out []byte
	err string
	gas uint64
}

func (o outcome) String() string {
	return fmt.Sprintf("out %x err %q gas %d", o.out, o.err, o.gas)
}

// call runs one call from sender to addr with input and gas on a fresh EVM of r.
func (r rig) call(t *testing.T, addr common.Address, input []byte, gas uint64) outcome {
	t.Helper()
	evm, _ := r.evm(t)
	out, left, err := evm.Call(sender, addr, input, gas, new(uint256.Int))
	o := outcome{out: out, gas: gas - left}
	if err != nil {
		o.err = err.Error()
	}
	return o
}

// modexpInput returns a MODEXP input with the given lengths, every byte of base, exponent and
// modulus fill.
func modexpInput(baseLen, expLen, modLen int, fill byte) []byte {
	in := make([]byte, 96)
	big.NewInt(int64(baseLen)).FillBytes(in[0:32])
	big.NewInt(int64(expLen)).FillBytes(in[32:64])
	big.NewInt(int64(modLen)).FillBytes(in[64:96])
	return append(in, bytes.Repeat([]byte{fill}, baseLen+expLen+modLen)...)
}

// TestKarstMatchesOsaka is the differential test: CLZ, MODEXP at and over EIP-7823's
// 1024-byte bounds and its EIP-7883 price, and P256VERIFY's price give the same output, error
// and gas under flashrpc's Karst as under go-ethereum's Osaka.
func TestKarstMatchesOsaka(t *testing.T) {
	karst, osaka, preKarst := karstRig(t), osakaRig(), preKarstRig(t)
	word := func(b ...byte) []byte { return common.LeftPadBytes(b, 32) }
	ones := bytes.Repeat([]byte{0xff}, 32)
	cases := []struct {
		name  string
		addr  common.Address
		input []byte
		// preKarstDiffers: Jovian's rules give another result, so the case shows Karst's rules
		// are in force.
		preKarstDiffers bool
	}{
		{"clz 0", clzAddr, word(0), true},
		{"clz 1", clzAddr, word(1), true},
		{"clz top bit", clzAddr, append([]byte{0x80}, make([]byte, 31)...), true},
		{"clz all ones", clzAddr, ones, true},
		{"clz 0x00ff..", clzAddr, append([]byte{0x00}, ones[:31]...), true},
		{"modexp small", modExpAddr, append(modexpInput(0, 0, 0, 0), 0), true}, // Osaka's minimum price 500
		{"modexp 3^5 mod 7", modExpAddr, append(append(append(word(1), word(1)...), word(1)...), 3, 5, 7), true},
		{"modexp 32-byte exponent", modExpAddr, modexpInput(32, 32, 32, 0xff), true},
		{"modexp at the bounds", modExpAddr, modexpInput(1024, 32, 1024, 0x07), true},
		{"modexp base over", modExpAddr, modexpInput(1025, 1, 1, 0x07), true},
		{"modexp exponent over", modExpAddr, modexpInput(1, 1025, 1, 0x07), true},
		{"modexp modulus over", modExpAddr, modexpInput(1, 1, 1025, 0x07), true},
		{"p256verify bad signature", p256Addr, make([]byte, 160), true},
		{"p256verify short input", p256Addr, make([]byte, 10), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			const gas = 50_000_000
			got, want := karst.call(t, c.addr, c.input, gas), osaka.call(t, c.addr, c.input, gas)
			if !bytes.Equal(got.out, want.out) || got.err != want.err || got.gas != want.gas {
				t.Errorf("karst %v\ngo-ethereum osaka %v", got, want)
			}
			if pre := preKarst.call(t, c.addr, c.input, gas); c.preKarstDiffers && pre.err == got.err && pre.gas == got.gas && bytes.Equal(pre.out, got.out) {
				t.Errorf("before karst %v: the same as karst, so the case does not tell the rules apart", pre)
			}
		})
	}
	if got := karst.call(t, p256Addr, make([]byte, 160), 50_000); got.gas != 6_900 {
		t.Errorf("P256VERIFY under karst used %d gas, want 6900", got.gas)
	}
}

// TestKarstCLZActivation checks a registry chain before and after its Karst time: CLZ is an
// invalid opcode before (all gas consumed), and returns the count after.
func TestKarstCLZActivation(t *testing.T) {
	before := preKarstRig(t).call(t, clzAddr, common.LeftPadBytes([]byte{1}, 32), 100_000)
	var invalid *vm.ErrInvalidOpCode
	if evm, _ := preKarstRig(t).evm(t); evm.ChainConfig().IsOsaka(big.NewInt(150_000_000), preKarstRig(t).time) {
		t.Fatal("osaka is on before karst")
	}
	if before.err == "" || before.gas != 100_000 {
		t.Fatalf("CLZ before karst: %v, want an invalid opcode consuming all gas", before)
	}
	_, _, err := func() ([]byte, uint64, error) {
		evm, _ := preKarstRig(t).evm(t)
		return evm.Call(sender, clzAddr, common.LeftPadBytes([]byte{1}, 32), 100_000, new(uint256.Int))
	}()
	if !errors.As(err, &invalid) {
		t.Fatalf("CLZ before karst: %v, want an invalid opcode", err)
	}
	after := karstRig(t).call(t, clzAddr, common.LeftPadBytes([]byte{1}, 32), 100_000)
	if after.err != "" || new(big.Int).SetBytes(after.out).Uint64() != 255 {
		t.Fatalf("CLZ after karst: %v, want 255", after)
	}
}

// TestKarstPairingCap runs bn256Pairing through the EVM: under Karst 300 pairs (57,600 bytes)
// run and 301 (57,792) fail, consuming all the gas given; before Karst, and under Base's Azul,
// 301 pairs run (Jovian's 81,984-byte cap).
func TestKarstPairingCap(t *testing.T) {
	azul := rig{"azul", networks.DevOPStack(1), 1, 1, VMConfig(networks.DevOPStack(1), vm.Config{})}
	const gas = 12_000_000
	for _, c := range []struct {
		rig   rig
		pairs int
		ok    bool
	}{
		{karstRig(t), 300, true},
		{karstRig(t), 301, false},
		{preKarstRig(t), 301, true},
		{azul, 301, true},
	} {
		got := c.rig.call(t, pairingAddr, make([]byte, 192*c.pairs), gas)
		price := uint64(45_000 + 34_000*c.pairs)
		switch {
		case c.ok && (got.err != "" || got.gas != price || len(got.out) != 32 || got.out[31] != 1):
			t.Errorf("%s, %d pairs: %v, want success (1) for %d gas", c.rig.name, c.pairs, got, price)
		case !c.ok && (got.err != ErrPairingInputTooLarge.Error() || got.gas != gas || got.out != nil):
			t.Errorf("%s, %d pairs: %v, want %q consuming all %d gas", c.rig.name, c.pairs, got, ErrPairingInputTooLarge, gas)
		}
	}
}

// TestKarstTxGasCap checks EIP-7825 under Karst as under go-ethereum's Osaka: a transaction
// with more than 2^24 gas is refused, one with 2^24 runs; a deposit with more is accepted
// (deposits are exempt).
func TestKarstTxGasCap(t *testing.T) {
	for _, r := range []rig{karstRig(t), osakaRig()} {
		for _, c := range []struct {
			gas     uint64
			wantErr error
		}{{params.MaxTxGas + 1, core.ErrGasLimitTooHigh}, {params.MaxTxGas, nil}} {
			evm, _ := r.evm(t)
			msg := &core.Message{From: sender, To: &clzAddr, Value: new(big.Int), GasLimit: c.gas,
				GasPrice: big.NewInt(1), GasFeeCap: big.NewInt(1), GasTipCap: big.NewInt(0), Data: make([]byte, 32)}
			res, err := core.ApplyMessage(evm, msg, core.NewGasPool(1<<30))
			if !errors.Is(err, c.wantErr) || (err == nil && res.Failed()) {
				t.Errorf("%s, gas %d: err %v, want %v", r.name, c.gas, err, c.wantErr)
			}
		}
	}
	r := karstRig(t)
	evm, st := r.evm(t)
	deposit := types.NewTx(&types.DepositTx{SourceHash: common.Hash{0xde}, From: sender, To: &clzAddr,
		Mint: big.NewInt(0), Value: big.NewInt(0), Gas: 20_000_000, Data: make([]byte, 32)})
	msg, err := core.TransactionToMessage(deposit, types.LatestSigner(r.config), big.NewInt(1))
	if err != nil {
		t.Fatal(err)
	}
	st.SetTxContext(deposit.Hash(), 0)
	res, err := core.ApplyMessage(evm, msg, core.NewGasPool(1<<30))
	if err != nil || res.Failed() {
		t.Fatalf("deposit with 20M gas under karst: err %v, result %+v, want it run", err, res)
	}
	if new(big.Int).SetBytes(res.ReturnData).Uint64() != 256 {
		t.Errorf("deposit's CLZ(0) %x, want 256", res.ReturnData)
	}
}
