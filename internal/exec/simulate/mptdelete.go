package simulate

import "fmt"

// mptDelete returns n without key (nibbles with the terminator) under it; path is the nibbles
// from the root to n. As mptInsert, it copies the decoded nodes on the path and changes the
// owned ones in place, except a branch that collapses, which it copies first (its child
// may fail to resolve, and the trie is then left as it was; no test shows it, as the tries
// that call it give up their own root for go-ethereum's trie on any error). It is go-ethereum's
// Trie.delete (trie/trie.go) on immutable nodes: a branch left with one child becomes a short
// node, merged with that child when it is one (resolving it if it is a reference, as
// go-ethereum does), and a short node whose child became a short node takes its key. A key
// that is not there changes nothing: changed is false and n itself is returned. The trie
// becomes empty when its last key goes: nil.
func mptDelete(n mptNode, path, key []byte, resolve mptResolver) (_ mptNode, changed bool, _ error) {
	switch n := n.(type) {
	case nil:
		return nil, false, nil
	case mptValue:
		if len(key) != 0 {
			return nil, false, fmt.Errorf("%w: a value where the key goes on", errMPTShape)
		}
		return nil, true, nil
	case *mptShort:
		m := prefixLen(key, n.key)
		if m < len(n.key) {
			return n, false, nil
		}
		if m == len(key) {
			return nil, true, nil
		}
		child, changed, err := mptDelete(n.val, append(path, n.key...), key[m:], resolve)
		if !changed || err != nil {
			return n, false, err
		}
		switch c := child.(type) {
		case nil: // an extension over a branch cannot lose everything below it
			return nil, false, fmt.Errorf("%w: an extension without a branch", errMPTShape)
		case *mptShort:
			return &mptShort{key: concatNibbles(n.key, c.key), val: c.val, owned: true}, true, nil
		}
		return n.withVal(child), true, nil
	case *mptFull:
		if len(key) == 0 || key[0] == mptTerminator {
			return nil, false, fmt.Errorf("%w: a key that ends at a branch", errMPTShape)
		}
		child, changed, err := mptDelete(n.children[key[0]], append(path, key[0]), key[1:], resolve)
		if !changed || err != nil {
			return n, false, err
		}
		if child != nil {
			return n.withChild(key[0], child), true, nil
		}
		c := &mptFull{children: n.children, owned: true}
		c.children[key[0]] = nil
		return collapseBranch(c, path, resolve)
	case mptRef:
		resolved, err := resolve(n, path)
		if err != nil {
			return nil, false, err
		}
		child, changed, err := mptDelete(resolved, path, key, resolve)
		if !changed || err != nil {
			return n, false, err
		}
		return child, true, nil
	}
	return nil, false, fmt.Errorf("%w: %T", errMPTShape, n)
}

// collapseBranch returns the branch b, at path, after it lost a child: itself while it has
// two or more, else a short node to its one child.
func collapseBranch(b *mptFull, path []byte, resolve mptResolver) (mptNode, bool, error) {
	pos := -1
	for i, child := range b.children {
		if child == nil {
			continue
		}
		if pos >= 0 {
			return b, true, nil
		}
		pos = i
	}
	if pos < 0 { // a branch of one child, which only a corrupt database holds
		return nil, false, fmt.Errorf("%w: a branch of one child", errMPTShape)
	}
	only := b.children[pos]
	if ref, ok := only.(mptRef); ok {
		resolved, err := resolve(ref, append(path, byte(pos)))
		if err != nil {
			return nil, false, err
		}
		if short, ok := resolved.(*mptShort); ok {
			only = short
		}
	}
	if short, ok := only.(*mptShort); ok {
		return &mptShort{key: concatNibbles([]byte{byte(pos)}, short.key), val: short.val, owned: true}, true, nil
	}
	return &mptShort{key: []byte{byte(pos)}, val: b.children[pos], owned: true}, true, nil
}

// concatNibbles returns a new slice of a's nibbles then b's: nodes' keys are shared and never
// appended to.
func concatNibbles(a, b []byte) []byte {
	key := make([]byte, 0, len(a)+len(b))
	return append(append(key, a...), b...)
}
