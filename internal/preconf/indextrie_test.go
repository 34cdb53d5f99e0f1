package preconf

import (
	"math/rand/v2"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
)

// randomEncodings returns n encodings of 1 to 300 random bytes.
func randomEncodings(r *rand.Rand, n int) encodedList {
	list := make(encodedList, n)
	for i := range list {
		list[i] = make([]byte, 1+r.IntN(300))
		for j := range list[i] {
			list[i][j] = byte(r.Uint32())
		}
	}
	return list
}

// TestIndexTrieRoot: an indexTrie grown in steps gives, after each, the root DeriveSha gives
// for the whole list so far, across the index keys' encoding boundaries (0, 1 to 127 as one
// byte, 128 to 255 and 256 on as strings) and in steps of one, of many and of none.
func TestIndexTrieRoot(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		steps []int // the list's length after each step
	}{
		{"one", []int{1}},
		{"by ones past 0x80 and 0x100", seq(1, 300, 1)},
		{"flashblocks of 1000", seq(1000, 10_000, 1000)},
		{"uneven", []int{3, 3, 127, 128, 129, 255, 256, 257, 1200, 1201, 4097}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(1, uint64(len(tc.steps))))
			all := randomEncodings(r, tc.steps[len(tc.steps)-1])
			var it indexTrie
			for _, n := range tc.steps {
				got, err := it.root(all[:n])
				if err != nil {
					t.Fatal(err)
				}
				if want := types.DeriveSha(all[:n], trie.NewStackTrie(nil)); got != want {
					t.Fatalf("%d items: root %s, DeriveSha %s", n, got, want)
				}
			}
		})
	}
}

// seq returns from, from+step, … up to to.
func seq(from, to, step int) []int {
	var s []int
	for n := from; n <= to; n += step {
		s = append(s, n)
	}
	return s
}

// BenchmarkIndexTrie: the transactions (or receipts) roots of a block of 10,000 transfer-sized
// encodings, one after each of its ten flashblocks, as the assemblies compute them: the trie
// kept and extended (indexTrie) against the whole list hashed again each time (DeriveSha).
func BenchmarkIndexTrie(b *testing.B) {
	const block, flashblocks = 10_000, 10
	all := randomEncodings(rand.New(rand.NewPCG(1, 2)), block)
	b.Run("impl=indexTrie", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var it indexTrie
			for n := block / flashblocks; n <= block; n += block / flashblocks {
				if _, err := it.root(all[:n]); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("impl=DeriveSha", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for n := block / flashblocks; n <= block; n += block / flashblocks {
				if h := types.DeriveSha(all[:n], trie.NewStackTrie(nil)); h == types.EmptyRootHash {
					b.Fatalf("empty root for %d items", n)
				}
			}
		}
	})
}
