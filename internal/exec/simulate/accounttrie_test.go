package simulate

import (
	"math/big"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/holiman/uint256"
)

// TestAccountTrie: a state on the memory layer, whose account trie is an accountTrie, has the
// prepared state's root (go-ethereum's trie) after creating and changing accounts, hashed
// more than once; after absent accounts are touched and deleted (without falling back);
// after an account is deleted, which the accountTrie hands to go-ethereum's
// trie with the updates so far; and after more changes on that trie.
func TestAccountTrie(t *testing.T) {
	t.Parallel()
	base, deleteEmpty := layeredBase(t)
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
	base, deleteEmpty := layeredBase(t)
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

// TestAccountTrieMissingNode: when a node of the base's account trie is gone from the
// database, a request whose update needs it falls back to go-ethereum's trie and its state
// fails with go-ethereum's error (Run answers it as "read state: …"), and a request whose
// updates do not reach it has go-ethereum's root without falling back. The database is a
// real one (hash scheme, as committed), from which the leaf of one account is deleted; the
// accounts themselves are read from an intact copy, so that only the trie meets the gap.
func TestAccountTrieMissingNode(t *testing.T) {
	t.Parallel()
	disk := rawdb.NewMemoryDatabase()
	built, err := state.New(types.EmptyRootHash, state.NewDatabase(triedb.NewDatabase(disk, triedb.HashDefaults), nil))
	if err != nil {
		t.Fatal(err)
	}
	account := func(i int) common.Address { return common.Address{0xac, byte(i >> 8), byte(i)} }
	for i := range 300 {
		built.AddBalance(account(i), uint256.NewInt(uint64(i+1)), tracing.BalanceChangeUnspecified)
	}
	root, err := built.Commit(0, true, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := built.Database().TrieDB().Commit(root, false); err != nil {
		t.Fatal(err)
	}
	intact := copyDatabase(t, disk)
	victim := account(150)
	rawdb.DeleteLegacyTrieNode(disk, accountLeafHash(t, intact, root, victim))

	// A fresh trie database over the damaged store, so that no cache still holds the node.
	damaged := state.NewDatabase(triedb.NewDatabase(disk, triedb.HashDefaults), nil)
	reader, err := state.NewDatabase(triedb.NewDatabase(intact, triedb.HashDefaults), nil).Reader(root)
	if err != nil {
		t.Fatal(err)
	}
	base, err := state.NewWithReader(root, damaged, reader)
	if err != nil {
		t.Fatal(err)
	}
	rules := params.MergedTestChainConfig.Rules(big.NewInt(1), true, 0)
	l, err := buildMemLayer(base, root, rules, 1, func(st *state.StateDB) error {
		st.SetNonce(account(0), 1, tracing.NonceChangeUnspecified)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	open := func() (layered, geth *state.StateDB) {
		t.Helper()
		layered, err := l.newState()
		if err != nil {
			t.Fatal(err)
		}
		geth, err = state.NewWithReader(l.root, gethTrieLayer{l}, l.reader)
		if err != nil {
			t.Fatal(err)
		}
		return layered, geth
	}

	layered, geth := open()
	for _, st := range []*state.StateDB{layered, geth} {
		st.AddBalance(account(3), uint256.NewInt(7), tracing.BalanceChangeUnspecified)
	}
	if got, want := layered.IntermediateRoot(true), geth.IntermediateRoot(true); got != want || layered.Error() != nil || geth.Error() != nil {
		t.Fatalf("an update away from the gap: root %s (error %v), go-ethereum's %s (error %v)", got, layered.Error(), want, geth.Error())
	}
	if layered.GetTrie().(*accountTrie).geth != nil {
		t.Fatal("an update away from the gap fell back to go-ethereum's trie")
	}

	layered, geth = open()
	for _, st := range []*state.StateDB{layered, geth} {
		st.AddBalance(account(3), uint256.NewInt(7), tracing.BalanceChangeUnspecified)
		st.AddBalance(victim, uint256.NewInt(1), tracing.BalanceChangeUnspecified)
	}
	layered.IntermediateRoot(true)
	geth.IntermediateRoot(true)
	// The StateDB formats the trie's error into its own (%v), so it is matched by its text.
	if geth.Error() == nil || !strings.Contains(geth.Error().Error(), "missing trie node") {
		t.Fatalf("go-ethereum's trie over the gap: error %v, want a missing trie node", geth.Error())
	}
	if layered.Error() == nil || layered.Error().Error() != geth.Error().Error() {
		t.Fatalf("an update over the gap: error %v, want go-ethereum's %v", layered.Error(), geth.Error())
	}
	if layered.GetTrie().(*accountTrie).geth == nil {
		t.Fatal("an update over the gap did not fall back to go-ethereum's trie")
	}
}

// gethTrieLayer is a memory layer whose tries are go-ethereum's, as a request's were before
// accountTrie and storageTrie: a copy of the layer's account trie, storage tries opened on
// the layer's nodes.
type gethTrieLayer struct{ *memLayer }

func (l gethTrieLayer) OpenStorageTrie(stateRoot common.Hash, address common.Address, root common.Hash, self state.Trie) (state.Trie, error) {
	if stateRoot != l.root {
		return l.memLayer.OpenStorageTrie(stateRoot, address, root, self)
	}
	return trie.NewStateTrie(trie.StorageTrieID(stateRoot, crypto.Keccak256Hash(address[:]), root), layerNodes{l.memLayer})
}

func (l gethTrieLayer) OpenTrie(root common.Hash) (state.Trie, error) {
	if root != l.root {
		return l.memLayer.OpenTrie(root)
	}
	return l.accountTrie.Copy(), nil
}

// accountLeafHash returns the hash of the leaf node holding addr in the account trie root
// of db (hash scheme); the leaf of an account is never embedded in its parent.
func accountLeafHash(t *testing.T, db ethdb.Database, root common.Hash, addr common.Address) common.Hash {
	t.Helper()
	return leafHash(t, db, trie.StateTrieID(root), crypto.Keccak256(addr[:]))
}

// copyDatabase returns a new memory database holding every key of src: the intact copy a
// test keeps while it deletes nodes from the other.
func copyDatabase(t *testing.T, src ethdb.Database) ethdb.Database {
	t.Helper()
	dst := rawdb.NewMemoryDatabase()
	it := src.NewIterator(nil, nil)
	defer it.Release()
	for it.Next() {
		if err := dst.Put(it.Key(), it.Value()); err != nil {
			t.Fatal(err)
		}
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	return dst
}
