package oprollup

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/networks"
)

// TestPrecompileOverrides checks that Azul's and Karst's rules run go-ethereum's Osaka MODEXP
// and P256VERIFY over op-geth's Jovian ones, Karst's bn256Pairing (and not Azul's), and leave
// everything else alone: the other precompiles, the rules before, the plain Ethereum chain's,
// and an address whose precompile was moved away.
func TestPrecompileOverrides(t *testing.T) {
	base := networks.DevOPStack(1) // Azul at genesis
	azul := base.Rules(common.Big0, true, 0)
	jovian := *base
	jovian.OsakaTime = nil
	preAzul := jovian.Rules(common.Big0, true, 0)
	op, ok := networks.Lookup(10)
	if !ok {
		t.Fatal("op mainnet unknown")
	}
	karstTime := *op.Config.KarstTime
	number := big.NewInt(150_000_000)
	karst := op.Config.Rules(number, true, karstTime)
	preKarst := op.Config.Rules(number, true, karstTime-1)
	l1 := params.MergedTestChainConfig.Rules(common.Big0, true, 0)
	modexp, pairing, p256, ecrecover := common.BytesToAddress([]byte{5}), common.BytesToAddress([]byte{8}), common.BytesToAddress([]byte{1, 0}), common.BytesToAddress([]byte{1})
	for _, c := range []struct {
		name   string
		config *params.ChainConfig
		rules  params.Rules
		addr   common.Address
		want   vm.PrecompiledContract
	}{
		{"azul modexp", base, azul, modexp, vm.PrecompiledContractsOsaka[modexp]},
		{"azul p256", base, azul, p256, vm.PrecompiledContractsOsaka[p256]},
		{"azul pairing keeps jovian's", base, azul, pairing, vm.PrecompiledContractsJovian[pairing]},
		{"azul ecrecover", base, azul, ecrecover, vm.PrecompiledContractsJovian[ecrecover]},
		{"jovian modexp", &jovian, preAzul, modexp, vm.PrecompiledContractsJovian[modexp]},
		{"jovian p256", &jovian, preAzul, p256, vm.PrecompiledContractsJovian[p256]},
		{"karst modexp", op.Config, karst, modexp, vm.PrecompiledContractsOsaka[modexp]},
		{"karst p256", op.Config, karst, p256, vm.PrecompiledContractsOsaka[p256]},
		{"karst pairing", op.Config, karst, pairing, karstPairingContract},
		{"before karst pairing", op.Config, preKarst, pairing, vm.PrecompiledContractsJovian[pairing]},
		{"before karst modexp", op.Config, preKarst, modexp, vm.PrecompiledContractsJovian[modexp]},
		{"l1 osaka modexp", params.MergedTestChainConfig, l1, modexp, vm.ActivePrecompiledContracts(l1)[modexp]},
		{"l1 osaka pairing", params.MergedTestChainConfig, l1, pairing, vm.ActivePrecompiledContracts(l1)[pairing]},
	} {
		if got := Precompiles(c.config, c.rules)[c.addr]; got != c.want {
			t.Errorf("%s: %T %v, want %T %v", c.name, got, got, c.want, c.want)
		}
	}
	if got := PrecompileOverrides(op.Config)(karst, nil, modexp); got != nil {
		t.Errorf("moved-away MODEXP: %v, want none", got)
	}
	if got := Precompiles(base, azul)[p256].RequiredGas(nil); got != 6_900 {
		t.Errorf("P256VERIFY gas %d, want 6900", got)
	}
}

// TestKarstPairing checks the Karst pairing contract on its own: 300 pairs run, 301 fail
// with ErrPairingInputTooLarge, the price is Jovian's for both, the name BN254_PAIRING.
func TestKarstPairing(t *testing.T) {
	jovian := vm.PrecompiledContractsJovian[pairingAddr]
	for _, c := range []struct {
		pairs   int
		wantErr error
	}{{0, nil}, {1, nil}, {300, nil}, {301, ErrPairingInputTooLarge}} {
		input := make([]byte, 192*c.pairs) // points at infinity: a valid pairing, result 1
		if got, want := karstPairingContract.RequiredGas(input), jovian.RequiredGas(input); got != want || got != 45_000+34_000*uint64(c.pairs) {
			t.Errorf("%d pairs: gas %d, Jovian's %d, want 45000+34000 per pair", c.pairs, got, want)
		}
		out, err := karstPairingContract.Run(input)
		if err != c.wantErr {
			t.Errorf("%d pairs: err %v, want %v", c.pairs, err, c.wantErr)
		}
		if err == nil && (len(out) != 32 || out[31] != 1) {
			t.Errorf("%d pairs: output %x, want 1", c.pairs, out)
		}
	}
	if _, err := jovian.Run(make([]byte, 192*301)); err != nil {
		t.Errorf("301 pairs under Jovian: %v, want them run", err)
	}
	if karstPairingContract.Name() != "BN254_PAIRING" {
		t.Errorf("name %q", karstPairingContract.Name())
	}
}

// TestBodyRules checks that OP Stack chains validate bodies without Osaka (EIP-7934) and that
// every other configuration is left as it is.
func TestBodyRules(t *testing.T) {
	op, _ := networks.Lookup(10)
	for _, c := range []struct {
		name      string
		config    *params.ChainConfig
		wantOsaka bool
	}{
		{"karst chain", op.Config, false},
		{"azul dev chain", networks.DevOPStack(1), false},
		{"ethereum dev chain", networks.DevEthereum(1), true},
	} {
		got := BodyRules(c.config)
		if (got.OsakaTime != nil) != c.wantOsaka {
			t.Errorf("%s: osaka %v, want it %v", c.name, got.OsakaTime, c.wantOsaka)
		}
		if c.config.OsakaTime == nil {
			t.Errorf("%s: BodyRules changed its argument", c.name)
		}
		if got.IsOptimism() != c.config.IsOptimism() || (got.JovianTime == nil) != (c.config.JovianTime == nil) {
			t.Errorf("%s: the body rules changed more than Osaka", c.name)
		}
	}
}
