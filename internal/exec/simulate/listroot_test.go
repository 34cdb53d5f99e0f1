package simulate

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/trie"
)

// encodedList is a DerivableList of ready encodings that listRoot does not recognise, so
// that its entries go through EncodeIndex and the shared buffer.
type encodedList [][]byte

func (l encodedList) Len() int                             { return len(l) }
func (l encodedList) EncodeIndex(i int, buf *bytes.Buffer) { buf.Write(l[i]) }

// TestListRoot: listRoot equals DeriveSha on go-ethereum's StackTrie for lists of every
// size where the trie's shape changes (a leaf at the root; 0x7f, 0x80 and 0x81 0x80 keys;
// two-, three- and four-byte keys), with entries short enough to be embedded in their parent
// (single bytes below and above 0x80 included), at the 32-byte boundary and long, through
// both of its ways to get the entries, and with an empty entry, which DeriveSha leaves out.
func TestListRoot(t *testing.T) {
	sizeSets := []struct {
		name  string
		sizes []int
	}{
		{"tiny", []int{1}},
		{"short", []int{1, 2, 5, 20, 25}},
		{"edge", []int{28, 29, 30, 31, 32, 33, 54, 55, 56, 57}},
		{"long", []int{100, 250, 300, 1000, 70000}},
		{"mixed", []int{1, 3, 31, 32, 40, 120, 280, 600}},
	}
	for _, n := range []int{0, 1, 2, 3, 15, 16, 17, 127, 128, 129, 130, 255, 256, 257, 1000, 65537} {
		for set, sizeSet := range sizeSets {
			if n == 65537 && sizeSet.name == "long" {
				continue // about a gigabyte of values, for no shape the other sets miss
			}
			// Seeded per subtest, so that a failing one can be replayed alone.
			r := rand.New(rand.NewPCG(uint64(n), uint64(set)))
			name, sizes := sizeSet.name, sizeSet.sizes
			values := make([][]byte, n)
			for i := range values {
				values[i] = make([]byte, sizes[r.IntN(len(sizes))])
				for j := range values[i] {
					values[i][j] = byte(r.IntN(256)) >> r.IntN(8)
				}
			}
			t.Run(fmt.Sprintf("n=%d/values=%s", n, name), func(t *testing.T) {
				want := types.DeriveSha(encodedTxs(values), trie.NewStackTrie(nil))
				if got := listRoot(encodedTxs(values)); got != want {
					t.Errorf("encodings at hand: root %s, want %s", got, want)
				}
				if got := listRoot(encodedList(values)); got != want {
					t.Errorf("encoded by the list: root %s, want %s", got, want)
				}
				if n < 2 {
					return
				}
				values[r.IntN(n)] = nil
				want = types.DeriveSha(encodedTxs(values), trie.NewStackTrie(nil))
				if got := listRoot(encodedTxs(values)); got != want {
					t.Errorf("with an empty entry: root %s, want %s", got, want)
				}
			})
		}
	}
}

// TestListHasherTrim: a hasher going back to the pool keeps what a usual block needs and
// drops the buffer and per-entry slices of a large one, and no encoding of either.
func TestListHasherTrim(t *testing.T) {
	for _, tc := range []struct {
		n, size                 int
		keepBuffer, keepEntries bool
	}{{100, 300, true, true}, {maxListHasherEntries + 1, 1, true, false}, {10, maxListHasherBuffer, false, true}} {
		values := make([][]byte, tc.n)
		for i := range values {
			values[i] = bytes.Repeat([]byte{1}, tc.size)
		}
		h := &listHasher{state: crypto.NewKeccakState()}
		if !h.encode(encodedList(values)) {
			t.Fatalf("%d entries of %d bytes: an entry is empty", tc.n, tc.size)
		}
		h.trim()
		if len(h.values) != 0 || slices.ContainsFunc(h.values[:cap(h.values)], func(v []byte) bool { return v != nil }) {
			t.Errorf("%d entries of %d bytes: values kept after trim", tc.n, tc.size)
		}
		if kept := h.buf.Cap() > 0; kept != tc.keepBuffer {
			t.Errorf("%d entries of %d bytes: buffer of %d bytes kept = %v, want %v", tc.n, tc.size, h.buf.Cap(), kept, tc.keepBuffer)
		}
		if kept := cap(h.values) > 0 && cap(h.ends) > 0; kept != tc.keepEntries {
			t.Errorf("%d entries of %d bytes: values and ends kept = %v (caps %d, %d), want %v",
				tc.n, tc.size, kept, cap(h.values), cap(h.ends), tc.keepEntries)
		}
		if cap(h.values) > maxListHasherEntries || cap(h.ends) > maxListHasherEntries {
			t.Errorf("%d entries of %d bytes: values and ends of %d and %d kept, over the bound", tc.n, tc.size, cap(h.values), cap(h.ends))
		}
	}
}

// TestListRootReceipts: listRoot of receipts as a block holds them equals DeriveSha's.
func TestListRootReceipts(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for _, n := range []int{1, 2, 100, 200} {
		receipts := randomReceipts(r, n)
		want := types.DeriveSha(types.Receipts(receipts), trie.NewStackTrie(nil))
		if got := listRoot(simReceipts(receipts)); got != want {
			t.Errorf("%d receipts: root %s, want %s", n, got, want)
		}
	}
}

// BenchmarkListRoot compares listRoot with DeriveSha on a pooled StackTrie (what the
// simulated blocks' roots were) for a block's receipts with a log each and its EIP-1559
// transactions' encodings.
func BenchmarkListRoot(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 100))
	receipts := randomReceipts(r, 100)
	txs := make(encodedTxs, 100)
	for i := range txs {
		txs[i], _ = encodeTx(nil, nil, &types.DynamicFeeTx{Nonce: uint64(i), Gas: 21000, To: &common.Address{1}, Data: []byte{1}})
	}
	st := trie.NewStackTrie(nil)
	for _, bc := range []struct {
		name string
		list types.DerivableList
	}{{"list=receipts", simReceipts(receipts)}, {"list=txs", txs}} {
		want := types.DeriveSha(bc.list, st)
		b.Run(bc.name+"/root=listRoot", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if listRoot(bc.list) != want {
					b.Fatal("wrong root")
				}
			}
		})
		b.Run(bc.name+"/root=StackTrie", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if types.DeriveSha(bc.list, st) != want {
					b.Fatal("wrong root")
				}
			}
		})
	}
}
