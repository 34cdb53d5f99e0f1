package fork

import (
	"encoding/binary"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/rlp"
)

// Records of what the local chain of a fork wrote: for each storage slot the first local block
// that changed it, for each account the first local block that deleted it. A slot absent from
// the local trie of block B is zero when it was changed at or before B (the local chain set it
// to zero), and the upstream's value otherwise; an account absent from it does not exist when
// it was deleted at or before B. One record per key serves every historic state (archive)
// without a copy per block. Each block lists the records it added under its undo key, so that a
// rewind drops them (dropAbove).
//
// Keys, in the fork table (docs/format/fork.md):
//
//	w ‖ address ‖ keccak256(slot) -> 8-byte big-endian block number
//	d ‖ address                   -> 8-byte big-endian block number
//	u ‖ 8-byte block number       -> RLP list of the record keys the block added
//	r ‖ state root                -> 8-byte big-endian block number of a local state root
//
// Slots are keyed by their hash because go-ethereum reports the slots of pre-Cancun blocks by
// hash only.
type records struct{ db ethdb.KeyValueStore }

const (
	writePrefix = 'w'
	wipePrefix  = 'd'
	undoPrefix  = 'u'
	rootPrefix  = 'r'
)

func u64(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }

func recordKey(prefix byte, parts ...[]byte) []byte {
	k := []byte{prefix}
	for _, p := range parts {
		k = append(k, p...)
	}
	return k
}

func (r records) number(key []byte) (uint64, bool) {
	v, err := r.db.Get(key)
	if err != nil || len(v) != 8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(v), true
}

// firstWrite returns the first local block that changed the slot with this hash of addr.
func (r records) firstWrite(addr common.Address, slotHash common.Hash) (uint64, bool) {
	return r.number(recordKey(writePrefix, addr[:], slotHash[:]))
}

// firstWipe returns the first local block that deleted addr.
func (r records) firstWipe(addr common.Address) (uint64, bool) {
	return r.number(recordKey(wipePrefix, addr[:]))
}

// root returns the block number of a local state root.
func (r records) root(root common.Hash) (uint64, bool) {
	return r.number(recordKey(rootPrefix, root[:]))
}

// add writes into batch the records of block number: the slots (by hash) its commit changed
// and the accounts it deleted, except those an earlier block recorded, listed under the
// block's undo key, and the block's state root.
func (r records) add(batch ethdb.KeyValueWriter, number uint64, root common.Hash, slots map[common.Address][]common.Hash, wiped []common.Address) error {
	var added [][]byte
	for addr, hashes := range slots {
		for _, h := range hashes {
			if _, ok := r.firstWrite(addr, h); ok {
				continue
			}
			k := recordKey(writePrefix, addr[:], h[:])
			if err := batch.Put(k, u64(number)); err != nil {
				return err
			}
			added = append(added, k)
		}
	}
	seen := make(map[common.Address]bool, len(wiped))
	for _, addr := range wiped {
		if seen[addr] {
			continue
		}
		seen[addr] = true
		if _, ok := r.firstWipe(addr); ok {
			continue
		}
		k := recordKey(wipePrefix, addr[:])
		if err := batch.Put(k, u64(number)); err != nil {
			return err
		}
		added = append(added, k)
	}
	if len(added) > 0 {
		blob, err := rlp.EncodeToBytes(added)
		if err != nil {
			return err
		}
		if err := batch.Put(recordKey(undoPrefix, u64(number)), blob); err != nil {
			return err
		}
	}
	return batch.Put(recordKey(rootPrefix, root[:]), u64(number))
}

// dropAbove deletes the records of the blocks above head: after a rewind, or after a crash
// between a block's write and its becoming the head.
func (r records) dropAbove(head uint64) error {
	it := r.db.NewIterator([]byte{undoPrefix}, u64(head+1))
	defer it.Release()
	batch := r.db.NewBatch()
	for it.Next() {
		var keys [][]byte
		if err := rlp.DecodeBytes(it.Value(), &keys); err != nil {
			return fmt.Errorf("fork records of block %x: %w", it.Key()[1:], err)
		}
		for _, k := range keys {
			if err := batch.Delete(k); err != nil {
				return err
			}
		}
		if err := batch.Delete(common.CopyBytes(it.Key())); err != nil {
			return err
		}
	}
	if err := it.Error(); err != nil {
		return err
	}
	return batch.Write()
}
