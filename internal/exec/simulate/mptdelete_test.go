package simulate

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"
)

// TestMPTDelete: deleting from and inserting into a committed trie whose nodes are resolved
// from their encodings gives go-ethereum's root after every step: present and absent keys,
// branches collapsing into short nodes (over a child that is a reference, an embedded node
// or a branch), short nodes merging, the trie emptied and filled again; for keys of a
// secure trie's length and for short keys whose nodes are embedded in their parents. The
// decoded nodes, shared between the steps, are not modified.
func TestMPTDelete(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		keyLen, valueLen, base, steps int
	}{
		{32, 3, 1, 4},
		{32, 3, 2, 6},
		{32, 33, 20, 60},
		{32, 5, 600, 400},
		{3, 1, 300, 400}, // embedded nodes
		{2, 1, 60, 200},
		{1, 1, 40, 200},
	} {
		t.Run(fmt.Sprintf("key=%d/value=%d/base=%d/steps=%d", tc.keyLen, tc.valueLen, tc.base, tc.steps), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(tc.base), uint64(tc.steps)))
			random := func(n int) []byte { return randomBytes(rng, n) }
			committed := trie.NewEmpty(triedb.NewDatabase(rawdb.NewMemoryDatabase(), nil))
			geth := trie.NewEmpty(triedb.NewDatabase(rawdb.NewMemoryDatabase(), nil))
			present := map[string]bool{}
			var keys [][]byte // present or deleted, to pick from
			for range tc.base {
				key, value := random(tc.keyLen), random(1+rng.IntN(tc.valueLen))
				if err := errors.Join(committed.Update(key, value), geth.Update(key, value)); err != nil {
					t.Fatal(err)
				}
				if !present[string(key)] {
					keys = append(keys, key)
				}
				present[string(key)] = true
			}
			root, nodes := committed.Commit(false)
			resolve, decoded := decodingResolver(nodes) // the decoded nodes shared between the steps, as a layer's
			mine := mptNode(mptRef(root.Bytes()))
			deletions, emptied := 0, false
			for i := range tc.steps {
				// Mostly deletions of present keys, so that the trie shrinks to nothing
				// in the small cases; some of absent keys and some inserts.
				key := keys[rng.IntN(len(keys))]
				switch r := rng.IntN(10); {
				case r < 6:
					wasPresent := present[string(key)]
					if err := geth.Delete(key); err != nil {
						t.Fatal(err)
					}
					var changed bool
					var err error
					if mine, changed, err = mptDelete(mine, nil, keyNibbles(key), resolve); err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
					if changed != wasPresent {
						t.Fatalf("step %d: deleting a key present %v reported a change %v", i, wasPresent, changed)
					}
					present[string(key)] = false
					deletions++
				case r < 7:
					absent := random(tc.keyLen)
					if present[string(absent)] {
						continue
					}
					var changed bool
					var err error
					if mine, changed, err = mptDelete(mine, nil, keyNibbles(absent), resolve); err != nil || changed {
						t.Fatalf("step %d: deleting an absent key: changed %v, error %v", i, changed, err)
					}
				default:
					if rng.IntN(2) == 0 {
						key = random(tc.keyLen)
						keys = append(keys, key)
					}
					value := random(1 + rng.IntN(tc.valueLen))
					if err := geth.Update(key, value); err != nil {
						t.Fatal(err)
					}
					var err error
					if mine, _, err = mptInsert(mine, nil, keyNibbles(key), value, resolve); err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
					present[string(key)] = true
				}
				want := geth.Hash()
				got := types.EmptyRootHash
				if mine != nil {
					got = common.BytesToHash(mptRootRef(mine))
				} else {
					emptied = true
				}
				if got != want {
					t.Fatalf("after step %d: root %x, go-ethereum's %x", i, got, want)
				}
			}
			if deletions == 0 {
				t.Fatal("no deletion made")
			}
			if tc.base <= 2 && !emptied {
				t.Fatal("the small trie was never emptied")
			}
			for path, d := range decoded {
				again, err := mptDecode(nodes.Nodes[path].Blob, nodes.Nodes[path].Hash.Bytes())
				if err != nil || !reflect.DeepEqual(d, again) {
					t.Fatalf("decoded node at path %x changed by the steps (%v)", path, err)
				}
			}
		})
	}
}

// TestMPTDeleteMalformed: nodes and keys a secure trie cannot hold are refused with
// errMPTShape, which sends the request to go-ethereum's trie, instead of a panic.
func TestMPTDeleteMalformed(t *testing.T) {
	t.Parallel()
	noResolve := func(mptRef, []byte) (mptNode, error) { return nil, errors.New("no resolve in this test") }
	value := mptValue("v")
	leaf := func(nibble byte) *mptShort { return &mptShort{key: []byte{nibble, mptTerminator}, val: value} }
	lonely := &mptFull{}
	lonely.children[3] = leaf(1)
	for _, tc := range []struct {
		name string
		n    mptNode
		key  []byte
	}{
		{"a key ending at a branch", &mptFull{}, []byte{mptTerminator}},
		{"a value where the key goes on", value, []byte{1, mptTerminator}},
		{"a branch of one child losing it", lonely, []byte{3, 1, mptTerminator}},
		{"an extension over a branch of one child", &mptShort{key: []byte{2}, val: lonely}, []byte{2, 3, 1, mptTerminator}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := mptDelete(tc.n, nil, tc.key, noResolve); !errors.Is(err, errMPTShape) {
				t.Errorf("error %v, want errMPTShape", err)
			}
		})
	}
}
