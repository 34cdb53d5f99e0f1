package simulate

import (
	"bytes"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// keccakScratch is a Keccak-256 state with a buffer to encode into and arrays to write
// headers from and read the hash into, reused between hashes. crypto.Keccak256Hash
// allocates its result (the state's Read is an interface call, so the array escapes), and
// an encoding made for one hash is a fresh slice: together a tenth of the allocations of a
// one-call request (the transaction, the two single-leaf roots, the header).
type keccakScratch struct {
	state crypto.KeccakState
	buf   bytes.Buffer
	head  [16]byte
	out   common.Hash
}

// maxScratchBuffer bounds the buffer kept with a pooled keccakScratch: an entry or header
// is a few hundred bytes; a large call's encoding is not kept for the next request.
const maxScratchBuffer = 4 << 10

var keccakScratches = sync.Pool{New: func() any { return &keccakScratch{state: crypto.NewKeccakState()} }}

// newKeccakScratch returns a pooled scratch with an empty buffer; release returns it.
func newKeccakScratch() *keccakScratch {
	s := keccakScratches.Get().(*keccakScratch)
	s.buf.Reset()
	return s
}

func (s *keccakScratch) release() {
	if s.buf.Cap() > maxScratchBuffer {
		s.buf = bytes.Buffer{}
	}
	keccakScratches.Put(s)
}

// sum returns the Keccak-256 of data.
func (s *keccakScratch) sum(data []byte) common.Hash {
	s.state.Reset()
	s.state.Write(data)
	s.state.Read(s.out[:])
	return s.out
}

// keccak256 is crypto.Keccak256Hash of one input, without allocating.
func keccak256(data []byte) common.Hash {
	s := keccakScratches.Get().(*keccakScratch)
	defer keccakScratches.Put(s)
	return s.sum(data)
}

// singleLeafRoot is the root of a trie holding value under DeriveSha's first key, RLP(0)
// = 0x80: a leaf at the root, [compact key, value], whose Keccak-256 is the root (a root is
// hashed whatever its size). The key's nibbles 8, 0 with the leaf flag compact to 0x20 0x80,
// an RLP string of two bytes: 0x82 0x20 0x80. The leaf is hashed from its parts, not
// encoded first.
func (s *keccakScratch) singleLeafRoot(value []byte) common.Hash {
	valueHead := rlpHeader(s.head[8:8], 0x80, len(value))
	if len(value) == 1 && value[0] < 0x80 {
		valueHead = nil // a single byte below 0x80 is its own encoding
	}
	head := rlpHeader(s.head[:0], 0xc0, 3+len(valueHead)+len(value))
	head = append(head, 0x82, 0x20, 0x80)
	s.state.Reset()
	s.state.Write(head)
	s.state.Write(valueHead)
	s.state.Write(value)
	s.state.Read(s.out[:])
	return s.out
}

// rlpHeader appends the header of an RLP string (offset 0x80) or list (0xc0) of n bytes.
func rlpHeader(dst []byte, offset byte, n int) []byte {
	if n < 56 {
		return append(dst, offset+byte(n))
	}
	size := rlpHeaderSize(n) - 1
	dst = append(dst, offset+55+byte(size))
	for i := size - 1; i >= 0; i-- {
		dst = append(dst, byte(n>>(8*i)))
	}
	return dst
}
