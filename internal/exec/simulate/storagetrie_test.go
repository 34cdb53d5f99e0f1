package simulate

import (
	"bytes"
	"math/big"
	"math/rand/v2"
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

// TestStorageTrie: states on a memory layer, whose storage tries are storageTries, have
// go-ethereum's roots after every block of random slot changes on many accounts: new
// slots, changed slots, slots set to zero (deleted), accounts whose storage becomes empty
// and is filled again, accounts without storage that get some, a new account, storage
// replaced whole (a state override), slots the layer itself wrote; and none of them falls
// back to go-ethereum's trie for it.
func TestStorageTrie(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(30, 12))
	counts := make([]int, 48)
	for i := range counts {
		switch i % 4 {
		case 0: // no storage
		case 1:
			counts[i] = 1 + i%3
		case 2:
			counts[i] = 20 + i
		case 3:
			counts[i] = 200 + 10*i
		}
	}
	disk, root, slots := storageTestDB(t, rng, counts)
	inLayer := map[int]map[common.Hash]common.Hash{} // the layer's own slot changes
	for _, i := range []int{2, 3, 6, 7} {
		inLayer[i] = map[common.Hash]common.Hash{
			slots[i][0]:            {},                   // deleted
			slots[i][1]:            randomSlotValue(rng), // changed
			randomSlot(rng, false): randomSlotValue(rng), // new
		}
	}
	l := layerOver(t, disk, disk, root, func(st *state.StateDB) {
		for i, changes := range inLayer {
			for slot, value := range changes {
				st.SetState(storageAccount(i), slot, value)
			}
		}
	})
	for i, changes := range inLayer {
		for slot, value := range changes {
			slots[i] = setSlot(slots[i], slot, value)
		}
	}
	if len(l.nodes) < 2 {
		t.Fatalf("the layer holds the nodes of %d tries, want the account trie and storage tries", len(l.nodes))
	}

	layered, geth, opened := openBothStates(t, l)
	fresh := storageAccount(len(counts))
	var freshSlots []common.Hash
	emptied, deleted := 0, 0
	for block := range 8 {
		type change struct {
			addr        common.Address
			slot, value common.Hash
		}
		var changes []change
		set := func(i int, addr common.Address, have *[]common.Hash, slot, value common.Hash) {
			changes = append(changes, change{addr, slot, value})
			*have = setSlot(*have, slot, value)
			if value == (common.Hash{}) {
				deleted++
			}
		}
		for i := range counts {
			if rng.IntN(3) != 0 {
				continue
			}
			addr := storageAccount(i)
			for range 1 + rng.IntN(6) {
				switch r := rng.IntN(10); {
				case r < 3 && len(slots[i]) > 0: // deleted
					set(i, addr, &slots[i], slots[i][rng.IntN(len(slots[i]))], common.Hash{})
				case r < 6 && len(slots[i]) > 0: // changed
					set(i, addr, &slots[i], slots[i][rng.IntN(len(slots[i]))], randomSlotValue(rng))
				default: // new: a hashed key or a small one, as Solidity's
					set(i, addr, &slots[i], randomSlot(rng, r == 9), randomSlotValue(rng))
				}
			}
		}
		// The storage of a small account becomes empty (and is filled again the block
		// after: i%4 == 1 alternates), and an account with none gets some.
		small := 1 + 4*(block%6)
		hadSlots := len(slots[small]) > 0
		for _, slot := range append([]common.Hash(nil), slots[small]...) {
			set(small, storageAccount(small), &slots[small], slot, common.Hash{})
		}
		set(small+4, storageAccount(small+4), &slots[small+4], randomSlot(rng, false), randomSlotValue(rng))
		set(4*block, storageAccount(4*block), &slots[4*block], randomSlot(rng, false), randomSlotValue(rng))
		set(-1, fresh, &freshSlots, randomSlot(rng, false), randomSlotValue(rng))
		var replaced map[common.Hash]common.Hash
		if block == 3 { // a state override's storage: the account's storage replaced whole
			replaced = map[common.Hash]common.Hash{randomSlot(rng, false): randomSlotValue(rng), {}: randomSlotValue(rng)}
			slots[11] = nil
			for slot, value := range replaced {
				slots[11] = setSlot(slots[11], slot, value)
			}
		}
		for _, st := range []*state.StateDB{layered, geth} {
			st.AddBalance(fresh, uint256.NewInt(1), tracing.BalanceChangeUnspecified)
			for _, c := range changes {
				st.SetState(c.addr, c.slot, c.value)
			}
			if replaced != nil {
				st.SetStorage(storageAccount(11), replaced)
			}
		}
		got, want := layered.IntermediateRoot(true), geth.IntermediateRoot(true)
		if err := layered.Error(); err != nil {
			t.Fatalf("block %d: %v", block, err)
		}
		if got != want {
			t.Fatalf("block %d: layer root %s, go-ethereum's %s", block, got, want)
		}
		for i := range counts {
			if got, want := layered.GetStorageRoot(storageAccount(i)), geth.GetStorageRoot(storageAccount(i)); got != want {
				t.Fatalf("block %d, account %d: storage root %s, go-ethereum's %s", block, i, got, want)
			}
		}
		if len(slots[small]) != 0 || layered.GetStorageRoot(storageAccount(small)) != types.EmptyRootHash {
			t.Fatalf("block %d: account %d's storage did not become empty", block, small)
		}
		if hadSlots {
			emptied++
		}
	}
	if emptied == 0 || deleted < 50 || len(opened.all()) < len(counts)/2 {
		t.Fatalf("%d storages emptied, %d slots deleted, %d storage tries opened: the test did not exercise the trie", emptied, deleted, len(opened.all()))
	}
	for _, tr := range opened.all() {
		if tr.geth != nil {
			t.Fatalf("the storage trie of %s fell back to go-ethereum's trie", tr.addr)
		}
	}
}

