package simulate

import (
	"bytes"
	"errors"
	"fmt"
	"sync"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
)

// This file is a Merkle-Patricia trie whose decoded nodes are immutable, for the account and
// storage tries of a request on a memory layer (accounttrie.go, storagetrie.go): an insert
// copies the decoded nodes on its path and shares the rest, so the nodes decoded from the
// layer's node database are decoded once and shared by all requests on the layer, where
// go-ethereum's trie decodes them again per request (its Copy deep-copies every resolved
// node, and decoding a full node boxes its 16 child hashes). The nodes an insert or deletion
// makes are the request's own (owned): later changes of the same trie change them in place,
// as go-ethereum's trie changes its nodes, instead of copying them again.
// The encoding and hashing are go-ethereum's (trie/node.go, trie/hasher.go, trie/encoding.go):
// a node's reference is the Keccak-256 of its RLP encoding, or the encoding itself when it is
// shorter than 32 bytes, except at the root, which is always hashed. Only what these tries
// need is here: inserts, and deletions (mptdelete.go) for the storage tries.

// An mptNode is one of *mptFull, *mptShort, mptValue, mptRef, or nil for an empty child.
type mptNode any

// mptFull is a branch: 16 children by nibble. Branches of a secure trie hold no value.
type mptFull struct {
	children [16]mptNode
	ref      []byte // the node's reference; nil until hashed
	owned    bool   // made by the trie's own changes, not decoded and shared
}

// mptShort is an extension or, when key ends with the terminator nibble 16, a leaf whose val
// is an mptValue.
type mptShort struct {
	key   []byte // nibbles
	val   mptNode
	ref   []byte // the node's reference; nil until hashed
	owned bool   // made by the trie's own changes, not decoded and shared
}

// mptValue is a leaf's value: the RLP of an account, or of a slot's value.
type mptValue []byte

// mptRef is a child not yet resolved: its 32-byte hash.
type mptRef []byte

// mptTerminator ends the nibbles of a leaf's key.
const mptTerminator = 16

// errMPTShape reports a node or key the trie does not handle: a branch with a value, an
// embedded node of 32 bytes or more, a child reference of another length, a list of another
// size, a key that ends inside the trie or runs past a leaf (only a corrupt database has
// them in a secure trie, whose keys are all 64 nibbles). The caller falls back to
// go-ethereum's trie, which fails or succeeds on them as it does.
var errMPTShape = errors.New("trie node not handled")

// mptResolver returns the decoded node with hash ref at path (nibbles).
type mptResolver func(ref mptRef, path []byte) (mptNode, error)

// mptInsert returns n with value at key (nibbles with the terminator) under it; path is the
// nibbles from the root to n. The decoded nodes on the path are copied, the owned ones
// changed in place (their references dropped); n is returned changed or replaced. As in
// go-ethereum's trie, a value equal to the one there changes nothing: changed is false and
// n itself is returned, with its reference, so that it is not hashed again.
func mptInsert(n mptNode, path, key []byte, value mptValue, resolve mptResolver) (_ mptNode, changed bool, _ error) {
	if len(key) == 0 {
		if v, ok := n.(mptValue); ok && bytes.Equal(v, value) {
			return n, false, nil
		}
		return value, true, nil
	}
	switch n := n.(type) {
	case nil:
		return &mptShort{key: key, val: value, owned: true}, true, nil
	case *mptShort:
		m := prefixLen(key, n.key)
		if m == len(n.key) {
			child, changed, err := mptInsert(n.val, append(path, key[:m]...), key[m:], value, resolve)
			if !changed || err != nil {
				return n, false, err
			}
			return n.withVal(child), true, nil
		}
		// The keys part at m: a branch there, with the old node and the new leaf. Neither
		// key may end there: a branch holds no value.
		if m == len(key) || key[m] == mptTerminator || n.key[m] == mptTerminator {
			return nil, false, fmt.Errorf("%w: keys of different lengths", errMPTShape)
		}
		branch := &mptFull{owned: true}
		if rest := n.key[m+1:]; len(rest) == 0 {
			branch.children[n.key[m]] = n.val
		} else {
			branch.children[n.key[m]] = &mptShort{key: rest, val: n.val, owned: true}
		}
		branch.children[key[m]] = &mptShort{key: key[m+1:], val: value, owned: true}
		if m == 0 {
			return branch, true, nil
		}
		return &mptShort{key: key[:m], val: branch, owned: true}, true, nil
	case *mptFull:
		if key[0] == mptTerminator {
			return nil, false, fmt.Errorf("%w: a key that ends at a branch", errMPTShape)
		}
		child, changed, err := mptInsert(n.children[key[0]], append(path, key[0]), key[1:], value, resolve)
		if !changed || err != nil {
			return n, false, err
		}
		return n.withChild(key[0], child), true, nil
	case mptRef:
		resolved, err := resolve(n, path)
		if err != nil {
			return nil, false, err
		}
		child, changed, err := mptInsert(resolved, path, key, value, resolve)
		if !changed || err != nil {
			return n, false, err
		}
		return child, true, nil
	}
	return nil, false, fmt.Errorf("%w: a value where the key goes on", errMPTShape)
}

