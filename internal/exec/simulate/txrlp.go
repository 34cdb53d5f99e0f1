package simulate

import (
	"math/big"
	"math/bits"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
)

// This file writes an EIP-1559 transaction's encoding by hand, from its fields' sizes, into
// a block's arena: go-ethereum's RLP encoder buffer and the copy out of it (AppendToBytes)
// were a twentieth of a 100-call request. TestEncodeTx compares the encodings with
// go-ethereum's for random fields.

// byteArena hands out byte slices from shared chunks, which double in size up to
// maxArenaChunk: a block's transaction encodings in a few allocations instead of one each.
// A nil *byteArena allocates every slice on its own.
type byteArena struct {
	free  []byte
	chunk int
}

const maxArenaChunk = 16 << 10

// take returns an empty slice with room for n bytes, which no other slice shares.
func (a *byteArena) take(n int) []byte {
	if a == nil {
		return make([]byte, 0, n)
	}
	if cap(a.free)-len(a.free) < n {
		a.chunk = min(max(2*a.chunk, 512), maxArenaChunk)
		a.free = make([]byte, 0, max(n, a.chunk))
	}
	start := len(a.free)
	a.free = a.free[:start+n]
	return a.free[start : start : start+n]
}

// encodeDynamicFeeTx returns the typed encoding of an EIP-1559 transaction, taken from
// arena: its type and the RLP list of its fields (nil numbers are 0).
func encodeDynamicFeeTx(arena *byteArena, d *types.DynamicFeeTx) []byte {
	size := bigSize(d.ChainID) + uintSize(d.Nonce) + bigSize(d.GasTipCap) + bigSize(d.GasFeeCap) +
		uintSize(d.Gas) + 1 + bigSize(d.Value) + rlpStringSize(d.Data) +
		rlpListSize(accessListSize(d.AccessList)) + bigSize(d.V) + bigSize(d.R) + bigSize(d.S)
	if d.To != nil {
		size += len(d.To)
	}
	enc := arena.take(1 + rlpListSize(size))
	enc = append(enc, types.DynamicFeeTxType)
	enc = rlpHeader(enc, 0xc0, size)
	enc = appendBig(enc, d.ChainID)
	enc = rlp.AppendUint64(enc, d.Nonce)
	enc = appendBig(enc, d.GasTipCap)
	enc = appendBig(enc, d.GasFeeCap)
	enc = rlp.AppendUint64(enc, d.Gas)
	if d.To == nil {
		enc = append(enc, 0x80)
	} else {
		enc = appendRLPBytes(enc, d.To[:])
	}
	enc = appendBig(enc, d.Value)
	enc = appendRLPBytes(enc, d.Data)
	enc = rlpHeader(enc, 0xc0, accessListSize(d.AccessList))
	for _, t := range d.AccessList {
		enc = rlpHeader(enc, 0xc0, accessTupleSize(t))
		enc = appendRLPBytes(enc, t.Address[:])
		enc = rlpHeader(enc, 0xc0, 33*len(t.StorageKeys))
		for _, key := range t.StorageKeys {
			enc = appendRLPBytes(enc, key[:])
		}
	}
	enc = appendBig(enc, d.V)
	enc = appendBig(enc, d.R)
	return appendBig(enc, d.S)
}

// accessListSize is the size of the items of an access list's RLP list.
func accessListSize(list types.AccessList) int {
	size := 0
	for _, t := range list {
		size += rlpListSize(accessTupleSize(t))
	}
	return size
}

// accessTupleSize is the size of the items of an access tuple's RLP list: the address and
// the list of 32-byte keys.
func accessTupleSize(t types.AccessTuple) int { return 21 + rlpListSize(33*len(t.StorageKeys)) }

// uintSize is the size of the RLP encoding of x.
func uintSize(x uint64) int {
	if x < 0x80 {
		return 1 // 0 is 0x80, the others their own byte
	}
	return 1 + (bits.Len64(x)+7)/8
}

// bigSize is the size of the RLP encoding of i, nil as 0, as the RLP encoder writes it.
func bigSize(i *big.Int) int {
	switch {
	case i == nil:
		return 1
	case i.Sign() < 0:
		panic("rlp: cannot encode negative big.Int") // the encoder's refusal; decoded numbers are never negative
	case i.BitLen() <= 64:
		return uintSize(i.Uint64())
	}
	n := (i.BitLen() + 7) / 8
	return rlpHeaderSize(n) + n
}

// appendBig appends the RLP encoding of i, nil as 0 (bigSize must have checked the sign).
func appendBig(dst []byte, i *big.Int) []byte {
	if i == nil {
		return append(dst, 0x80)
	}
	if i.BitLen() <= 64 {
		return rlp.AppendUint64(dst, i.Uint64())
	}
	n := (i.BitLen() + 7) / 8
	dst = rlpHeader(dst, 0x80, n)
	start := len(dst)
	dst = append(dst, make([]byte, n)...)
	i.FillBytes(dst[start:])
	return dst
}