// TestStorageTrieMissingNode: when a node of a storage trie is gone from the database, a
// request whose change needs it falls back to go-ethereum's trie and its state fails with
// go-ethereum's error (Run answers it as "read state: …"), for an update, a deletion and a
// trie whose root node is gone; a request whose changes do not reach the gap has
// go-ethereum's root without falling back. The database is a real one (hash scheme, as
// committed); the slots themselves are read from an intact copy, so that only the tries meet
// the gaps.
func TestStorageTrieMissingNode(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(30, 13))
	intact, root, slots := storageTestDB(t, rng, []int{300, 5, 4})
	disk := copyDatabase(t, intact)
	reader, err := state.NewDatabase(triedb.NewDatabase(intact, triedb.HashDefaults), nil).Reader(root)
	if err != nil {
		t.Fatal(err)
	}
	storageRoot := func(i int) common.Hash {
		account, err := reader.Account(storageAccount(i))
		if err != nil || account == nil {
			t.Fatalf("account %d: %v, %v", i, account, err)
		}
		return account.Root
	}
	victim := slots[0][150]
	rawdb.DeleteLegacyTrieNode(disk, leafHash(t, intact, trie.StorageTrieID(root, crypto.Keccak256Hash(storageAccount(0).Bytes()), storageRoot(0)), crypto.Keccak256(victim[:])))
	rawdb.DeleteLegacyTrieNode(disk, storageRoot(2))
	l := layerOver(t, disk, intact, root, func(st *state.StateDB) {
		st.SetState(storageAccount(1), slots[1][0], randomSlotValue(rng))
	})

	// Away from the gap: slots whose keys part from the victim's at the first nibble.
	layered, geth, opened := openBothStates(t, l)
	var away []common.Hash
	for _, slot := range slots[0] {
		if crypto.Keccak256(slot[:])[0]>>4 != crypto.Keccak256(victim[:])[0]>>4 && len(away) < 6 {
			away = append(away, slot)
		}
	}
	for _, st := range []*state.StateDB{layered, geth} {
		st.SetState(storageAccount(0), away[0], common.Hash{})
		for _, slot := range away[1:] {
			st.SetState(storageAccount(0), slot, common.Hash{0x44})
		}
		st.SetState(storageAccount(1), slots[1][2], common.Hash{})
	}
	if got, want := layered.IntermediateRoot(true), geth.IntermediateRoot(true); got != want || layered.Error() != nil || geth.Error() != nil {
		t.Fatalf("changes away from the gap: root %s (error %v), go-ethereum's %s (error %v)", got, layered.Error(), want, geth.Error())
	}
	if tries := opened.all(); len(tries) != 2 || tries[0].geth != nil || tries[1].geth != nil {
		t.Fatalf("changes away from the gap: %d storage tries opened, or one fell back to go-ethereum's trie", len(tries))
	}

	for _, tc := range []struct {
		name     string
		change   func(st *state.StateDB)
		rootGone bool // go-ethereum's trie cannot be opened: no fallback trie either
	}{
		{"an update over the gap", func(st *state.StateDB) { st.SetState(storageAccount(0), victim, common.Hash{0x45}) }, false},
		{"a deletion over the gap", func(st *state.StateDB) { st.SetState(storageAccount(0), victim, common.Hash{}) }, false},
		{"a trie without its root", func(st *state.StateDB) { st.SetState(storageAccount(2), slots[2][1], common.Hash{0x46}) }, true},
	} {
		layered, geth, opened := openBothStates(t, l)
		for _, st := range []*state.StateDB{layered, geth} {
			st.SetState(storageAccount(0), away[1], common.Hash{0x47}) // before it, in the same trie or not
			tc.change(st)
		}
		layered.IntermediateRoot(true)
		geth.IntermediateRoot(true)
		// The StateDB formats some trie errors into its own (%v), so they are matched by text.
		if geth.Error() == nil || !strings.Contains(geth.Error().Error(), "missing trie node") {
			t.Fatalf("%s: go-ethereum's error %v, want a missing trie node", tc.name, geth.Error())
		}
		if layered.Error() == nil || layered.Error().Error() != geth.Error().Error() {
			t.Fatalf("%s: error %v, want go-ethereum's %v", tc.name, layered.Error(), geth.Error())
		}
		fellBack := 0
		for _, tr := range opened.all() {
			if tr.geth != nil {
				fellBack++
			}
		}
		if want := map[bool]int{false: 1, true: 0}[tc.rootGone]; fellBack != want {
			t.Fatalf("%s: %d of %d storage tries fell back to go-ethereum's trie, want %d", tc.name, fellBack, len(opened.all()), want)
		}
	}
}

