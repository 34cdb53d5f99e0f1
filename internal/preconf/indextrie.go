package preconf

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
)

// indexTrie is a block's transactions or receipts trie (types.DeriveSha: the encodings keyed by
// their RLP-encoded index) kept from one pre-confirmation to the next. Every pre-confirmation
// needs the roots over the whole partial block; hashed again each time with DeriveSha's
// StackTrie, the tries of a block of ten flashblocks cost 5.5 times its transactions, the
// last flashblocks the most. An indexTrie inserts only the encodings added since its last root
// and rehashes the paths they changed; the rest of the trie keeps its hashes.
//
// It keeps the encodings it was given, which must not change (a block's only grow: a work's
// transactions and receipts are only appended to). The zero value is an empty trie. Not safe
// for concurrent use.
type indexTrie struct {
	t   *trie.Trie
	n   int    // encodings inserted
	key []byte // the buffer of the index keys
}

// root inserts list's encodings past the ones inserted before (list holds those first, in the
// same order) and returns the trie's root, the one types.DeriveSha gives for list.
func (it *indexTrie) root(list encodedList) (common.Hash, error) {
	if it.t == nil {
		it.t = trie.NewEmpty(nil) // in memory: nothing is committed, so nothing is read back
	}
	for ; it.n < len(list); it.n++ {
		it.key = rlp.AppendUint64(it.key[:0], uint64(it.n))
		if err := it.t.Update(it.key, list[it.n]); err != nil {
			return common.Hash{}, fmt.Errorf("trie item %d: %w", it.n, err)
		}
	}
	return it.t.Hash(), nil
}
