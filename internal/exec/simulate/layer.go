package simulate

import (
	"errors"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/trie/trienode"
	"github.com/ethereum/go-ethereum/triedb/database"
)

// A memLayer is a state held in memory on top of a committed base state: what one state
// transition changed (accounts, slots, trie nodes), as a go-ethereum diff layer holds it, but
// private to this package. It is how a Base keeps its prepared state (base.go).
//
// Handing each request a StateDB.Copy of a prepared state cost a tenth of a one-call
// eth_simulateV1: go-ethereum deep-copies every loaded trie with its node tracers and every
// loaded account, the two system contracts' storage tries included, and the state root of
// every request then walked those accounts again. A StateDB opened on a memLayer's root
// starts empty instead and loads only what the request reads, from the layer or the base,
// so a request that never touches the system contracts never opens them.
//
// The layer is a state.Database whose only own root is its own: OpenTrie and
// OpenStorageTrie at that root read trie nodes from the layer and otherwise from the base
// root, Reader returns accounts and slots the same way, and Commit, called once while
// building, records the transition. A request's account trie on the layer is an
// accountTrie (accounttrie.go) and its storage tries storageTries (storagetrie.go), which
// share the nodes they decode with the layer's other requests. A memLayer is immutable once
// built and safe for concurrent use: its go-ethereum trie is only copied, its caches (node
// blobs, decoded nodes, account and slot keys) are guarded by their mutexes and hold
// immutable nodes, and go-ethereum's trie node readers of a root are safe for concurrent use.
type memLayer struct {
	state.Database              // the base's: tries and readers of other roots, code, type
	base           state.Reader // the base root's reader
	baseRoot, root common.Hash
	accounts       map[common.Address]*types.StateAccount
	slots          map[common.Address]map[common.Hash]common.Hash // by plain slot key
	nodes          map[common.Hash]map[string]*trienode.Node      // by owner and path
	reader         *layerReader
	// accountTrie is the layer's account trie with its root node decoded, never modified:
	// a request's accountTrie falls back to a copy of it (accounttrie.go).
	accountTrie *trie.StateTrie
	// decoded holds the account and storage trie nodes requests resolved, decoded, and keys
	// and slotKeys the trie keys of the accounts and slots they updated (accounttrie.go,
	// storagetrie.go).
	decoded  sharedCache[common.Hash, mptNode]   // trie nodes of the root, decoded, by hash (resolveNode)
	keys     sharedCache[common.Address, []byte] // account trie keys, as nibbles (accountKey)
	slotKeys sharedCache[common.Hash, []byte]    // storage trie keys, as nibbles (storageKey)
	// baseNodes reads the base's trie nodes; one for all requests (go-ethereum's readers of
	// a root are safe for concurrent use), where opening one looks the base root up again.
	baseNodes database.NodeReader
	// hot holds the base's node blobs requests read through the layer, by hash. A node's hash
	// is the Keccak-256 of its encoding, so a node found under its hash is that node in
	// whatever trie and path it is asked for; go-ethereum's trie decodes a blob without
	// copying it and never modifies it.
	hot sharedCache[common.Hash, []byte]
}

// errLayerShape reports a transition a memLayer does not hold: one that deletes or
// recreates accounts, changes code or has hashed slot keys. Building then fails and the
// caller does without a layer.
var errLayerShape = errors.New("state transition not held by a memory layer")

// buildMemLayer opens a StateDB on the root of base, which must be unmodified, lets change
// modify it and commits the result into a new layer, with the rules of the block number.
func buildMemLayer(base *state.StateDB, baseRoot common.Hash, rules params.Rules, number uint64, change func(*state.StateDB) error) (*memLayer, error) {
	if !rules.IsCancun {
		return nil, errLayerShape // slots would be keyed by their hashes
	}
	l := &memLayer{Database: base.Database(), base: base.Reader(), baseRoot: baseRoot}
	st, err := state.NewWithReader(baseRoot, l, l.base)
	if err != nil {
		return nil, err
	}
	if err := change(st); err != nil {
		return nil, err
	}
	// As go-ethereum's chain commits a block: empty accounts deleted from EIP-158 on,
	// storage never wiped (slots keyed by their plain keys) from Cancun on.
	if _, err := st.Commit(number, rules.IsEIP158, rules.IsCancun); err != nil {
		return nil, err
	}
	if l.reader == nil {
		return nil, errLayerShape // nothing changed, nothing committed
	}
	return l, nil
}

