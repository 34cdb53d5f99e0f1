package chain

import (
	"bytes"
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/holiman/uint256"
)

// TestFlushStateInParts: flushState leaves the database as go-ethereum's one Commit of the
// root does, byte for byte, with as much left in memory: twin trie databases take the same
// blocks, one flushed in parts, the other by hashdb's Commit, and after each block both disks
// hold the same keys and values. The blocks: one account with storage (the root a short node
// whose storage trie hangs under it), a second account, six of random changes (new and changed
// accounts, storage set, changed and cleared, an account's storage replaced; a root of many
// children, so that the flush goes in parts), and one with no change (its root on disk
// already). Each state is then read back from disk alone.
func TestFlushStateInParts(t *testing.T) {
	t.Parallel()
	parts, whole := rawdb.NewMemoryDatabase(), rawdb.NewMemoryDatabase()
	partsDB, wholeDB := triedb.NewDatabase(parts, triedb.HashDefaults), triedb.NewDatabase(whole, triedb.HashDefaults)
	rng := rand.New(rand.NewPCG(1, 2))
	slot := func(n uint64) common.Hash { return common.BigToHash(new(big.Int).SetUint64(n)) }
	blocks := [][]accountChange{
		{{addr: common.Address{1}, balance: 1, slots: map[common.Hash]common.Hash{slot(1): slot(2), slot(3): slot(4), slot(5): slot(6)}}},
		{{addr: common.Address{2}, balance: 2}},
	}
	for block := uint64(3); block <= 8; block++ {
		blocks = append(blocks, randomChanges(rng, block))
	}
	blocks = append(blocks, nil)
	root := types.EmptyRootHash
	for i, changes := range blocks {
		block := uint64(i + 1)
		got := commitChanges(t, partsDB, root, block, changes)
		want := commitChanges(t, wholeDB, root, block, changes)
		if got != want {
			t.Fatalf("block %d: roots %s and %s of the same changes", block, got, want)
		}
		if err := flushState(partsDB, got); err != nil {
			t.Fatalf("block %d: flushState: %v", block, err)
		}
		if err := wholeDB.Commit(want, false); err != nil {
			t.Fatal(err)
		}
		if err := sameContents(parts, whole); err != nil {
			t.Fatalf("block %d: %v", block, err)
		}
		if _, dirty, _ := partsDB.Size(); dirty != wholeSize(wholeDB) {
			t.Fatalf("block %d: %v of trie nodes in memory after flushState, %v after Commit", block, dirty, wholeSize(wholeDB))
		}
		if block >= 3 && block <= 8 {
			var children int
			trie.ForGatherChildren(rawdb.ReadLegacyTrieNode(parts, got), func(common.Hash) { children++ })
			if children < 2 {
				t.Fatalf("block %d: the root has %d children: the flush did not go in parts", block, children)
			}
		}
		// Read back from disk alone: a fresh trie database over the same disk.
		st, err := state.New(got, state.NewDatabase(triedb.NewDatabase(parts, triedb.HashDefaults), nil))
		if err != nil {
			t.Fatalf("block %d: state from disk: %v", block, err)
		}
		if v := st.GetState(common.Address{1}, slot(3)); v != slot(4) {
			t.Fatalf("block %d: a slot of the first block read back from disk: %s", block, v)
		}
		root = got
	}
	if err := flushState(partsDB, types.EmptyRootHash); err != nil {
		t.Fatalf("flushState of the empty state: %v", err)
	}
	if err := flushState(partsDB, common.Hash{1}); err == nil {
		t.Fatal("flushState of a root that is nowhere: no error")
	}
}

// wholeSize is the size of db's dirty trie nodes.
func wholeSize(db *triedb.Database) common.StorageSize {
	_, dirty, _ := db.Size()
	return dirty
}

// accountChange is one account's change in a block: its balance, and slots to set (a zero
// value clears the slot); wipe replaces its storage with slots alone.
type accountChange struct {
	addr    common.Address
	balance uint64
	slots   map[common.Hash]common.Hash
	wipe    bool
}

// randomChanges returns block's changes: 300 accounts drawn from 600, a third of them with
// storage changes, some slots cleared, and now and then an account's storage replaced.
func randomChanges(rng *rand.Rand, block uint64) []accountChange {
	var changes []accountChange
	for range 300 {
		c := accountChange{addr: common.BigToAddress(uint256.NewInt(rng.Uint64N(600) + 1).ToBig()), balance: block*1000 + rng.Uint64N(1000)}
		if rng.IntN(3) == 0 {
			c.slots = map[common.Hash]common.Hash{}
			for range 1 + rng.IntN(12) {
				var value common.Hash
				if rng.IntN(4) != 0 {
					value = common.BigToHash(uint256.NewInt(rng.Uint64() | 1).ToBig())
				}
				c.slots[common.BigToHash(uint256.NewInt(rng.Uint64N(40)).ToBig())] = value
			}
			c.wipe = rng.IntN(20) == 0
		}
		changes = append(changes, c)
	}
	return changes
}

// commitChanges applies changes to the state of root in db and commits it to db's memory.
func commitChanges(t *testing.T, db *triedb.Database, root common.Hash, block uint64, changes []accountChange) common.Hash {
	t.Helper()
	st, err := state.New(root, state.NewDatabase(db, nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		st.SetBalance(c.addr, uint256.NewInt(c.balance), tracing.BalanceChangeUnspecified)
		if c.wipe {
			st.SetStorage(c.addr, c.slots)
			continue
		}
		for k, v := range c.slots {
			st.SetState(c.addr, k, v)
		}
	}
	got, err := st.Commit(block, true, false)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// sameContents returns an error naming the first key on which two databases differ.
func sameContents(a, b ethdb.Database) error {
	ia, ib := a.NewIterator(nil, nil), b.NewIterator(nil, nil)
	defer ia.Release()
	defer ib.Release()
	for n := 0; ; n++ {
		na, nb := ia.Next(), ib.Next()
		switch {
		case !na && !nb:
			if n == 0 {
				return fmt.Errorf("both databases are empty")
			}
			return nil
		case na != nb:
			return fmt.Errorf("after %d equal keys one database has more (flushed in parts: %v)", n, na)
		case !bytes.Equal(ia.Key(), ib.Key()) || !bytes.Equal(ia.Value(), ib.Value()):
			return fmt.Errorf("key %d: %x=%x in parts, %x=%x whole", n, ia.Key(), ia.Value(), ib.Key(), ib.Value())
		}
	}
}
