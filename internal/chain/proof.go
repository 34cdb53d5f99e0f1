package chain

import (
	"context"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/holiman/uint256"
)

// ErrStateUnavailable says the state trie of a block is not in the database: the block is
// unknown, or its state was never written or was pruned. A proof is then refused rather than
// built from anything else.
var ErrStateUnavailable = errors.New("state not available")

// Proof is an EIP-1186 Merkle proof of one account, and of some of its storage slots, in a
// sealed block's state trie. The node lists run from the root down (the account trie's root
// is the block's stateRoot, a storage trie's root is StorageHash); each node is its RLP
// encoding, as trie.VerifyProof takes them keyed by their Keccak-256.
//
// For an account that does not exist the fields are zero (CodeHash and StorageHash too, as
// go-ethereum answers) and AccountProof proves its absence; a slot of an account whose
// storage is empty has the value zero and no proof nodes, as in go-ethereum.
type Proof struct {
	Balance      *uint256.Int
	Nonce        uint64
	CodeHash     common.Hash
	StorageHash  common.Hash
	AccountProof [][]byte
	Storage      []StorageProof // in the order of the keys asked for
}

// StorageProof proves one storage slot's value.
type StorageProof struct {
	Key   common.Hash
	Value common.Hash
	Proof [][]byte
}

// proofNodes collects the nodes trie.Prove writes, in order.
type proofNodes [][]byte

func (p *proofNodes) Put(key, value []byte) error {
	*p = append(*p, value)
	return nil
}

func (p *proofNodes) Delete(key []byte) error { return errors.New("proof: delete not supported") }

// Proof returns the Merkle proof of addr and of the storage slots keys in the state after the
// block with this header, read from the state tries themselves (every sealed block's state
// is kept: archive mode). A block whose tries are missing gives an error wrapping
// ErrStateUnavailable. ctx is checked before each slot.
//
// On a chain with an upstream a local block's state root is the local trie's: only an account that
// did not exist at the upstream's fork block has all its state there; for any other the proof
// is refused with ErrNotProvable (the fork block's proofs are the upstream's).
func (c *Chain) Proof(ctx context.Context, header *types.Header, addr common.Address, keys []common.Hash) (*Proof, error) {
	number := header.Number.Uint64()
	if c.up != nil {
		if err := c.up.Provable(ctx, header, addr); err != nil {
			return nil, err
		}
	}
	tr, err := trie.NewStateTrie(trie.StateTrieID(header.Root), c.bc.TrieDB())
	if err != nil && c.scheme == SchemePath {
		return nil, fmt.Errorf("%w: no proof at block %d: under --state.scheme path the node keeps the tries of the last %d blocks only (older states are read through the state history, which has no tries); use --state.scheme hash for an archive", ErrStateUnavailable, number, pathTrieLayers)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: block %d (state root %s): %v", ErrStateUnavailable, number, header.Root.Hex(), err)
	}
	acct, err := tr.GetAccount(addr)
	if err != nil {
		return nil, fmt.Errorf("%w: block %d: account %s: %v", ErrStateUnavailable, number, addr.Hex(), err)
	}
	p := &Proof{Balance: new(uint256.Int)}
	if acct != nil {
		p.Balance, p.Nonce, p.StorageHash = acct.Balance, acct.Nonce, acct.Root
		p.CodeHash = common.BytesToHash(acct.CodeHash)
	}
	var nodes proofNodes
	if err := tr.Prove(crypto.Keccak256(addr.Bytes()), &nodes); err != nil {
		return nil, fmt.Errorf("%w: block %d: account proof of %s: %v", ErrStateUnavailable, number, addr.Hex(), err)
	}
	p.AccountProof = nodes
	if len(keys) == 0 {
		return p, nil
	}
	p.Storage = make([]StorageProof, len(keys))
	var st *trie.StateTrie
	if p.StorageHash != types.EmptyRootHash && p.StorageHash != (common.Hash{}) {
		id := trie.StorageTrieID(header.Root, crypto.Keccak256Hash(addr.Bytes()), p.StorageHash)
		if st, err = trie.NewStateTrie(id, c.bc.TrieDB()); err != nil {
			return nil, fmt.Errorf("%w: block %d: storage of %s: %v", ErrStateUnavailable, number, addr.Hex(), err)
		}
	}
	for i, key := range keys {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p.Storage[i] = StorageProof{Key: key, Proof: [][]byte{}}
		if st == nil {
			continue
		}
		value, err := st.GetStorage(addr, key.Bytes()) // the slot's RLP content
		if err != nil {
			return nil, fmt.Errorf("%w: block %d: slot %s of %s: %v", ErrStateUnavailable, number, key.Hex(), addr.Hex(), err)
		}
		p.Storage[i].Value = common.BytesToHash(value)
		var nodes proofNodes
		if err := st.Prove(crypto.Keccak256(key.Bytes()), &nodes); err != nil {
			return nil, fmt.Errorf("%w: block %d: proof of slot %s of %s: %v", ErrStateUnavailable, number, key.Hex(), addr.Hex(), err)
		}
		p.Storage[i].Proof = nodes
	}
	return p, nil
}
