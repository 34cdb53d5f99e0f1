package preconf_test

import (
	"context"
	"math/big"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	"github.com/flashrpc/flashrpc/internal/preconf"
)

// TestExecStateReadsAsCopy: a state from ExecState reads what CopyState's copy of the same
// pre-confirmation reads, for every kind of account a block leaves (the sender, new
// recipients, a contract created with storage, one whose storage was then cleared, one
// created and destroyed in the same transaction, accounts a cheat gave a balance, code and
// storage, an account never touched), in one state and in eight used at once; and writing to
// it changes neither the snapshot's state nor another ExecState.
func TestExecStateReadsAsCopy(t *testing.T) {
	ctx := context.Background()
	c := openChain(t)
	p := preconf.New(c)
	head := c.Head()
	if _, err := p.Open(ctx, preconf.NextAttributes(c.Config(), head, head.Time+1, common.Address{0xfe}, nil), preconf.PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	signer := types.LatestSigner(c.Config())
	nonce := uint64(0)
	send := func(to *common.Address, data []byte) {
		t.Helper()
		tx, err := types.SignNewTx(testKey, signer, &types.DynamicFeeTx{
			ChainID: c.Config().ChainID, Nonce: nonce, To: to, Value: big.NewInt(3), Data: data,
			Gas: 200_000, GasFeeCap: big.NewInt(10 * params.GWei), GasTipCap: big.NewInt(params.GWei),
		})
		if err != nil {
			t.Fatal(err)
		}
		nonce++
		b, err := p.Begin()
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Add(ctx, tx); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Commit(ctx, preconf.PublishOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	recipient := common.Address{0xaa, 1}
	send(&recipient, nil)
	// A contract whose creation stores 7 at slot 1 and whose code stores the call's word at
	// slot 0.
	store := crypto.CreateAddress(testAddr, nonce)
	send(nil, common.FromHex("600760015560078060106000396000f360003560005500"))
	send(&store, common.BigToHash(big.NewInt(9)).Bytes())
	send(&store, common.Hash{}.Bytes()) // slot 0 cleared again
	gone := crypto.CreateAddress(testAddr, nonce)
	send(nil, common.FromHex("6000ff")) // SELFDESTRUCT in its creation
	cheated := common.Address{0xc4}
	if _, err := p.Dev().Cheat(ctx, func(st *state.StateDB) {
		st.SetBalance(cheated, uint256.NewInt(1e9), tracing.BalanceChangeUnspecified)
		st.SetCode(cheated, common.FromHex("6001600101"), tracing.CodeChangeUnspecified)
		st.SetState(cheated, common.Hash{5}, common.Hash{6})
	}); err != nil {
		t.Fatal(err)
	}
	snap := p.Current()
	addrs := []common.Address{testAddr, recipient, store, gone, cheated, {0xfe}, {0x99, 9}}
	slots := []common.Hash{{}, common.BigToHash(common.Big1), {5}, {7}}

	read := func(st *state.StateDB) []any {
		var out []any
		for _, a := range addrs {
			out = append(out, st.Exist(a), st.Empty(a), st.GetNonce(a), st.GetBalance(a).String(), st.GetCodeHash(a), string(st.GetCode(a)), st.GetCodeSize(a), st.GetStorageRoot(a))
			for _, s := range slots {
				out = append(out, st.GetState(a, s), st.GetCommittedState(a, s))
			}
		}
		return out
	}
	want := read(snap.CopyState())
	check := func(what string, st *state.StateDB) {
		got := read(st)
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: read %d (account %d) is %v, the copy's %v", what, i, i/(8+2*len(slots)), got[i], want[i])
				return
			}
		}
	}
	if cp := snap.CopyState(); !cp.Exist(store) || cp.GetState(store, common.BigToHash(common.Big1)) != common.BigToHash(big.NewInt(7)) || cp.GetCodeSize(store) != 7 || cp.Exist(gone) || cp.GetCodeSize(cheated) == 0 {
		t.Fatal("the block does not hold the accounts the test reads")
	}
	st, err := snap.ExecState()
	if err != nil {
		t.Fatal(err)
	}
	check("one state", st)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			st, err := snap.ExecState()
			if err != nil {
				t.Error(err)
				return
			}
			st.SetBalance(recipient, uint256.NewInt(uint64(g)), tracing.BalanceChangeUnspecified) // its own
			st.SetBalance(recipient, snap.CopyState().GetBalance(recipient), tracing.BalanceChangeUnspecified)
			check("a state used at once with others", st)
		})
	}
	wg.Wait()
	st.SetState(store, common.Hash{}, common.Hash{0x42})
	st.SetBalance(testAddr, uint256.NewInt(1), tracing.BalanceChangeUnspecified)
	fresh, err := snap.ExecState()
	if err != nil {
		t.Fatal(err)
	}
	check("a state after another was written", fresh)
	check("the snapshot's copy after writes", snap.CopyState())
}
