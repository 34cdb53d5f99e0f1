package simulate

import (
	"context"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/holiman/uint256"
)

// TestAccountTrie: a state on the memory layer, whose account trie is an accountTrie, has the
// prepared state's root (go-ethereum's trie) after creating and changing accounts, hashed
// more than once; after absent accounts are touched and deleted (without falling back);
// after an account is deleted, which the accountTrie hands to go-ethereum's
// trie with the updates so far; and after more changes on that trie.
func TestAccountTrie(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t, 2)
	base := NewBase(context.Background(), Env{Env: chain.env(t)})
	if base.layer == nil {
		t.Fatal("no memory layer on a sealed base")
	}
	deleteEmpty := chain.env(t).Config.IsEIP158(base.first.Number)
	layered, err := base.layer.newState()
	if err != nil {
		t.Fatal(err)
	}
	warm := base.warm.Copy()
	both := func(change func(st *state.StateDB)) {
		change(layered)
		change(warm)
	}
	compare := func(step string) {
		t.Helper()
		if got, want := layered.IntermediateRoot(deleteEmpty), warm.IntermediateRoot(deleteEmpty); got != want {
			t.Fatalf("%s: layer root %s, go-ethereum's %s", step, got, want)
		}
	}
	fresh := func(i int) common.Address { return common.Address{0xfe, byte(i), byte(i * 7)} }
	both(func(st *state.StateDB) {
		for i := range 40 {
			st.AddBalance(fresh(i), uint256.NewInt(uint64(i+1)), tracing.BalanceChangeUnspecified)
		}
		st.SetNonce(richAddr, st.GetNonce(richAddr)+1, tracing.NonceChangeUnspecified)
	})
	compare("40 accounts created, one changed")
	accountTrie, ok := layered.GetTrie().(*accountTrie) // opened by the first root
	if !ok {
		t.Fatalf("the layer's state has a %T for its accounts", layered.GetTrie())
	}
	both(func(st *state.StateDB) {
		st.AddBalance(fresh(3), uint256.NewInt(5), tracing.BalanceChangeUnspecified)
		st.SetNonce(richAddr, st.GetNonce(richAddr)+1, tracing.NonceChangeUnspecified)
	})
	compare("hashed again after more changes")
	if accountTrie.geth != nil {
		t.Fatal("updates alone fell back to go-ethereum's trie")
	}

	if !deleteEmpty {
		t.Fatal("the test chain does not run EIP-158: nothing would be deleted")
	}
	both(func(st *state.StateDB) { // touched and left empty, as a precompile called: deleted
		st.AddBalance(common.Address{0x01}, new(uint256.Int), tracing.BalanceChangeUnspecified)
		st.AddBalance(fresh(99), new(uint256.Int), tracing.BalanceChangeUnspecified)
	})
	compare("absent accounts touched")
	if accountTrie.geth != nil {
		t.Fatal("deleting accounts not in the trie fell back to go-ethereum's trie")
	}
	both(func(st *state.StateDB) {
		st.SubBalance(fresh(5), uint256.NewInt(6), tracing.BalanceChangeUnspecified) // empty: deleted
		st.AddBalance(fresh(50), uint256.NewInt(1), tracing.BalanceChangeUnspecified)
	})
	compare("an account deleted")
	if accountTrie.geth == nil {
		t.Fatal("a deletion did not fall back to go-ethereum's trie")
	}
	both(func(st *state.StateDB) {
		st.AddBalance(fresh(6), uint256.NewInt(1), tracing.BalanceChangeUnspecified)
	})
	compare("changed after the fallback")
}

// TestAccountTrieConcurrentFill: states on a fresh layer, used at the same time, fill its
// caches of decoded nodes and keys while the others read them (run with -race), and each
// has go-ethereum's root for its own accounts.
func TestAccountTrieConcurrentFill(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t, 2)
	base := NewBase(context.Background(), Env{Env: chain.env(t)})
	if base.layer == nil {
		t.Fatal("no memory layer on a sealed base")
	}
	deleteEmpty := chain.env(t).Config.IsEIP158(base.first.Number)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			layered, err := base.layer.newState()
			if err != nil {
				t.Error(err)
				return
			}
			warm := base.warm.Copy()
			for _, st := range []*state.StateDB{layered, warm} {
				for i := range 30 {
					st.AddBalance(common.Address{0xfd, byte(g), byte(i)}, uint256.NewInt(uint64(i+1)), tracing.BalanceChangeUnspecified)
				}
				st.SetNonce(richAddr, st.GetNonce(richAddr)+uint64(g)+1, tracing.NonceChangeUnspecified)
			}
			for round := range 2 {
				if got, want := layered.IntermediateRoot(deleteEmpty), warm.IntermediateRoot(deleteEmpty); got != want {
					t.Errorf("state %d, hash %d: layer root %s, go-ethereum's %s", g, round, got, want)
				}
			}
			if tr, ok := layered.GetTrie().(*accountTrie); !ok || tr.geth != nil {
				t.Errorf("state %d: updates alone left the shared trie (%T)", g, layered.GetTrie())
			}
		})
	}
	wg.Wait()
	if base.layer.decoded.len() == 0 || base.layer.keys.len() == 0 {
		t.Fatal("the layer kept no decoded node or key")
	}
}