// storageAccount is the i-th account of storageTestDB.
func storageAccount(i int) common.Address { return common.Address{0x5a, byte(i >> 8), byte(i)} }

// randomSlot returns a random slot key: a small one, as Solidity's first variables, or one
// spread over 32 bytes, as a mapping's.
func randomSlot(rng *rand.Rand, small bool) common.Hash {
	if small {
		return common.BigToHash(big.NewInt(int64(rng.IntN(16))))
	}
	var slot common.Hash
	for i := range slot {
		slot[i] = byte(rng.UintN(256))
	}
	return slot
}

// randomSlotValue returns a random non-zero value of 1 to 32 significant bytes: a single
// byte below 0x80 is its own RLP, the others have a header.
func randomSlotValue(rng *rand.Rand) common.Hash {
	var v common.Hash
	for i := common.HashLength - 1 - rng.IntN(common.HashLength); i < common.HashLength; i++ {
		v[i] = byte(rng.UintN(256))
	}
	v[common.HashLength-1] |= 1
	return v
}

// setSlot returns the slots of an account after slot is set to value: without it when value
// is zero.
func setSlot(have []common.Hash, slot, value common.Hash) []common.Hash {
	for i, s := range have {
		if s == slot {
			if value == (common.Hash{}) {
				return append(have[:i:i], have[i+1:]...)
			}
			return have
		}
	}
	if value == (common.Hash{}) {
		return have
	}
	return append(have, slot)
}

