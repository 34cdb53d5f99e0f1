package oprollup

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/vm"
)

// Base's node installs BaseTime's implementation in a block's state before the block's
// transactions, at every block from the fork that installs it on (base/base's
// BaseTime::ensure_predeploy, called by its block executor's pre-execution changes, after
// Canyon's create2 deployer). The proxy's EIP-1967 implementation slot is the marker: once it
// is set (by the install, or by a governance upgrade of the proxy) nothing changes. Which fork
// gates it differs between base/base's stored versions: the newest block executor says it runs
// "before the Cobalt system-account transition", its evm2 rewrite gates it on Cobalt, an older
// one on a placeholder fork, and its RPC forecast of the next block installs it whenever Denim
// is active. On Base, Cobalt came before Denim, so every Denim block executes with the
// implementation installed. flashrpc runs neither Beryl nor Cobalt: a chain that runs Denim
// installs it at each Denim block where the slot is still zero, which is its first Denim block
// (or none, when its genesis already has it, as flashrpc's dev genesis does). The result is
// the state Base's node has at every Denim block.

// ErrBaseTimeProxy reports a state whose BaseTime proxy is not OP's predeploy proxy with the
// ProxyAdmin as admin: Base's node refuses to install the implementation there.
var ErrBaseTimeProxy = errors.New("BaseTime's proxy is not in place")

// EnsureBaseTime installs BaseTime's implementation in st when the proxy's implementation slot
// is zero, as Base's node does before a Denim block's transactions: BaseTimeImplementation gets
// the implementation's code (its balance and nonce stay) and the proxy's implementation slot
// points at it. It returns whether it installed. It refuses (ErrBaseTimeProxy) a state whose
// proxy has no code or another admin. Call it on the state of a Denim block after the
// pre-execution system calls and before its first transaction.
func EnsureBaseTime(st vm.StateDB) (installed bool, err error) {
	if st.GetState(BaseTime, proxyImplementationSlot) != (common.Hash{}) {
		return false, nil
	}
	if st.GetCodeSize(BaseTime) == 0 {
		return false, fmt.Errorf("%w: no code at %s", ErrBaseTimeProxy, BaseTime)
	}
	if admin := common.BytesToAddress(st.GetState(BaseTime, proxyAdminSlot).Bytes()); admin != ProxyAdmin {
		return false, fmt.Errorf("%w: its admin is %s, want %s", ErrBaseTimeProxy, admin, ProxyAdmin)
	}
	st.SetCode(BaseTimeImplementation, BaseTimeCode(), tracing.CodeChangeUnspecified)
	st.SetState(BaseTime, proxyImplementationSlot, common.BytesToHash(BaseTimeImplementation[:]))
	return true, nil
}