// withVal returns n with val below it: n itself, its reference dropped, when the trie owns
// it, else an owned copy.
func (n *mptShort) withVal(val mptNode) *mptShort {
	if n.owned {
		n.val, n.ref = val, nil
		return n
	}
	return &mptShort{key: n.key, val: val, owned: true}
}

// withChild returns n with child at nibble i: n itself, its reference dropped, when the trie
// owns it, else an owned copy.
func (n *mptFull) withChild(i byte, child mptNode) *mptFull {
	if n.owned {
		n.children[i], n.ref = child, nil
		return n
	}
	c := &mptFull{children: n.children, owned: true}
	c.children[i] = child
	return c
}

// mptHas reports whether key (nibbles with the terminator) is in the trie under n; path is
// the nibbles from the root to n.
func mptHas(n mptNode, path, key []byte, resolve mptResolver) (bool, error) {
	for {
		switch c := n.(type) {
		case nil:
			return false, nil
		case mptValue:
			return len(key) == 0, nil
		case *mptShort:
			if !bytes.HasPrefix(key, c.key) {
				return false, nil
			}
			path, key, n = append(path, c.key...), key[len(c.key):], c.val
		case *mptFull:
			if len(key) == 0 || key[0] == mptTerminator {
				return false, nil
			}
			path, key, n = append(path, key[0]), key[1:], c.children[key[0]]
		case mptRef:
			resolved, err := resolve(c, path)
			if err != nil {
				return false, err
			}
			n = resolved
		default:
			return false, fmt.Errorf("%w: %T", errMPTShape, n)
		}
	}
}