// storageTestDB commits a state of accounts, the i-th with counts[i] random slots, into a
// new hash-scheme database, and returns it, the root and each account's slots.
func storageTestDB(t *testing.T, rng *rand.Rand, counts []int) (ethdb.Database, common.Hash, [][]common.Hash) {
	t.Helper()
	disk := rawdb.NewMemoryDatabase()
	st, err := state.New(types.EmptyRootHash, state.NewDatabase(triedb.NewDatabase(disk, triedb.HashDefaults), nil))
	if err != nil {
		t.Fatal(err)
	}
	slots := make([][]common.Hash, len(counts))
	for i, n := range counts {
		st.SetNonce(storageAccount(i), 1, tracing.NonceChangeUnspecified)
		for j := range n {
			slot := randomSlot(rng, j%10 == 9)
			st.SetState(storageAccount(i), slot, randomSlotValue(rng))
			slots[i] = setSlot(slots[i], slot, common.Hash{1})
		}
	}
	root, err := st.Commit(0, true, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Database().TrieDB().Commit(root, false); err != nil {
		t.Fatal(err)
	}
	return disk, root, slots
}

// layerOver builds a memory layer over root: tries from disk (a fresh trie database, so that
// no cache holds a node deleted from it), accounts and slots from intact.
func layerOver(t *testing.T, disk, intact ethdb.Database, root common.Hash, change func(*state.StateDB)) *memLayer {
	t.Helper()
	reader, err := state.NewDatabase(triedb.NewDatabase(intact, triedb.HashDefaults), nil).Reader(root)
	if err != nil {
		t.Fatal(err)
	}
	base, err := state.NewWithReader(root, state.NewDatabase(triedb.NewDatabase(disk, triedb.HashDefaults), nil), reader)
	if err != nil {
		t.Fatal(err)
	}
	rules := params.MergedTestChainConfig.Rules(big.NewInt(1), true, 0)
	l, err := buildMemLayer(base, root, rules, 1, func(st *state.StateDB) error {
		change(st)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// openBothStates opens a state on the layer, whose storage tries it records as they are
// opened, and one on the same layer with go-ethereum's tries. The states are not made
// single-threaded: their IntermediateRoot updates and hashes the storage tries on
// goroutines of their own, so that -race sees tries of one layer used at once.
func openBothStates(t *testing.T, l *memLayer) (layered, geth *state.StateDB, opened *openedTries) {
	t.Helper()
	opened = new(openedTries)
	layered, err := state.NewWithReader(l.root, recordingLayer{l, opened}, l.reader)
	if err != nil {
		t.Fatal(err)
	}
	geth, err = state.NewWithReader(l.root, gethTrieLayer{l}, l.reader)
	if err != nil {
		t.Fatal(err)
	}
	return layered, geth, opened
}

// recordingLayer is a memory layer that records the storage tries it opens.
type recordingLayer struct {
	*memLayer
	opened *openedTries
}

func (l recordingLayer) OpenStorageTrie(stateRoot common.Hash, address common.Address, root common.Hash, self state.Trie) (state.Trie, error) {
	tr, err := l.memLayer.OpenStorageTrie(stateRoot, address, root, self)
	if st, ok := tr.(*storageTrie); ok {
		l.opened.mu.Lock()
		defer l.opened.mu.Unlock()
		l.opened.tries = append(l.opened.tries, st)
	}
	return tr, err
}

// openedTries are the storage tries a recordingLayer opened, on the goroutines of a state's
// IntermediateRoot.
type openedTries struct {
	mu    sync.Mutex
	tries []*storageTrie
}

// all returns the tries opened so far; read it once the state's root is computed.
func (o *openedTries) all() []*storageTrie {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.tries
}

// leafHash returns the hash of the leaf node holding key (unhashed: the trie is a secure
// one) in the trie id of db (hash scheme); the leaf must not be embedded in its parent.
func leafHash(t *testing.T, db ethdb.Database, id *trie.ID, key []byte) common.Hash {
	t.Helper()
	tr, err := trie.New(id, triedb.NewDatabase(db, triedb.HashDefaults))
	if err != nil {
		t.Fatal(err)
	}
	it, err := tr.NodeIterator(nil)
	if err != nil {
		t.Fatal(err)
	}
	var last common.Hash
	for it.Next(true) {
		if it.Hash() != (common.Hash{}) {
			last = it.Hash()
		}
		if it.Leaf() && bytes.Equal(it.LeafKey(), key) {
			return last
		}
	}
	t.Fatalf("no leaf for %x in the trie (iterator error %v)", key, it.Error())
	return common.Hash{}
}

// TestAccountHash: the owner of a storage trie taken from the layer's account key is the
// Keccak-256 of the address, kept or not.
func TestAccountHash(t *testing.T) {
	t.Parallel()
	l := &memLayer{}
	for i := range 300 {
		addr := common.Address{byte(i), 0xee, byte(i * 13)}
		for range 2 { // computed, then kept
			if got, want := l.accountHash(addr), crypto.Keccak256Hash(addr[:]); got != want {
				t.Fatalf("account hash of %s: %s, want %s", addr, got, want)
			}
		}
	}
}

// oneStorage commits one account (storageAccount(0)) with n random slots and returns them,
// and open, which opens its storage trie on a layer over that state, and go-ethereum's.
func oneStorage(t *testing.T, rng *rand.Rand, n int) (open func(*testing.T) (*storageTrie, state.Trie), slots []common.Hash) {
	t.Helper()
	disk, root, all := storageTestDB(t, rng, []int{n})
	l := layerOver(t, disk, disk, root, func(*state.StateDB) {})
	addr := storageAccount(0)
	st, err := state.New(root, state.NewDatabase(triedb.NewDatabase(disk, triedb.HashDefaults), nil))
	if err != nil {
		t.Fatal(err)
	}
	storageRoot := st.GetStorageRoot(addr)
	return func(t *testing.T) (*storageTrie, state.Trie) {
		t.Helper()
		geth, err := trie.NewStateTrie(trie.StorageTrieID(root, crypto.Keccak256Hash(addr[:]), storageRoot), triedb.NewDatabase(disk, triedb.HashDefaults))
		if err != nil {
			t.Fatal(err)
		}
		return newStorageTrie(l, addr, storageRoot), geth
	}, all[0]
}

// TestStorageTrieFallbackReplay: a storage trie that falls back to go-ethereum's trie (here on
// a read, which no state on a layer makes) replays every change made before, in order: its
// root equals that of go-ethereum's trie given the same changes, when it falls back and after
// more changes.
func TestStorageTrieFallbackReplay(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 19))
	open, slots := oneStorage(t, rng, 300)
	ours, geth := open(t)
	addr := storageAccount(0)
	have := slots
	change := func(n int) {
		t.Helper()
		for range n {
			var slot, value common.Hash
			switch r := rng.IntN(10); {
			case r < 4 && len(have) > 0: // deleted
				slot = have[rng.IntN(len(have))]
			case r < 7 && len(have) > 0: // changed
				slot, value = have[rng.IntN(len(have))], randomSlotValue(rng)
			default:
				slot, value = randomSlot(rng, r == 9), randomSlotValue(rng)
			}
			have = setSlot(have, slot, value)
			for _, tr := range []state.Trie{ours, geth} {
				var err error
				if value == (common.Hash{}) {
					err = tr.DeleteStorage(addr, slot[:])
				} else {
					err = tr.UpdateStorage(addr, slot[:], common.TrimLeftZeroes(value[:]))
				}
				if err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	change(200)
	if ours.geth != nil {
		t.Fatal("fell back before the read")
	}
	if got, want := ours.Hash(), geth.Hash(); got != want {
		t.Fatalf("before the fallback: root %s, go-ethereum's %s", got, want)
	}
	if _, err := ours.GetStorage(addr, have[0][:]); err != nil {
		t.Fatal(err)
	}
	if ours.geth == nil {
		t.Fatal("a read did not fall back")
	}
	if got, want := ours.Hash(), geth.Hash(); got != want {
		t.Fatalf("after the fallback: root %s, go-ethereum's %s (the replay lost changes)", got, want)
	}
	change(50)
	if got, want := ours.Hash(), geth.Hash(); got != want {
		t.Fatalf("after more changes: root %s, go-ethereum's %s", got, want)
	}
}

// TestStorageTrieOddInput: a key that is not 32 bytes, or a value longer than 32, which no
// StateDB passes, goes to go-ethereum's trie, which keeps and encodes them as it would.
func TestStorageTrieOddInput(t *testing.T) {
	t.Parallel()
	open, _ := oneStorage(t, rand.New(rand.NewPCG(3, 5)), 20)
	addr := storageAccount(0)
	for _, c := range []struct {
		name       string
		key, value []byte
	}{
		{"a short key", []byte{1, 2, 3}, []byte{7}},
		{"a long value", common.Hash{9}.Bytes(), bytes.Repeat([]byte{0xab}, 60)},
	} {
		t.Run(c.name, func(t *testing.T) {
			ours, geth := open(t)
			for _, tr := range []state.Trie{ours, geth} {
				if err := tr.UpdateStorage(addr, c.key, c.value); err != nil {
					t.Fatal(err)
				}
			}
			if ours.geth == nil {
				t.Fatal("did not go to go-ethereum's trie")
			}
			if got, want := ours.Hash(), geth.Hash(); got != want {
				t.Fatalf("root %s, go-ethereum's %s", got, want)
			}
		})
	}
}

// TestStorageTrieConcurrentRequests: requests on one layer, six at once and then three after
// them, change and delete slots of the same contracts over three blocks each: every one has
// go-ethereum's roots and none falls back. A shared node changed in place would show in the
// others' roots (and to -race).
func TestStorageTrieConcurrentRequests(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 23))
	counts := []int{0, 3, 40, 300, 300, 120}
	disk, root, slots := storageTestDB(t, rng, counts)
	l := layerOver(t, disk, disk, root, func(*state.StateDB) {})
	type request struct{ layered, geth *state.StateDB }
	open := func(n int) []request {
		rs := make([]request, n)
		for i := range rs {
			rs[i].layered, rs[i].geth, _ = openBothStates(t, l)
		}
		return rs
	}
	run := func(g int, r request) {
		rng := rand.New(rand.NewPCG(uint64(g), 99))
		have := make([][]common.Hash, len(slots))
		for i := range slots {
			have[i] = append([]common.Hash(nil), slots[i]...)
		}
		for block := range 3 {
			for range 40 {
				i := rng.IntN(len(counts))
				slot, value := randomSlot(rng, rng.IntN(5) == 0), randomSlotValue(rng)
				if len(have[i]) > 0 && rng.IntN(10) < 7 { // mostly deletions of slots there
					slot, value = have[i][rng.IntN(len(have[i]))], common.Hash{}
				}
				have[i] = setSlot(have[i], slot, value)
				for _, st := range []*state.StateDB{r.layered, r.geth} {
					st.SetState(storageAccount(i), slot, value)
				}
			}
			if got, want := r.layered.IntermediateRoot(true), r.geth.IntermediateRoot(true); got != want {
				t.Errorf("request %d, block %d: layer root %s, go-ethereum's %s", g, block, got, want)
				return
			}
		}
	}
	var wg sync.WaitGroup
	for g, r := range open(6) {
		wg.Go(func() { run(g, r) })
	}
	wg.Wait()
	for g, r := range open(3) {
		run(6+g, r)
	}
}
