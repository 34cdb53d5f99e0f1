package devapi

import (
	"context"

	"github.com/ethereum/go-ethereum/common"

	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/impersonation"
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
	if addr == (common.Address{}) {
		return nil, param.NamedArgError(0, "address", impersonation.ErrZeroAddress)
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
