package simulate

import (
	"errors"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/trie/trienode"
)

// accountTrie is the account trie of a request's state on a memLayer (memLayer.OpenTrie): a
// simulated block's state root updates the accounts its calls changed and hashes their
// paths. Handing each request a copy of go-ethereum's trie, then resolving and decoding the
// same nodes on those paths again, was a third of the state root of a one-call request; here
// the nodes decoded from the layer are shared by all its requests (mpt.go), and an update
// copies only its path.
//
// It does updates and hashing. Anything else a StateDB may ask of its account trie (a
// deleted account, a proof, a commit) replays the updates so far on a copy of go-ethereum's
// trie, which serves from then on. A request whose node cannot be resolved or decoded falls
// back the same way, so it fails or succeeds as it would have on go-ethereum's trie.
//
// A StateDB on the layer must not be copied: go-ethereum's StateDB.Copy copies only its own
// trie types and panics on any other. None is (Base.firstState copies only the prepared
// state and the base's, which are go-ethereum's).
//
// Not safe for concurrent use, as go-ethereum's tries are not.
type accountTrie struct {
	l       *memLayer
	root    mptNode
	updates []accountUpdate // in order, for the fallback
	geth    state.Trie      // the fallback, once taken; then root and updates are unused
}

// accountUpdate is one UpdateAccount: the address and the account's RLP.
type accountUpdate struct {
	addr    common.Address
	enc     []byte
	codeLen int
}

var _ state.Trie = (*accountTrie)(nil)

func newAccountTrie(l *memLayer) *accountTrie {
	return &accountTrie{l: l, root: mptRef(l.root.Bytes())}
}

// fallback returns go-ethereum's trie with the updates so far, opened on the first call.
func (t *accountTrie) fallback() state.Trie {
	if t.geth != nil {
		return t.geth
	}
	t.geth = t.l.accountTrie.Copy()
	for _, u := range t.updates {
		var account types.StateAccount
		if err := rlp.DecodeBytes(u.enc, &account); err != nil {
			panic(err) // our own encoding of an account
		}
		if err := t.geth.UpdateAccount(u.addr, &account, u.codeLen); err != nil {
			// As if go-ethereum's trie had refused the update: the request fails
			// with the error of the next update or the hash.
			t.geth = erroredTrie{Trie: t.geth, err: err}
			break
		}
	}
	t.root, t.updates = nil, nil
	return t.geth
}

// UpdateAccount sets the account at address.
func (t *accountTrie) UpdateAccount(address common.Address, account *types.StateAccount, codeLen int) error {
	if t.geth != nil {
		return t.geth.UpdateAccount(address, account, codeLen)
	}
	enc, err := rlp.EncodeToBytes(account)
	if err != nil {
		return err
	}
	root, _, err := mptInsert(t.root, nil, t.l.accountKey(address), enc, t.l.resolveAccountNode)
	if err != nil {
		return t.fallback().UpdateAccount(address, account, codeLen)
	}
	t.root = root
	t.updates = append(t.updates, accountUpdate{addr: address, enc: enc, codeLen: codeLen})
	return nil
}

// DeleteAccount removes the account at address. An account that is not in the trie (one a
// call touched and left empty, as a precompile's address) is left out as go-ethereum's trie
// does, without falling back to it: only deleting a present account does.
func (t *accountTrie) DeleteAccount(address common.Address) error {
	if t.geth != nil {
		return t.geth.DeleteAccount(address)
	}
	present, err := mptHas(t.root, nil, t.l.accountKey(address), t.l.resolveAccountNode)
	if err != nil || present {
		return t.fallback().DeleteAccount(address)
	}
	return nil
}

// Hash returns the root hash of the trie.
func (t *accountTrie) Hash() common.Hash {
	if t.geth != nil {
		return t.geth.Hash()
	}
	return common.BytesToHash(mptRootRef(t.root))
}

// UpdateContractCode does nothing, as for go-ethereum's state trie: code is not in the trie.
func (t *accountTrie) UpdateContractCode(common.Address, common.Hash, []byte) error { return nil }

// IsVerkle reports false: a Merkle-Patricia trie.
func (t *accountTrie) IsVerkle() bool { return false }

// GetKey implements state.Trie on go-ethereum's trie with the updates so far.
func (t *accountTrie) GetKey(key []byte) []byte { return t.fallback().GetKey(key) }

// GetAccount implements state.Trie on go-ethereum's trie with the updates so far.
func (t *accountTrie) GetAccount(address common.Address) (*types.StateAccount, error) {
	return t.fallback().GetAccount(address)
}

// PrefetchAccount implements state.Trie on go-ethereum's trie with the updates so far.
func (t *accountTrie) PrefetchAccount(addresses []common.Address) error {
	return t.fallback().PrefetchAccount(addresses)
}

// GetStorage implements state.Trie on go-ethereum's trie with the updates so far.
func (t *accountTrie) GetStorage(addr common.Address, key []byte) ([]byte, error) {
	return t.fallback().GetStorage(addr, key)
}

