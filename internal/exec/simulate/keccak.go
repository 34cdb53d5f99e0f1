package simulate

import (
	"bytes"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// keccakScratch is a Keccak-256 state with a buffer to encode into and an array to read
// the hash into, reused between hashes. crypto.Keccak256Hash allocates its result (the
// state's Read is an interface call, so the array escapes), and an encoding made for one
// hash is a fresh slice: together a tenth of the allocations of a one-call request (the
// transaction, the header).
type keccakScratch struct {
	state crypto.KeccakState
	buf   bytes.Buffer
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
