package simulate

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/trie/trienode"
)

// storageTrie is the storage trie of one account in a request's state on a memLayer
// (memLayer.OpenStorageTrie): each simulated block's state root writes the slots its calls
// changed and hashes the account's storage. On go-ethereum's trie every request opened the
// storage tries of the contracts it called afresh, resolved and decoded the same nodes of
// them again and hashed every slot key; here, as for the account trie (accounttrie.go), the
// nodes decoded from the layer are shared by all its requests (mpt.go), an update or deletion
// copies only its path, hashing encodes only new nodes, and the layer keeps the slot keys.
//
// It does updates, deletions (a slot set to zero) and hashing. Anything else a StateDB may
// ask of a storage trie (a read, a proof, a commit) replays the changes so far on
// go-ethereum's trie of the same account and root, which serves from then on. A change whose
// node cannot be resolved or decoded falls back the same way, so a request fails or succeeds
// as it would have on go-ethereum's trie, with its error.
//
// As the account trie, it must not be copied (StateDB.Copy panics on it); no state on a layer
// is copied. Not safe for concurrent use, as go-ethereum's tries are not.
type storageTrie struct {
	l       *memLayer
	addr    common.Address
	owner   common.Hash // the Keccak-256 of addr: the trie's owner in the node database
	opened  common.Hash // the storage root it was opened at
	root    mptNode     // nil when the storage is empty
	resolve mptResolver
	changes []storageChange // in order, for the fallback; as many as the request's SSTOREs, which its gas bounds
	geth    state.Trie      // the fallback, once taken; then root and changes are unused
}

// storageChange is one UpdateStorage (value is the RLP of the trimmed value, as go-ethereum's
// leaf holds it) or DeleteStorage (value nil).
type storageChange struct {
	slot  common.Hash
	value mptValue
}

var _ state.Trie = (*storageTrie)(nil)

// maxSlotKeys bounds the slot keys a layer keeps (storageKey).
const maxSlotKeys = 4096

// newStorageTrie opens the storage trie of addr at root on l. The zero hash is an empty trie,
// as go-ethereum's trie.New takes it.
func newStorageTrie(l *memLayer, addr common.Address, root common.Hash) *storageTrie {
	t := &storageTrie{l: l, addr: addr, owner: l.accountHash(addr), opened: root}
	if root != types.EmptyRootHash && root != (common.Hash{}) {
		t.root = mptRef(root.Bytes())
	}
	t.resolve = func(ref mptRef, path []byte) (mptNode, error) { return l.resolveNode(t.owner, ref, path) }
	return t
}

// fallback returns go-ethereum's trie with the changes so far, opened on the first call, or
// the error of opening it (its root node missing), which it returns again on the next.
func (t *storageTrie) fallback() (state.Trie, error) {
	if t.geth != nil {
		return t.geth, nil
	}
	tr, err := trie.NewStateTrie(trie.StorageTrieID(t.l.root, t.owner, t.opened), layerNodes{t.l})
	if err != nil {
		return nil, err
	}
	t.geth = tr
	for _, c := range t.changes {
		if err := replayStorageChange(tr, t.addr, c); err != nil {
			// As if go-ethereum's trie had refused the change: the request fails with
			// the error of the next change.
			t.geth = erroredTrie{Trie: tr, err: err}
			break
		}
	}
	t.root, t.changes = nil, nil
	return t.geth, nil
}

// replayStorageChange applies c to go-ethereum's trie tr of addr.
func replayStorageChange(tr state.Trie, addr common.Address, c storageChange) error {
	if c.value == nil {
		return tr.DeleteStorage(addr, c.slot[:])
	}
	value, _, err := rlp.SplitString(c.value)
	if err != nil {
		panic(err) // our own encoding of a value
	}
	return tr.UpdateStorage(addr, c.slot[:], value)
}

// UpdateStorage sets the slot key to value (the slot's value without its leading zeros).
func (t *storageTrie) UpdateStorage(addr common.Address, key, value []byte) error {
	if t.geth != nil {
		return t.geth.UpdateStorage(addr, key, value)
	}
	if len(key) != common.HashLength || len(value) > common.HashLength {
		// Not a StateDB's slot or value (they are 32 bytes at most): go-ethereum's trie
		// keeps the key and encodes the value as it would.
		tr, err := t.fallback()
		if err != nil {
			return err
		}
		return tr.UpdateStorage(addr, key, value)
	}
	enc := storageValue(value)
	root, _, err := mptInsert(t.root, nil, t.l.storageKey(key), enc, t.resolve)
	if err != nil {
		tr, err := t.fallback()
		if err != nil {
			return err
		}
		return tr.UpdateStorage(addr, key, value)
	}
	t.root = root
	t.changes = append(t.changes, storageChange{slot: common.BytesToHash(key), value: enc})
	return nil
}

// DeleteStorage removes the slot key: the StateDB deletes a slot set to zero.
func (t *storageTrie) DeleteStorage(addr common.Address, key []byte) error {
	if t.geth != nil {
		return t.geth.DeleteStorage(addr, key)
	}
	if len(key) != common.HashLength { // not a StateDB's slot: as UpdateStorage
		tr, err := t.fallback()
		if err != nil {
			return err
		}
		return tr.DeleteStorage(addr, key)
	}
	root, _, err := mptDelete(t.root, nil, t.l.storageKey(key), t.resolve)
	if err != nil {
		tr, err := t.fallback()
		if err != nil {
			return err
		}
		return tr.DeleteStorage(addr, key)
	}
	t.root = root
	t.changes = append(t.changes, storageChange{slot: common.BytesToHash(key)})
	return nil
}