// prefixLen is the length of the common prefix of a and b.
func prefixLen(a, b []byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// mptRootRef returns the hash of the trie with root n (not nil). It hashes the nodes without
// a reference and records theirs: only owned nodes, made by mptInsert and mptDelete, which
// belong to the caller; decoded nodes come with theirs.
func mptRootRef(n mptNode) []byte {
	switch n := n.(type) {
	case mptRef:
		return n
	case *mptShort, *mptFull:
		return nodeRef(n, true)
	}
	panic(fmt.Sprintf("trie root of type %T", n))
}

// nodeRef returns the reference of a branch or short node: its hash, or its encoding when
// that is shorter than 32 bytes and the node is not the root.
func nodeRef(n mptNode, root bool) []byte {
	var ref *[]byte
	switch n := n.(type) {
	case *mptShort:
		ref = &n.ref
	case *mptFull:
		ref = &n.ref
	}
	if *ref != nil && (!root || len(*ref) == 32) {
		return *ref
	}
	w := rlp.NewEncoderBuffer(nil)
	defer w.Flush()
	list := w.List()
	switch n := n.(type) {
	case *mptShort:
		w.WriteBytes(hexToCompact(n.key))
		if v, ok := n.val.(mptValue); ok {
			w.WriteBytes(v)
		} else {
			writeChildRef(w, n.val)
		}
	case *mptFull:
		for _, child := range n.children {
			writeChildRef(w, child)
		}
		w.WriteBytes(nil) // no value
	}
	w.ListEnd(list)
	buf := mptEncodings.Get().(*[]byte)
	defer mptEncodings.Put(buf)
	enc := w.AppendToBytes((*buf)[:0])
	*buf = enc[:0]
	if len(enc) < 32 && !root {
		*ref = bytes.Clone(enc)
		return *ref
	}
	hash := crypto.Keccak256(enc)
	if *ref == nil {
		*ref = hash
	}
	return hash
}

// mptEncodings are the buffers nodes are encoded into for hashing: a full node's encoding
// is about 530 bytes, and only its hash is kept.
var mptEncodings = sync.Pool{New: func() any {
	b := make([]byte, 0, 1024)
	return &b
}}

// writeChildRef writes the reference of a child into its parent's encoding: a hash as a
// string, a shorter encoding as it is, an empty child as the empty string.
func writeChildRef(w rlp.EncoderBuffer, child mptNode) {
	switch c := child.(type) {
	case nil:
		w.WriteBytes(nil)
	case mptRef:
		w.WriteBytes(c)
	default:
		if ref := nodeRef(c, false); len(ref) == 32 {
			w.WriteBytes(ref)
		} else {
			w.Write(ref)
		}
	}
}

// mptDecode decodes the node whose encoding is blob and whose reference is ref. The node
// shares blob, which must not change.
func mptDecode(blob, ref []byte) (mptNode, error) {
	elems, _, err := rlp.SplitList(blob)
	if err != nil {
		return nil, err
	}
	count, err := rlp.CountValues(elems)
	if err != nil {
		return nil, err
	}
	switch count {
	case 2:
		kbuf, rest, err := rlp.SplitString(elems)
		if err != nil {
			return nil, err
		}
		key := compactToHex(kbuf)
		if len(key) == 0 {
			return nil, fmt.Errorf("%w: a short node without a key", errMPTShape)
		}
		if key[len(key)-1] == mptTerminator {
			val, _, err := rlp.SplitString(rest)
			if err != nil {
				return nil, err
			}
			return &mptShort{key: key, val: mptValue(val), ref: ref}, nil
		}
		child, _, err := decodeChildRef(rest)
		if err != nil {
			return nil, err
		}
		return &mptShort{key: key, val: child, ref: ref}, nil
	case 17:
		n := &mptFull{ref: ref}
		for i := range n.children {
			if n.children[i], elems, err = decodeChildRef(elems); err != nil {
				return nil, err
			}
		}
		if val, _, err := rlp.SplitString(elems); err != nil || len(val) > 0 {
			return nil, errMPTShape
		}
		return n, nil
	}
	return nil, fmt.Errorf("%w: a list of %d items", errMPTShape, count)
}

// decodeChildRef decodes the child reference at the start of buf: a hash, an embedded node
// or nothing.
func decodeChildRef(buf []byte) (mptNode, []byte, error) {
	kind, val, rest, err := rlp.Split(buf)
	if err != nil {
		return nil, buf, err
	}
	switch {
	case kind == rlp.List:
		enc := buf[:len(buf)-len(rest)]
		if len(enc) >= 32 {
			return nil, buf, fmt.Errorf("%w: an embedded node of %d bytes", errMPTShape, len(enc))
		}
		n, err := mptDecode(enc, enc)
		return n, rest, err
	case kind == rlp.String && len(val) == 0:
		return nil, rest, nil
	case kind == rlp.String && len(val) == 32:
		return mptRef(val), rest, nil
	}
	return nil, buf, fmt.Errorf("%w: a child reference of %d bytes", errMPTShape, len(val))
}

// keyNibbles returns the nibbles of key, with the terminator.
func keyNibbles(key []byte) []byte {
	nibbles := make([]byte, len(key)*2+1)
	for i, b := range key {
		nibbles[i*2], nibbles[i*2+1] = b/16, b%16
	}
	nibbles[len(nibbles)-1] = mptTerminator
	return nibbles
}

// hexToCompact is go-ethereum's compact (hex-prefix) encoding of nibbles.
func hexToCompact(hex []byte) []byte {
	terminator := byte(0)
	if len(hex) > 0 && hex[len(hex)-1] == mptTerminator {
		terminator = 1
		hex = hex[:len(hex)-1]
	}
	buf := make([]byte, len(hex)/2+1)
	buf[0] = terminator << 5
	if len(hex)&1 == 1 {
		buf[0] |= 1<<4 | hex[0]
		hex = hex[1:]
	}
	for bi, ni := 1, 0; ni < len(hex); bi, ni = bi+1, ni+2 {
		buf[bi] = hex[ni]<<4 | hex[ni+1]
	}
	return buf
}

// compactToHex decodes the compact encoding into nibbles, the terminator included.
func compactToHex(compact []byte) []byte {
	if len(compact) == 0 {
		return []byte{}
	}
	base := keyNibbles(compact)
	if base[0] < 2 { // no terminator flag
		base = base[:len(base)-1]
	}
	chop := 2 - base[0]&1 // odd flag: one nibble of padding less
	return base[chop:]
}
