package ethjson

// This file holds the hex value appenders the JSON encoders are built from. Each one appends a
// complete JSON value (a quoted string, or null for a nil pointer) in exactly the text that
// go-ethereum's hexutil and common types produce, and none allocates beyond growing dst.
//
// All encoders of this package are plain functions: they append to dst and return the
// extended slice (the caller owns it), keep no reference to dst or to their arguments, and are
// safe for concurrent use. They read but never modify the go-ethereum objects they encode,
// apart from the sender cache types.Sender fills in a transaction (which is atomic).

import (
	"encoding/hex"
	"math/big"
	"math/bits"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"
)

// jsonHexDigits are the lowercase hex digits hexutil prints.
const jsonHexDigits = "0123456789abcdef"

// Null is the JSON null literal.
const Null = "null"

// AppendQuantity appends v as a quoted hex quantity, as hexutil.Uint64 (and hexutil.Uint)
// marshal it: "0x0" for zero, no leading zeros otherwise.
func AppendQuantity(dst []byte, v uint64) []byte {
	dst = append(dst, '"', '0', 'x')
	dst = appendHexDigits(dst, v)
	return append(dst, '"')
}

// appendHexDigits appends v in hex without prefix or leading zeros ("0" for zero).
func appendHexDigits(dst []byte, v uint64) []byte {
	if v == 0 {
		return append(dst, '0')
	}
	for shift := (bits.Len64(v) - 1) &^ 3; shift >= 0; shift -= 4 {
		dst = append(dst, jsonHexDigits[(v>>uint(shift))&0xf])
	}
	return dst
}

// appendPaddedHex appends the low n nibbles of v in hex, keeping leading zeros.
func appendPaddedHex(dst []byte, v uint64, n int) []byte {
	for shift := (n - 1) * 4; shift >= 0; shift -= 4 {
		dst = append(dst, jsonHexDigits[(v>>uint(shift))&0xf])
	}
	return dst
}

// AppendBig appends b as *hexutil.Big marshals it: null for nil, "0x0" for zero, "-0x…" for
// negative values and minimal hex otherwise.
func AppendBig(dst []byte, b *big.Int) []byte {
	if b == nil {
		return append(dst, Null...)
	}
	words := b.Bits() // little-endian, normalised: the top word is non-zero
	if len(words) == 0 {
		return append(dst, `"0x0"`...)
	}
	dst = append(dst, '"')
	if b.Sign() < 0 {
		dst = append(dst, '-')
	}
	dst = append(dst, '0', 'x')
	top := len(words) - 1
	dst = appendHexDigits(dst, uint64(words[top]))
	for i := top - 1; i >= 0; i-- {
		dst = appendPaddedHex(dst, uint64(words[i]), bits.UintSize/4)
	}
	return append(dst, '"')
}

// AppendU256 appends v as hexutil.U256 marshals it (uint256.Int.Hex): "0x0" for zero,
// minimal hex otherwise.
func AppendU256(dst []byte, v *uint256.Int) []byte {
	top := 3
	for top > 0 && v[top] == 0 {
		top--
	}
	dst = append(dst, '"', '0', 'x')
	dst = appendHexDigits(dst, v[top])
	for i := top - 1; i >= 0; i-- {
		dst = appendPaddedHex(dst, v[i], 16)
	}
	return append(dst, '"')
}

// AppendHexBytes appends b as hexutil.Bytes marshals it: "0x" followed by two lowercase digits
// per byte; "0x" for an empty or nil slice.
func AppendHexBytes(dst []byte, b []byte) []byte {
	dst = append(dst, '"', '0', 'x')
	dst = hex.AppendEncode(dst, b)
	return append(dst, '"')
}

// AppendHash appends h as common.Hash marshals it (66 characters, lowercase).
func AppendHash(dst []byte, h common.Hash) []byte {
	return AppendHexBytes(dst, h[:])
}

// appendHashPtr appends h, or null when h is nil (as a *common.Hash marshals).
func appendHashPtr(dst []byte, h *common.Hash) []byte {
	if h == nil {
		return append(dst, Null...)
	}
	return AppendHexBytes(dst, h[:])
}

// AppendAddress appends a as common.Address marshals it: lowercase hex, no EIP-55 checksum.
func AppendAddress(dst []byte, a common.Address) []byte {
	return AppendHexBytes(dst, a[:])
}

// appendAddressPtr appends a, or null when a is nil (as a *common.Address marshals).
func appendAddressPtr(dst []byte, a *common.Address) []byte {
	if a == nil {
		return append(dst, Null...)
	}
	return AppendHexBytes(dst, a[:])
}

// appendHashes appends hs as a JSON array of hashes; a nil slice is null and an empty one
// is [], as encoding/json prints a []common.Hash.
func appendHashes(dst []byte, hs []common.Hash) []byte {
	if hs == nil {
		return append(dst, Null...)
	}
	dst = append(dst, '[')
	for i := range hs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendHexBytes(dst, hs[i][:])
	}
	return append(dst, ']')
}

// appendBool appends a JSON boolean.
func AppendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, "true"...)
	}
	return append(dst, "false"...)
}
