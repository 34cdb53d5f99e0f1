package devapi

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/rpc"
)

// impersonateAccount is anvil_impersonateAccount(address) / hardhat_impersonateAccount: from
// now on eth_sendTransaction sends from address without its key.
func (a *API) impersonateAccount(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 1, 1); err != nil {
		return nil, err
	}
	addr, err := decodeAddressParam(p, 0, "address")
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.impersonated[addr] = true
	a.mu.Unlock()
	return impersonationResult(), nil
}

// stopImpersonatingAccount is anvil_stopImpersonatingAccount(address) /
// hardhat_stopImpersonatingAccount. Transactions already sent keep their sender.
func (a *API) stopImpersonatingAccount(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 1, 1); err != nil {
		return nil, err
	}
	addr, err := decodeAddressParam(p, 0, "address")
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	delete(a.impersonated, addr)
	a.mu.Unlock()
	return impersonationResult(), nil
}

// autoImpersonateAccount is anvil_autoImpersonateAccount(enabled): while enabled,
// eth_sendTransaction sends from any address.
func (a *API) autoImpersonateAccount(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 1, 1); err != nil {
		return nil, err
	}
	var on bool
	if err := decodeParam(p, 0, "enabled", &on); err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.autoImp = on
	a.mu.Unlock()
	return impersonationResult(), nil
}

// impersonationResult is what the impersonation methods answer: anvil answers null, Hardhat
// true; viem and ethers ignore it. true tells a script it worked.
func impersonationResult() any { return true }

func (a *API) isImpersonated(addr common.Address) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.autoImp || a.impersonated[addr]
}

// impersonatedTx returns tx with a placeholder signature and from fixed as its sender in the
// transaction's sender cache (doc.go). r is the sender's address, so that the same transaction
// from two senders has two hashes; s is 1.
func impersonatedTx(config *params.ChainConfig, tx *types.Transaction, from common.Address) *types.Transaction {
	signer := types.LatestSigner(config)
	r := new(big.Int).SetBytes(from.Bytes())
	if r.Sign() == 0 {
		r.SetUint64(1)
	}
	sig := make([]byte, 65)
	r.FillBytes(sig[:32])
	sig[63] = 1
	signed, err := tx.WithSignature(signer, sig)
	if err != nil { // only for a malformed signature length, which this is not
		panic(err)
	}
	// The cache keeps the signer that derived the sender and answers whoever asks with an
	// equal signer: this one is equal to every signer of the chain.
	types.Sender(impersonatingSigner{Signer: signer, from: from}, signed)
	return signed
}

// impersonatingSigner answers from as the sender of any transaction. It is equal to every
// signer of its chain, so that the sender it leaves in a transaction's cache is the one
// go-ethereum's types.Sender returns for the chain's own signers.
type impersonatingSigner struct {
	types.Signer
	from common.Address
}

// Sender returns the impersonated address.
func (s impersonatingSigner) Sender(*types.Transaction) (common.Address, error) { return s.from, nil }

// Equal reports whether o is a signer of the same chain.
func (s impersonatingSigner) Equal(o types.Signer) bool {
	return o != nil && o.ChainID() != nil && o.ChainID().Cmp(s.Signer.ChainID()) == 0
}
