package simulate

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/trie/trienode"
	"github.com/ethereum/go-ethereum/triedb"
)

// TestMPTInsert: inserting into a committed trie whose nodes are resolved from their
// encodings gives go-ethereum's root, for keys of a secure trie's length with values of an
// account's size and for short keys with one-byte values, whose nodes are embedded in their
// parents; new keys, overwritten keys, keys written with the value they have (reported as
// no change) and repeated hashing in between; and the decoded
// nodes, shared between the inserts, are not modified.
func TestMPTInsert(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		keyLen, valueLen, base, updates int
	}{
		{32, 70, 0, 1},
		{32, 70, 1, 1},
		{32, 70, 500, 1},
		{32, 70, 500, 40},
		{32, 110, 3000, 200},
		{3, 1, 300, 50}, // embedded nodes
		{2, 1, 40, 40},
	} {
		t.Run(fmt.Sprintf("key=%d/value=%d/base=%d/updates=%d", tc.keyLen, tc.valueLen, tc.base, tc.updates), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(tc.base), uint64(tc.updates)))
			random := func(n int) []byte { return randomBytes(rng, n) }
			committed := trie.NewEmpty(triedb.NewDatabase(rawdb.NewMemoryDatabase(), nil))
			geth := trie.NewEmpty(triedb.NewDatabase(rawdb.NewMemoryDatabase(), nil)) // the same entries, uncommitted
			var keys [][]byte
			values := map[string][]byte{}
			for range tc.base {
				key, value := random(tc.keyLen), random(tc.valueLen)
				keys = append(keys, key)
				values[string(key)] = value
				if err := errors.Join(committed.Update(key, value), geth.Update(key, value)); err != nil {
					t.Fatal(err)
				}
			}
			root, nodes := committed.Commit(false)
			resolve, decoded := decodingResolver(nodes) // the decoded nodes shared between the steps, as a layer's
			var (
				mine mptNode
				err  error
			)
			if tc.base > 0 {
				mine = mptRef(root.Bytes())
			}
			for i := range tc.updates {
				key := random(tc.keyLen)
				if i%3 == 1 && len(keys) > 0 {
					key = keys[rng.IntN(len(keys))] // overwrite
				}
				value := random(tc.valueLen)
				same := i%5 == 2 && len(keys) > 0 // the value it has: nothing changes
				if same {
					key = keys[rng.IntN(len(keys))]
					value = values[string(key)]
				}
				keys, values[string(key)] = append(keys, key), value
				if err := geth.Update(key, value); err != nil {
					t.Fatal(err)
				}
				var changed bool
				if mine, changed, err = mptInsert(mine, nil, keyNibbles(key), value, resolve); err != nil {
					t.Fatal(err)
				}
				if changed == same {
					t.Fatalf("update %d: changed %v, writing the value the key had: %v", i, changed, same)
				}
				if i%7 == 0 || i == tc.updates-1 {
					if got, want := common.BytesToHash(mptRootRef(mine)), geth.Hash(); got != want {
						t.Fatalf("after %d updates: root %x, go-ethereum's %x", i+1, got, want)
					}
				}
			}
			for path, d := range decoded {
				again, err := mptDecode(nodes.Nodes[path].Blob, nodes.Nodes[path].Hash.Bytes())
				if err != nil || !reflect.DeepEqual(d, again) {
					t.Fatalf("decoded node at path %x changed by the inserts (%v)", path, err)
				}
			}
		})
	}
}

// TestMPTMalformed: nodes and keys a secure trie cannot hold (only a corrupt database gives
// them) are refused with errMPTShape, which sends the request to go-ethereum's trie, instead
// of a panic.
func TestMPTMalformed(t *testing.T) {
	t.Parallel()
	noResolve := func(mptRef, []byte) (mptNode, error) { return nil, errors.New("no resolve in this test") }
	value := mptValue("v")
	for _, tc := range []struct {
		name string
		n    mptNode
		key  []byte
	}{
		{"a key ending before a leaf's", &mptShort{key: []byte{1, 2, 3, mptTerminator}, val: value}, []byte{1, 2, mptTerminator}},
		{"a key running past a leaf's", &mptShort{key: []byte{1, 2, mptTerminator}, val: value}, []byte{1, 2, 3, mptTerminator}},
		{"a key ending at a branch", &mptFull{}, []byte{mptTerminator}},
		{"a value where the key goes on", value, []byte{1, mptTerminator}},
		{"a key that is a leaf's prefix", &mptShort{key: []byte{1, 2, mptTerminator}, val: value}, []byte{1}},
	} {
		if _, _, err := mptInsert(tc.n, nil, tc.key, value, noResolve); !errors.Is(err, errMPTShape) {
			t.Errorf("insert, %s: error %v, want errMPTShape", tc.name, err)
		}
	}
	emptyKey, err := rlp.EncodeToBytes([][]byte{{}, []byte("value")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mptDecode(emptyKey, crypto.Keccak256(emptyKey)); !errors.Is(err, errMPTShape) {
		t.Errorf("decoding a short node without a key: error %v, want errMPTShape", err)
	}
}

// randomBytes returns n random bytes of rng.
func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.UintN(256))
	}
	return b
}

// decodingResolver resolves the nodes of a committed trie from their encodings in nodes,
// decoding each once, and returns the decoded nodes by path: they are shared by every trie
// that resolves through it.
func decodingResolver(nodes *trienode.NodeSet) (mptResolver, map[string]mptNode) {
	decoded := map[string]mptNode{}
	return func(ref mptRef, path []byte) (mptNode, error) {
		n, ok := nodes.Nodes[string(path)]
		if !ok || !bytes.Equal(n.Hash[:], ref) {
			return nil, fmt.Errorf("no node %x at path %x", ref, path)
		}
		if d, ok := decoded[string(path)]; ok {
			return d, nil
		}
		d, err := mptDecode(n.Blob, ref)
		decoded[string(path)] = d
		return d, err
	}, decoded
}
