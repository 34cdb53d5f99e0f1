package simulate

import (
	"bytes"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
)

// This file computes types.DeriveSha's root (the transaction, receipt and withdrawal tries)
// without a StackTrie. DeriveSha encodes each entry into a buffer, the StackTrie copies it
// into a pooled value, copies it again into the leaf's encoding and hashes that; the keys
// are RLP(i), and keeping them in order is all the StackTrie's bookkeeping is for. Here the
// entries are encoded once, into one buffer (a transaction's trie encoding is not even
// copied), each leaf is hashed straight from its header and the entry's bytes, and each
// branch from its children's hashes: the same Keccak-256 inputs, none of the copies. The
// trie's shape follows from the keys alone, so it is built by recursion over the sorted
// keys rather than by insertion. TestListRoot compares the roots with DeriveSha's on a
// StackTrie.

// A listHasher holds what a root computation reuses: the Keccak-256 state, the entries'
// encodings and the node being encoded. Pooled; not safe for concurrent use.
type listHasher struct {
	state  crypto.KeccakState
	buf    bytes.Buffer // the entries' encodings, one after another
	ends   []int        // where each entry's encoding ends in buf
	values [][]byte     // values[i] is entry i's encoding
	node   []byte       // a node's encoding, or a leaf's header
	out    [32]byte     // a hash (the state's Read is an interface call: its argument escapes)
}

// maxListHasherBuffer bounds the encodings a pooled listHasher keeps: a hundred receipts
// with a log each take about 35 kB; a block of large ones is not kept for the next request.
// maxListHasherEntries bounds its per-entry slices the same way (32 bytes an entry): a
// block of the most calls a request may have is not kept either.
const (
	maxListHasherBuffer  = 256 << 10
	maxListHasherEntries = 1024
)

var listHashers = sync.Pool{New: func() any { return &listHasher{state: crypto.NewKeccakState()} }}

// childRef is how a parent refers to a child node: its Keccak-256, or the node's own
// encoding when that is shorter than 32 bytes (go-ethereum embeds such nodes). n is the
// length of ref; 32 means a hash, which an embedded node never is.
type childRef struct {
	ref [32]byte
	n   int
}

// maxKeyNibbles is the length of the longest key: RLP of a uint64, nine bytes.
const maxKeyNibbles = 18

// listRoot returns types.DeriveSha(list, trie.NewStackTrie(nil)).
func listRoot(list types.DerivableList) common.Hash {
	n := list.Len()
	if n == 0 {
		return types.EmptyRootHash
	}
	h := listHashers.Get().(*listHasher)
	defer h.release()
	if !h.encode(list) {
		// DeriveSha leaves an empty entry out of the trie (the StackTrie refuses it as a
		// deletion); no transaction, receipt or withdrawal encodes to nothing, so the
		// general path is kept for that case.
		return types.DeriveSha(list, trie.NewStackTrie(nil))
	}
	return common.Hash(h.subtrie(0, n, 0, true).ref)
}

func (h *listHasher) release() {
	h.trim()
	listHashers.Put(h)
}

// trim empties h for the next list, dropping what is larger than a pooled hasher keeps.
func (h *listHasher) trim() {
	if h.buf.Cap() > maxListHasherBuffer {
		h.buf = bytes.Buffer{}
	}
	if cap(h.values) > maxListHasherEntries {
		h.values = nil // and with it the references into buf and the transactions' encodings
	} else {
		clear(h.values)
		h.values = h.values[:0]
	}
	if cap(h.ends) > maxListHasherEntries {
		h.ends = nil
	}
}

// encode fills h.values with the entries' encodings, and reports whether none is empty.
// A transaction's trie encoding, at hand already, is used as it is.
func (h *listHasher) encode(list types.DerivableList) bool {
	n := list.Len()
	if txs, ok := list.(encodedTxs); ok {
		h.values = append(h.values[:0], txs...)
	} else {
		// The buffer may move while it grows: the values are sliced once it is complete.
		h.buf.Reset()
		h.ends = h.ends[:0]
		for i := range n {
			list.EncodeIndex(i, &h.buf)
			h.ends = append(h.ends, h.buf.Len())
		}
		all, start := h.buf.Bytes(), 0
		h.values = h.values[:0]
		for _, end := range h.ends {
			h.values = append(h.values, all[start:end:end])
			start = end
		}
	}
	for _, v := range h.values {
		if len(v) == 0 {
			return false
		}
	}
	return true
}

// listEntry returns the index of the entry at position pos in the keys' order. DeriveSha's
// keys are RLP(i): 0x01…0x7f for 1 to 127, then 0x80 for 0, then 0x81 0x80 and longer for
// 128 and above, so 0 sorts after 127.
func listEntry(pos, n int) int {
	switch {
	case pos < min(n, 128)-1:
		return pos + 1
	case pos == min(n, 128)-1:
		return 0
	default:
		return pos
	}
}

// listKey writes the nibbles of entry i's key, RLP(i), into k and returns their number.
func listKey(i int, k *[maxKeyNibbles]byte) int {
	var b [9]byte
	enc := rlp.AppendUint64(b[:0], uint64(i))
	for j, c := range enc {
		k[2*j], k[2*j+1] = c>>4, c&0x0f
	}
	return 2 * len(enc)
}

