package api

import (
	"errors"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/flashrpc/flashrpc/internal/exec"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// Mapping of domain errors to JSON-RPC codes, in one place (STYLE.md rule 4). Errors that reach
// the transport unmapped are written as -32000 with their text, which is go-ethereum's default
// too; the tables below list every case where the code differs.

// callError maps an eth_call failure: a revert is code 3 with the revert data (execution-apis
// fixtures, go-ethereum); everything else is -32000 with go-ethereum's text.
func callError(err error) error {
	var revert *exec.RevertError
	if errors.As(err, &revert) {
		return &rpc.Error{Code: rpc.CodeReverted, Message: revert.Error(), Data: hexutil.Encode(revert.Data)}
	}
	return requestError(err)
}

// estimateError maps an eth_estimateGas failure: a revert is -32000 "execution reverted[:
// reason]" with the revert data (service.md section 7, decisions.md); go-ethereum uses code 3
// here, the one deliberate difference.
func estimateError(err error) error {
	var revert *exec.RevertError
	if errors.As(err, &revert) {
		return &rpc.Error{Code: rpc.CodeServer, Message: revert.Error(), Data: hexutil.Encode(revert.Data)}
	}
	return requestError(err)
}

// requestError maps errors every execution method shares: malformed arguments are invalid
// params, a busy EVM limiter is -32005; everything else is -32000.
func requestError(err error) error {
	var decode *exec.DecodeError
	if errors.As(err, &decode) {
		return rpc.InvalidParams("%v", err)
	}
	var busy *exec.BusyError
	if errors.As(err, &busy) {
		return &rpc.Error{Code: rpc.CodeLimitExceeded, Message: busy.Error()}
	}
	return &rpc.Error{Code: rpc.CodeServer, Message: err.Error()}
}
