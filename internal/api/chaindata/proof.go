package chaindata

import (
	"context"
	"encoding/json"

	"github.com/ethereum/go-ethereum/common"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// eth_getProof (EIP-1186): the Merkle proof of an account and some of its storage slots, read
// from the state tries of a sealed block (chain.Proof), so that a light client can check it
// against the block's stateRoot with nothing but the proof. Every sealed block's state is
// kept, so any sealed block can be proven; a block whose state is missing is refused with an
// error, never answered from other state. The block in progress has no state trie yet (its
// state is not committed until it seals), so `pending` on the pre-confirmed endpoint is
// refused too, with an error that says to ask for a sealed block.

// MaxProofKeys is the most storage keys one eth_getProof may ask for, go-ethereum's limit.
const MaxProofKeys = 1024

// GetProof answers eth_getProof.
func (a *API) GetProof(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 3); err != nil {
		return nil, err
	}
	addr, err := param.DecodeAddress(p, 0)
	if err != nil {
		return nil, err
	}
	keys, widths, err := decodeProofKeys(p, 1)
	if err != nil {
		return nil, err
	}
	b, err := param.DecodeBlockNumberOrHash(p, 2, false)
	if err != nil {
		return nil, err
	}
	h, snap, err := a.HeaderByNumberOrHash(v, b)
	switch {
	case err != nil:
		return nil, err
	case snap != nil:
		return nil, core.ErrProofOfPending(snap.Number(), v.Latest.Number.Uint64())
	case h == nil:
		return nil, core.ErrHeaderNotFound
	}
	proof, err := a.Chain.Proof(ctx, h, addr, keys)
	if err != nil {
		return nil, core.ProofError(err)
	}
	return json.RawMessage(appendProof(nil, addr, proof, widths)), nil
}

// decodeProofKeys decodes eth_getProof's storage keys, parameter i: a list of hex slots,
// parsed as leniently as go-ethereum does (parseStorageKey). widths[k] is the number of bytes
// key k was given with: go-ethereum echoes a key given as 32 bytes as such and any other as a
// quantity.
func decodeProofKeys(p rpc.Params, i int) ([]common.Hash, []int, error) {
	var raw []string
	if err := param.DecodeArg(p, i, &raw); err != nil {
		return nil, nil, err
	}
	if len(raw) > MaxProofKeys {
		return nil, nil, core.ErrTooManyProofKeys(len(raw), MaxProofKeys)
	}
	keys := make([]common.Hash, len(raw))
	widths := make([]int, len(raw))
	for k, s := range raw {
		key, err := param.ParseStorageKey(s)
		if err != nil {
			return nil, nil, core.ErrProofKey(i, k, s, err)
		}
		keys[k], widths[k] = key, storageKeyWidth(s)
	}
	return keys, widths, nil
}

// storageKeyWidth is the number of bytes a storage key string holds (odd hex lengths
// rounded up), as go-ethereum counts them.
func storageKeyWidth(s string) int {
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s = s[2:]
	}
	return (len(s) + 1) / 2
}

// appendProof appends p in go-ethereum's AccountResult shape: address, accountProof,
// balance, codeHash, nonce, storageHash, storageProof [{key, value, proof}].
func appendProof(dst []byte, addr common.Address, p *chain.Proof, widths []int) []byte {
	dst = append(dst, `{"address":`...)
	dst = ethjson.AppendAddress(dst, addr)
	dst = append(dst, `,"accountProof":`...)
	dst = appendProofNodes(dst, p.AccountProof)
	dst = append(dst, `,"balance":`...)
	dst = ethjson.AppendU256(dst, p.Balance)
	dst = append(dst, `,"codeHash":`...)
	dst = ethjson.AppendHash(dst, p.CodeHash)
	dst = append(dst, `,"nonce":`...)
	dst = ethjson.AppendQuantity(dst, p.Nonce)
	dst = append(dst, `,"storageHash":`...)
	dst = ethjson.AppendHash(dst, p.StorageHash)
	dst = append(dst, `,"storageProof":[`...)
	for i, s := range p.Storage {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"key":`...)
		if widths[i] == common.HashLength {
			dst = ethjson.AppendHash(dst, s.Key)
		} else {
			dst = ethjson.AppendBig(dst, s.Key.Big())
		}
		dst = append(dst, `,"value":`...)
		dst = ethjson.AppendBig(dst, s.Value.Big())
		dst = append(dst, `,"proof":`...)
		dst = appendProofNodes(dst, s.Proof)
		dst = append(dst, '}')
	}
	return append(dst, "]}"...)
}

func appendProofNodes(dst []byte, nodes [][]byte) []byte {
	dst = append(dst, '[')
	for i, n := range nodes {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = ethjson.AppendHexBytes(dst, n)
	}
	return append(dst, ']')
}