// subtrie returns the reference to the node holding the entries at positions [lo, hi)
// (hi > lo), whose keys share their first d nibbles. The root is hashed whatever its size.
// References are returned, not written through pointers, so that the recursion's arrays
// stay on the stack.
func (h *listHasher) subtrie(lo, hi, d int, root bool) childRef {
	n := len(h.values)
	var first [maxKeyNibbles]byte
	firstLen := listKey(listEntry(lo, n), &first)
	if hi-lo == 1 {
		return h.leaf(first[d:firstLen], h.values[listEntry(lo, n)], root)
	}
	// The keys are sorted, so what the first and the last share, all share. RLP(i) keys
	// are prefix-free: none ends where a branch is.
	var last [maxKeyNibbles]byte
	lastLen := listKey(listEntry(hi-1, n), &last)
	shared := d
	for shared < firstLen && shared < lastLen && first[shared] == last[shared] {
		shared++
	}
	if shared == d {
		return h.branch(lo, hi, d, root)
	}
	child := h.branch(lo, hi, shared, false)
	return h.extension(first[d:shared], &child, root)
}

// branch returns the reference to the branch node at nibble d of the entries at positions
// [lo, hi).
func (h *listHasher) branch(lo, hi, d int, root bool) childRef {
	n := len(h.values)
	var children [16]childRef
	var present [16]bool
	var k [maxKeyNibbles]byte
	for start := lo; start < hi; {
		listKey(listEntry(start, n), &k)
		nibble := k[d]
		end := start + 1
		for ; end < hi; end++ {
			listKey(listEntry(end, n), &k)
			if k[d] != nibble {
				break
			}
		}
		children[nibble] = h.subtrie(start, end, d+1, false)
		present[nibble] = true
		start = end
	}
	size := 1 // the branch's value: always empty here
	for i := range children {
		size += refSize(&children[i], present[i])
	}
	h.node = rlpHeader(h.node[:0], 0xc0, size)
	for i := range children {
		switch {
		case !present[i]:
			h.node = append(h.node, 0x80)
		case children[i].n == 32:
			h.node = append(h.node, 0xa0)
			h.node = append(h.node, children[i].ref[:]...)
		default:
			h.node = append(h.node, children[i].ref[:children[i].n]...)
		}
	}
	h.node = append(h.node, 0x80)
	return h.finish(nil, root)
}

// refSize is the size of a child's reference in its parent's encoding.
func refSize(r *childRef, present bool) int {
	switch {
	case !present:
		return 1
	case r.n == 32:
		return 33
	default:
		return r.n
	}
}

// extension returns the reference to the extension node of the shared nibbles path over
// child.
func (h *listHasher) extension(path []byte, child *childRef, root bool) childRef {
	var compact [maxKeyNibbles/2 + 1]byte
	key := compactKey(compact[:0], path, false)
	size := rlpStringSize(key) + refSize(child, true)
	h.node = rlpHeader(h.node[:0], 0xc0, size)
	h.node = appendRLPBytes(h.node, key)
	if child.n == 32 {
		h.node = append(h.node, 0xa0)
	}
	h.node = append(h.node, child.ref[:child.n]...)
	return h.finish(nil, root)
}

// leaf returns the reference to the leaf node of the rest of a key, path, holding value.
// The header goes into h.node and the value is hashed from where it is.
func (h *listHasher) leaf(path, value []byte, root bool) childRef {
	var compact [maxKeyNibbles/2 + 1]byte
	key := compactKey(compact[:0], path, true)
	valueSize := rlpStringSize(value)
	h.node = rlpHeader(h.node[:0], 0xc0, rlpStringSize(key)+valueSize)
	h.node = appendRLPBytes(h.node, key)
	if valueSize != len(value) { // a single byte below 0x80 is its own encoding
		h.node = rlpHeader(h.node, 0x80, len(value))
	}
	return h.finish(value, root)
}

// finish returns the reference to the node encoded as h.node followed by tail: the node
// itself when it is shorter than 32 bytes and not the root, its Keccak-256 otherwise.
func (h *listHasher) finish(tail []byte, root bool) childRef {
	var ref childRef
	if size := len(h.node) + len(tail); size < 32 && !root {
		copy(ref.ref[copy(ref.ref[:], h.node):], tail)
		ref.n = size
		return ref
	}
	h.state.Reset()
	h.state.Write(h.node)
	h.state.Write(tail)
	h.state.Read(h.out[:])
	ref.ref, ref.n = h.out, 32
	return ref
}

// compactKey appends the hex-prefix encoding of the nibbles path: a flag nibble (2 for a
// leaf, plus 1 for an odd length), the first nibble beside it when the length is odd, and
// then the nibbles in pairs.
func compactKey(dst, path []byte, leaf bool) []byte {
	flag := byte(0)
	if leaf {
		flag = 2
	}
	if len(path)%2 == 1 {
		dst = append(dst, (flag+1)<<4|path[0])
		path = path[1:]
	} else {
		dst = append(dst, flag<<4)
	}
	for i := 0; i < len(path); i += 2 {
		dst = append(dst, path[i]<<4|path[i+1])
	}
	return dst
}

// appendRLPBytes appends b encoded as an RLP string.
func appendRLPBytes(dst, b []byte) []byte {
	if len(b) == 1 && b[0] < 0x80 {
		return append(dst, b[0])
	}
	return append(rlpHeader(dst, 0x80, len(b)), b...)
}