// Commit records the state transition from the base root; it is called once, by
// StateDB.Commit while building. The transition is read through StateUpdate's exported
// view (ToTracingUpdate): slots by plain key, since buildMemLayer commits under Cancun.
func (l *memLayer) Commit(su *state.StateUpdate) error {
	if l.reader != nil {
		return errors.New("memory layer already committed")
	}
	update, err := su.ToTracingUpdate()
	if err != nil {
		return err
	}
	if update.OriginRoot != l.baseRoot || len(update.CodeChanges) > 0 {
		return errLayerShape
	}
	l.accounts = make(map[common.Address]*types.StateAccount, len(update.AccountChanges))
	for addr, change := range update.AccountChanges {
		if change.New == nil || change.Prev == nil {
			return errLayerShape // deleted or created: slots of the base may not carry over
		}
		l.accounts[addr] = change.New
	}
	l.slots = make(map[common.Address]map[common.Hash]common.Hash, len(update.StorageChanges))
	for addr, changes := range update.StorageChanges {
		if _, ok := l.accounts[addr]; !ok {
			return errLayerShape
		}
		slots := make(map[common.Hash]common.Hash, len(changes))
		for slot, change := range changes {
			slots[slot] = change.New // zero: cleared
		}
		l.slots[addr] = slots
	}
	l.nodes = make(map[common.Hash]map[string]*trienode.Node, len(update.TrieChanges))
	for owner, changes := range update.TrieChanges {
		nodes := make(map[string]*trienode.Node, len(changes))
		for path, change := range changes {
			nodes[path] = change.New
		}
		l.nodes[owner] = nodes
	}
	l.root = update.Root
	if l.baseNodes, err = l.TrieDB().NodeReader(l.baseRoot); err != nil {
		return err
	}
	accountTrie, err := trie.NewStateTrie(trie.StateTrieID(l.root), layerNodes{l})
	if err != nil {
		return err
	}
	l.accountTrie = accountTrie
	l.reader = &layerReader{Reader: l.base, l: l}
	return nil
}

// newState opens a StateDB on the layer's root.
func (l *memLayer) newState() (*state.StateDB, error) {
	return state.NewWithReader(l.root, l, l.reader)
}

// Reader returns the reader of root: the layer's for its own.
func (l *memLayer) Reader(root common.Hash) (state.Reader, error) {
	if root == l.root && l.reader != nil {
		return l.reader, nil
	}
	return l.Database.Reader(root)
}

// OpenTrie opens the account trie of root, from the layer for its own: an accountTrie,
// whose decoded nodes all requests share.
func (l *memLayer) OpenTrie(root common.Hash) (state.Trie, error) {
	if root != l.root || l.reader == nil {
		return l.Database.OpenTrie(root)
	}
	return newAccountTrie(l), nil
}

// OpenStorageTrie opens a storage trie of the state stateRoot, from the layer for its own: a
// storageTrie, whose decoded nodes all requests share.
func (l *memLayer) OpenStorageTrie(stateRoot common.Hash, address common.Address, root common.Hash, self state.Trie) (state.Trie, error) {
	if stateRoot != l.root || l.reader == nil {
		return l.Database.OpenStorageTrie(stateRoot, address, root, self)
	}
	return newStorageTrie(l, address, root), nil
}

// layerNodes serves the trie nodes of the layer's root: the layer's own, then the base's.
type layerNodes struct{ l *memLayer }

func (n layerNodes) NodeReader(stateRoot common.Hash) (database.NodeReader, error) {
	return layerNodeReader{l: n.l}, nil
}

type layerNodeReader struct{ l *memLayer }

// Node returns the node at path in owner's trie. A node the transition wrote is the
// layer's; every other node of the layer's tries is where the base has it.
func (r layerNodeReader) Node(owner common.Hash, path []byte, hash common.Hash) ([]byte, error) {
	if n, ok := r.l.nodes[owner][string(path)]; ok && !n.IsDeleted() && n.Hash == hash {
		return n.Blob, nil
	}
	if blob, ok := r.l.hot.get(hash); ok {
		return blob, nil
	}
	blob, err := r.l.baseNodes.Node(owner, path, hash)
	if err == nil && len(blob) > 0 {
		r.l.hot.add(hash, blob, maxHotNodes)
	}
	return blob, err
}

// layerReader reads accounts and slots of the layer's root: the changed ones from the layer,
// the rest, and all code, from the base.
type layerReader struct {
	state.Reader
	l *memLayer
}

func (r *layerReader) Account(addr common.Address) (*types.StateAccount, error) {
	if account, ok := r.l.accounts[addr]; ok {
		return account.Copy(), nil
	}
	return r.Reader.Account(addr)
}

func (r *layerReader) Storage(addr common.Address, slot common.Hash) (common.Hash, error) {
	if value, ok := r.l.slots[addr][slot]; ok {
		return value, nil
	}
	return r.Reader.Storage(addr, slot)
}
