package oprollup

import (
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/holiman/uint256"
)

// allocState returns a state holding alloc.
func allocState(t *testing.T, alloc types.GenesisAlloc) *state.StateDB {
	t.Helper()
	st, err := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	if err != nil {
		t.Fatal(err)
	}
	for addr, acc := range alloc {
		st.SetCode(addr, acc.Code, tracing.CodeChangeUnspecified)
		for k, v := range acc.Storage {
			st.SetState(addr, k, v)
		}
		if acc.Balance != nil {
			st.SetBalance(addr, uint256.MustFromBig(acc.Balance), tracing.BalanceChangeUnspecified)
		}
		st.SetNonce(addr, acc.Nonce, tracing.NonceChangeUnspecified)
	}
	return st
}

// TestEnsureBaseTime installs BaseTime on the state of an OP Stack dev genesis that has only
// the proxy (a chain that crosses Denim): the BaseTime deposit through the proxy then
// succeeds, a second call changes nothing, the implementation account keeps its balance,
// the result equals InstallBaseTime's genesis, and a proxy without code or with another admin
// is refused.
func TestEnsureBaseTime(t *testing.T) {
	g := DevGenesis(8453, nil, nil)
	g.Alloc[BaseTimeImplementation] = types.Account{Balance: big.NewInt(7)}
	st := allocState(t, g.Alloc)
	deposit := func() *core.ExecutionResult {
		t.Helper()
		random := common.Hash{1}
		ctx := vm.BlockContext{
			CanTransfer: core.CanTransfer, Transfer: core.Transfer,
			GetHash:  func(uint64) common.Hash { return common.Hash{} },
			Coinbase: SequencerFeeVault, GasLimit: g.GasLimit, BlockNumber: big.NewInt(5), Time: 1793901601,
			Difficulty: new(big.Int), BaseFee: big.NewInt(1), BlobBaseFee: big.NewInt(1), Random: &random,
		}
		ctx.L1CostFunc = types.NewL1CostFunc(g.Config, st)
		ctx.OperatorCostFunc = types.NewOperatorCostFunc(g.Config, st)
		evm := vm.NewEVM(ctx, st, g.Config, VMConfig(g.Config, vm.Config{}))
		msg, err := core.TransactionToMessage(BaseTimeDeposit(5, 400), types.LatestSigner(g.Config), big.NewInt(1))
		if err != nil {
			t.Fatal(err)
		}
		snap := st.Snapshot()
		res, err := core.ApplyMessage(evm, msg, core.NewGasPool(1_000_000))
		if err != nil {
			t.Fatal(err)
		}
		if res.Failed() {
			st.RevertToSnapshot(snap)
		}
		return res
	}
	if res := deposit(); !res.Failed() {
		t.Fatal("the BaseTime deposit succeeded before the implementation was installed")
	}
	installed, err := EnsureBaseTime(st)
	if err != nil || !installed {
		t.Fatalf("EnsureBaseTime = %v, %v; want an install", installed, err)
	}
	if res := deposit(); res.Failed() {
		t.Fatalf("the BaseTime deposit after the install failed: %v", res.Err)
	}
	if slot := st.GetState(BaseTime, common.Hash{}); slot != common.BigToHash(big.NewInt(400)) {
		t.Fatalf("slot 0 = %s after the deposit of part 400", slot)
	}
	if installed, err := EnsureBaseTime(st); err != nil || installed {
		t.Fatalf("second EnsureBaseTime = %v, %v; want nothing done", installed, err)
	}
	if b := st.GetBalance(BaseTimeImplementation); b.Uint64() != 7 {
		t.Fatalf("the implementation account's balance is %s, want 7 kept", b)
	}
	want := DevGenesis(8453, nil, nil)
	if err := InstallBaseTime(want.Alloc); err != nil {
		t.Fatal(err)
	}
	for _, addr := range []common.Address{BaseTime, BaseTimeImplementation} {
		if string(st.GetCode(addr)) != string(want.Alloc[addr].Code) {
			t.Errorf("%s's code differs from InstallBaseTime's genesis", addr)
		}
		for k, v := range want.Alloc[addr].Storage {
			if got := st.GetState(addr, k); got != v {
				t.Errorf("%s slot %s = %s, InstallBaseTime's genesis has %s", addr, k, got, v)
			}
		}
	}

	wrongAdmin := allocState(t, DevGenesis(8453, nil, nil).Alloc)
	wrongAdmin.SetState(BaseTime, proxyAdminSlot, common.Hash{31: 1})
	if _, err := EnsureBaseTime(wrongAdmin); !errors.Is(err, ErrBaseTimeProxy) {
		t.Fatalf("another admin: %v, want ErrBaseTimeProxy", err)
	}
	noProxy := allocState(t, types.GenesisAlloc{})
	if _, err := EnsureBaseTime(noProxy); !errors.Is(err, ErrBaseTimeProxy) {
		t.Fatalf("no proxy: %v, want ErrBaseTimeProxy", err)
	}
}