// Hash returns the root hash of the trie.
func (t *storageTrie) Hash() common.Hash {
	if t.geth != nil {
		return t.geth.Hash()
	}
	if t.root == nil {
		return types.EmptyRootHash
	}
	return common.BytesToHash(mptRootRef(t.root))
}

// storageValue returns the RLP of a slot's trimmed value, as go-ethereum's StateTrie stores
// it in the leaf: the byte itself below 0x80, else a string of up to 32 bytes (UpdateStorage
// takes longer values to go-ethereum's trie).
func storageValue(value []byte) mptValue {
	if len(value) == 1 && value[0] < 0x80 {
		return mptValue{value[0]}
	}
	enc := make(mptValue, 1+len(value))
	enc[0] = 0x80 + byte(len(value))
	copy(enc[1:], value)
	return enc
}

// storageKey returns the key of a slot in a storage trie, as nibbles: the layer keeps them
// for the slots requests change, the same token balances and pool reserves in every request
// on a head. The nibbles are shared and must not be modified. A StateDB's slots are 32
// bytes; a key of another length is hashed and not kept.
func (l *memLayer) storageKey(slot []byte) []byte {
	if len(slot) != common.HashLength {
		return keyNibbles(crypto.Keccak256(slot))
	}
	s := common.Hash(slot)
	if key, ok := l.slotKeys.get(s); ok {
		return key
	}
	key := keyNibbles(crypto.Keccak256(slot))
	l.slotKeys.add(s, key, maxSlotKeys)
	return key
}

// accountHash returns the Keccak-256 of address, the owner of its storage trie, from the
// account key the layer keeps for it (the contracts requests call are the accounts they
// update).
func (l *memLayer) accountHash(address common.Address) common.Hash {
	var hash common.Hash
	key := l.accountKey(address)
	for i := range hash {
		hash[i] = key[2*i]<<4 | key[2*i+1]
	}
	return hash
}

// UpdateContractCode does nothing: code is not in a storage trie.
func (t *storageTrie) UpdateContractCode(common.Address, common.Hash, []byte) error { return nil }

// IsVerkle reports false: a Merkle-Patricia trie.
func (t *storageTrie) IsVerkle() bool { return false }

// The methods below are go-ethereum's trie's, with the changes so far. Those that cannot
// return an error answer from the shared trie (Hash) or with nothing when go-ethereum's
// trie cannot be opened: its StateDB has failed by then (the change that opened it returned
// the error), and go-ethereum's StateDB neither commits nor proves after an error.

// GetKey implements state.Trie on go-ethereum's trie.
func (t *storageTrie) GetKey(key []byte) []byte {
	tr, err := t.fallback()
	if err != nil {
		return nil
	}
	return tr.GetKey(key)
}

// GetAccount implements state.Trie on go-ethereum's trie.
func (t *storageTrie) GetAccount(address common.Address) (*types.StateAccount, error) {
	tr, err := t.fallback()
	if err != nil {
		return nil, err
	}
	return tr.GetAccount(address)
}

// PrefetchAccount implements state.Trie on go-ethereum's trie.
func (t *storageTrie) PrefetchAccount(addresses []common.Address) error {
	tr, err := t.fallback()
	if err != nil {
		return err
	}
	return tr.PrefetchAccount(addresses)
}

// GetStorage implements state.Trie on go-ethereum's trie.
func (t *storageTrie) GetStorage(addr common.Address, key []byte) ([]byte, error) {
	tr, err := t.fallback()
	if err != nil {
		return nil, err
	}
	return tr.GetStorage(addr, key)
}

// PrefetchStorage implements state.Trie on go-ethereum's trie.
func (t *storageTrie) PrefetchStorage(addr common.Address, keys [][]byte) error {
	tr, err := t.fallback()
	if err != nil {
		return err
	}
	return tr.PrefetchStorage(addr, keys)
}

// UpdateAccount implements state.Trie on go-ethereum's trie.
func (t *storageTrie) UpdateAccount(address common.Address, account *types.StateAccount, codeLen int) error {
	tr, err := t.fallback()
	if err != nil {
		return err
	}
	return tr.UpdateAccount(address, account, codeLen)
}

// DeleteAccount implements state.Trie on go-ethereum's trie.
func (t *storageTrie) DeleteAccount(address common.Address) error {
	tr, err := t.fallback()
	if err != nil {
		return err
	}
	return tr.DeleteAccount(address)
}

// Commit implements state.Trie on go-ethereum's trie.
func (t *storageTrie) Commit(collectLeaf bool) (common.Hash, *trienode.NodeSet) {
	tr, err := t.fallback()
	if err != nil {
		return t.Hash(), nil
	}
	return tr.Commit(collectLeaf)
}

// Witness implements state.Trie on go-ethereum's trie.
func (t *storageTrie) Witness() map[string][]byte {
	tr, err := t.fallback()
	if err != nil {
		return nil
	}
	return tr.Witness()
}

// NodeIterator implements state.Trie on go-ethereum's trie.
func (t *storageTrie) NodeIterator(startKey []byte) (trie.NodeIterator, error) {
	tr, err := t.fallback()
	if err != nil {
		return nil, err
	}
	return tr.NodeIterator(startKey)
}

// Prove implements state.Trie on go-ethereum's trie.
func (t *storageTrie) Prove(key []byte, proofDb ethdb.KeyValueWriter) error {
	tr, err := t.fallback()
	if err != nil {
		return err
	}
	return tr.Prove(key, proofDb)
}
