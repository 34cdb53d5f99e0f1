package impersonation

import (
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// ErrZeroAddress refuses to impersonate the zero address: its placeholder r would be zero,
// which no signature may have.
var ErrZeroAddress = errors.New("the zero address cannot be impersonated")

// Mark returns tx with the placeholder signature of from and from fixed as its sender.
func Mark(config *params.ChainConfig, tx *types.Transaction, from common.Address) (*types.Transaction, error) {
	if from == (common.Address{}) {
		return nil, ErrZeroAddress
	}
	signer := types.LatestSigner(config)
	sig := make([]byte, 65) // r, s, recovery id 0
	new(big.Int).SetBytes(from.Bytes()).FillBytes(sig[:32])
	sig[63] = 1 // s
	signed, err := tx.WithSignature(signer, sig)
	if err != nil {
		return nil, err
	}
	types.Sender(fixedSigner{Signer: signer, from: from}, signed)
	return signed, nil
}

// Recover fixes the sender of tx when its signature is a placeholder and reports whether it
// was one. It is for transactions read back from the dev chain's database (doc.go).
func Recover(config *params.ChainConfig, tx *types.Transaction) bool {
	from, ok := Placeholder(tx)
	if ok {
		types.Sender(fixedSigner{Signer: types.LatestSigner(config), from: from}, tx)
	}
	return ok
}

// Placeholder returns the sender a placeholder signature names; ok is false when tx's
// signature is not a placeholder (or tx is a deposit, which has none). A placeholder has
// s = 1, a non-zero r of at most 160 bits and recovery id 0 (v = 0 for typed transactions, an
// odd v for legacy ones: 27 or 35 + 2·chainID).
func Placeholder(tx *types.Transaction) (from common.Address, ok bool) {
	if tx.IsDepositTx() {
		return common.Address{}, false
	}
	v, r, s := tx.RawSignatureValues()
	if s == nil || r == nil || v == nil || s.Cmp(common.Big1) != 0 || r.Sign() == 0 || r.BitLen() > 160 {
		return common.Address{}, false
	}
	if tx.Type() == types.LegacyTxType && v.Bit(0) != 1 || tx.Type() != types.LegacyTxType && v.Sign() != 0 {
		return common.Address{}, false
	}
	return common.BigToAddress(r), true
}

// fixedSigner answers from as the sender of any transaction. It is equal to every signer of
// its chain, so that the sender it leaves in a transaction's cache is the one types.Sender
// returns for the chain's own signers.
type fixedSigner struct {
	types.Signer
	from common.Address
}

// Sender returns the fixed sender.
func (s fixedSigner) Sender(*types.Transaction) (common.Address, error) { return s.from, nil }

// Equal reports whether o is a signer of the same chain.
func (s fixedSigner) Equal(o types.Signer) bool {
	return o != nil && o.ChainID() != nil && o.ChainID().Cmp(s.Signer.ChainID()) == 0
}
