package simulate

import (
	"errors"
	"sync"

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
	t.updates = append(t.updates, accountUpdate{addr: address, enc: enc, codeLen: codeLen})
	root, _, err := mptInsert(t.root, nil, t.l.accountKey(address), enc, t.l.resolveAccountNode)
	if err != nil {
		return t.fallback().UpdateAccount(address, account, codeLen)
	}
	t.root = root
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

// The rest are go-ethereum's trie's, with the updates so far.

func (t *accountTrie) GetKey(key []byte) []byte { return t.fallback().GetKey(key) }

func (t *accountTrie) GetAccount(address common.Address) (*types.StateAccount, error) {
	return t.fallback().GetAccount(address)
}

func (t *accountTrie) PrefetchAccount(addresses []common.Address) error {
	return t.fallback().PrefetchAccount(addresses)
}

func (t *accountTrie) GetStorage(addr common.Address, key []byte) ([]byte, error) {
	return t.fallback().GetStorage(addr, key)
}

func (t *accountTrie) PrefetchStorage(addr common.Address, keys [][]byte) error {
	return t.fallback().PrefetchStorage(addr, keys)
}

func (t *accountTrie) UpdateStorage(addr common.Address, key, value []byte) error {
	return t.fallback().UpdateStorage(addr, key, value)
}

func (t *accountTrie) DeleteAccount(address common.Address) error {
	return t.fallback().DeleteAccount(address)
}

func (t *accountTrie) DeleteStorage(addr common.Address, key []byte) error {
	return t.fallback().DeleteStorage(addr, key)
}

func (t *accountTrie) Commit(collectLeaf bool) (common.Hash, *trienode.NodeSet) {
	return t.fallback().Commit(collectLeaf)
}

func (t *accountTrie) Witness() map[string][]byte { return t.fallback().Witness() }

func (t *accountTrie) NodeIterator(startKey []byte) (trie.NodeIterator, error) {
	return t.fallback().NodeIterator(startKey)
}

func (t *accountTrie) Prove(key []byte, proofDb ethdb.KeyValueWriter) error {
	return t.fallback().Prove(key, proofDb)
}

// erroredTrie is go-ethereum's trie after an update it refused while replaying: further
// updates fail with that error.
type erroredTrie struct {
	state.Trie
	err error
}

func (t erroredTrie) UpdateAccount(common.Address, *types.StateAccount, int) error { return t.err }
func (t erroredTrie) DeleteAccount(common.Address) error                           { return t.err }

// accountKey returns the key of address in the account trie, as nibbles: the layer keeps
// them for the accounts requests update, the same senders and fee vaults in every request
// on a head. The nibbles are shared and must not be modified.
func (l *memLayer) accountKey(address common.Address) []byte {
	l.keys.mu.RLock()
	key, ok := l.keys.nibbles[address]
	l.keys.mu.RUnlock()
	if ok {
		return key
	}
	key = keyNibbles(crypto.Keccak256(address[:]))
	l.keys.mu.Lock()
	defer l.keys.mu.Unlock()
	if l.keys.nibbles == nil {
		l.keys.nibbles = make(map[common.Address][]byte)
	}
	if len(l.keys.nibbles) < maxDecodedNodes {
		l.keys.nibbles[address] = key
	}
	return key
}

// accountKeys holds the account trie keys of addresses, as nibbles (accountKey). Safe for
// concurrent use.
type accountKeys struct {
	mu      sync.RWMutex
	nibbles map[common.Address][]byte
}

// maxDecodedNodes bounds a layer's decoded account nodes, as maxHotNodes its blobs, and
// the keys it keeps.
const maxDecodedNodes = maxHotNodes

// decodedNodes holds the account trie nodes of a layer's root, decoded, by hash. The nodes
// are immutable: inserts copy the nodes on their path. Safe for concurrent use.
type decodedNodes struct {
	mu    sync.RWMutex
	nodes map[common.Hash]mptNode
}

// errNoNode reports an account trie node the layer's databases do not have.
var errNoNode = errors.New("account trie node not found")

// resolveAccountNode returns the account trie node of the layer's root with hash ref at path.
func (l *memLayer) resolveAccountNode(ref mptRef, path []byte) (mptNode, error) {
	hash := common.BytesToHash(ref)
	l.decoded.mu.RLock()
	n, ok := l.decoded.nodes[hash]
	l.decoded.mu.RUnlock()
	if ok {
		return n, nil
	}
	blob, err := layerNodeReader{l: l}.Node(common.Hash{}, path, hash)
	if err != nil {
		return nil, err
	}
	if len(blob) == 0 {
		return nil, errNoNode
	}
	if n, err = mptDecode(blob, hash.Bytes()); err != nil {
		return nil, err
	}
	l.decoded.mu.Lock()
	defer l.decoded.mu.Unlock()
	if l.decoded.nodes == nil {
		l.decoded.nodes = make(map[common.Hash]mptNode)
	}
	if len(l.decoded.nodes) < maxDecodedNodes {
		l.decoded.nodes[hash] = n
	}
	return n, nil
}
