package devapi

import (
	"errors"

	"github.com/ethereum/go-ethereum/common"

	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/rpc"
	"github.com/flashrpc/flashrpc/internal/sequencer"
)

// The dev methods' errors. Bad parameters are -32602 naming the parameter, by position and
// name (the dev_ methods, as internal/api's methods, by position only: argError); a refusal
// of a valid request (an unknown sender, no key) is -32000 with a message saying what to do.

// errUnknownSender refuses eth_sendTransaction from an address that is neither a dev account
// nor impersonated.
func errUnknownSender(from common.Address) error {
	return rpc.NewError(rpc.CodeServer, "sender %s is not a dev account and is not impersonated: sign with a dev account (eth_accounts) or call anvil_impersonateAccount first", from.Hex())
}

// errNoKey refuses a signing request for an address whose key the node does not hold.
func errNoKey(addr common.Address) error {
	return rpc.NewError(rpc.CodeServer, "no key for %s: the node signs with the dev accounts only (eth_accounts)", addr.Hex())
}

// errNoFrom refuses a transaction without a sender.
var errNoFrom = rpc.InvalidParams("invalid argument 0 (transaction): missing \"from\"")

// timeError makes a timestamp the sequencer refuses (not after the parent's) a -32602 for
// parameter i, called name; other errors pass unchanged.
func timeError(i int, name string, err error) error {
	if errors.Is(err, sequencer.ErrTimestamp) {
		return param.NamedArgError(i, name, err)
	}
	return err
}

// devSealError maps dev_seal's failures: a listed transaction that is not pre-confirmed is
// an invalid argument 0; anything else is -32000 with its text.
func devSealError(err error) error {
	if errors.Is(err, sequencer.ErrNotPreconfirmed) {
		return rpc.InvalidParams("invalid argument 0: %v", err)
	}
	return err
}

// devDepositError maps dev_deposit's failures: more gas than a block has room for is an
// invalid argument 0 naming the field; anything else is -32000 with its text.
func devDepositError(err error) error {
	if errors.Is(err, sequencer.ErrDepositGas) {
		return rpc.InvalidParams("invalid argument 0: gas: %v", err)
	}
	return err
}