// PrefetchStorage implements state.Trie on go-ethereum's trie with the updates so far.
func (t *accountTrie) PrefetchStorage(addr common.Address, keys [][]byte) error {
	return t.fallback().PrefetchStorage(addr, keys)
}

// UpdateStorage implements state.Trie on go-ethereum's trie with the updates so far.
func (t *accountTrie) UpdateStorage(addr common.Address, key, value []byte) error {
	return t.fallback().UpdateStorage(addr, key, value)
}

// DeleteStorage implements state.Trie on go-ethereum's trie with the updates so far.
func (t *accountTrie) DeleteStorage(addr common.Address, key []byte) error {
	return t.fallback().DeleteStorage(addr, key)
}

// Commit implements state.Trie on go-ethereum's trie with the updates so far.
func (t *accountTrie) Commit(collectLeaf bool) (common.Hash, *trienode.NodeSet) {
	return t.fallback().Commit(collectLeaf)
}

// Witness implements state.Trie on go-ethereum's trie with the updates so far.
func (t *accountTrie) Witness() map[string][]byte { return t.fallback().Witness() }

// NodeIterator implements state.Trie on go-ethereum's trie with the updates so far.
func (t *accountTrie) NodeIterator(startKey []byte) (trie.NodeIterator, error) {
	return t.fallback().NodeIterator(startKey)
}

// Prove implements state.Trie on go-ethereum's trie with the updates so far.
func (t *accountTrie) Prove(key []byte, proofDb ethdb.KeyValueWriter) error {
	return t.fallback().Prove(key, proofDb)
}

// erroredTrie is go-ethereum's trie after an update it refused while replaying: every call
// that can fail fails with that error. The error reaches the StateDB through the update or
// delete that took the fallback; Hash and Commit, which cannot fail, answer for the updates
// replayed before it, which no request uses: its state has failed.
type erroredTrie struct {
	state.Trie
	err error
}

func (t erroredTrie) UpdateAccount(common.Address, *types.StateAccount, int) error { return t.err }
func (t erroredTrie) DeleteAccount(common.Address) error                           { return t.err }
func (t erroredTrie) GetAccount(common.Address) (*types.StateAccount, error)       { return nil, t.err }
func (t erroredTrie) PrefetchAccount([]common.Address) error                       { return t.err }
func (t erroredTrie) GetStorage(common.Address, []byte) ([]byte, error)            { return nil, t.err }
func (t erroredTrie) PrefetchStorage(common.Address, [][]byte) error               { return t.err }
func (t erroredTrie) UpdateStorage(common.Address, []byte, []byte) error           { return t.err }
func (t erroredTrie) DeleteStorage(common.Address, []byte) error                   { return t.err }
func (t erroredTrie) NodeIterator([]byte) (trie.NodeIterator, error)               { return nil, t.err }
func (t erroredTrie) Prove([]byte, ethdb.KeyValueWriter) error                     { return t.err }

// accountKey returns the key of address in the account trie, as nibbles: the layer keeps
// them for the accounts requests update, the same senders and fee vaults in every request
// on a head. The nibbles are shared and must not be modified.
func (l *memLayer) accountKey(address common.Address) []byte {
	if key, ok := l.keys.get(address); ok {
		return key
	}
	key := keyNibbles(crypto.Keccak256(address[:]))
	l.keys.add(address, key, maxAccountKeys)
	return key
}

// Bounds of what a layer keeps for its requests' account and storage tries. A decoded full
// node is about 1.3 kB with the blob it shares and its map entry, so the decoded nodes (of
// both) are at most about 5 MB a layer, the account keys (65 nibbles and the address) about
// 0.6 MB, the slot keys (storagetrie.go) as much; the first ones requests reach are kept, the
// paths every request on a head walks.
const (
	maxDecodedNodes = maxHotNodes
	maxAccountKeys  = 4096
)

// errNoNode reports a trie node the layer's databases do not have.
var errNoNode = errors.New("trie node not found")

// resolveAccountNode returns the account trie node of the layer's root with hash ref at path.
func (l *memLayer) resolveAccountNode(ref mptRef, path []byte) (mptNode, error) {
	return l.resolveNode(common.Hash{}, ref, path)
}

// resolveNode returns the node with hash ref at path of owner's trie (the zero hash for the
// account trie, the Keccak-256 of an address for its storage trie) of the layer's root,
// decoded, from the nodes the layer's requests share. A node is the same under its hash
// whatever trie and path hold it, so one cache serves all tries.
func (l *memLayer) resolveNode(owner common.Hash, ref mptRef, path []byte) (mptNode, error) {
	hash := common.BytesToHash(ref)
	if n, ok := l.decoded.get(hash); ok {
		return n, nil
	}
	blob, err := layerNodeReader{l: l}.Node(owner, path, hash)
	if err != nil {
		return nil, err
	}
	if len(blob) == 0 {
		return nil, errNoNode
	}
	n, err := mptDecode(blob, hash.Bytes())
	if err != nil {
		return nil, err
	}
	l.decoded.add(hash, n, maxDecodedNodes)
	return n, nil
}
