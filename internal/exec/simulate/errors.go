package simulate

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/vm"
)

// ErrorKind classifies a request-level eth_simulateV1 failure. Each kind maps to one
// JSON-RPC code (see the package documentation).
type ErrorKind int

// The kinds of Error.
const (
	InvalidParams           ErrorKind = iota + 1 // -32602: empty input, difficulty override after the merge, fee cap or tip too high
	ClientLimitExceeded                          // -38026: too many blocks or calls
	BlockNumberInvalid                           // -38020: block numbers not increasing
	BlockTimestampInvalid                        // -38021: timestamps not increasing
	BlockGasLimitReached                         // -38015: a call's gas above the block's remaining gas
	NonceTooLow                                  // -38010
	NonceTooHigh                                 // -38011
	BaseFeeTooLow                                // -38012: fee cap below the block base fee
	IntrinsicGas                                 // -38013
	InsufficientFunds                            // -38014
	SenderNotEOA                                 // -38024
	MaxInitCodeSizeExceeded                      // -38025
	Internal                                     // -32603: any other message failure (nonce at 2^64-1, timeout)
)

var simKindNames = map[ErrorKind]string{
	InvalidParams:           "invalid params",
	ClientLimitExceeded:     "client limit exceeded",
	BlockNumberInvalid:      "block number invalid",
	BlockTimestampInvalid:   "block timestamp invalid",
	BlockGasLimitReached:    "block gas limit reached",
	NonceTooLow:             "nonce too low",
	NonceTooHigh:            "nonce too high",
	BaseFeeTooLow:           "base fee too low",
	IntrinsicGas:            "intrinsic gas",
	InsufficientFunds:       "insufficient funds",
	SenderNotEOA:            "sender not eoa",
	MaxInitCodeSizeExceeded: "max initcode size exceeded",
	Internal:                "internal",
}

// String names the kind.
func (k ErrorKind) String() string {
	if s, ok := simKindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("ErrorKind(%d)", int(k))
}

// A Error is a request-level eth_simulateV1 failure of a kind that has its own JSON-RPC
// code. Errors of Run that are not Errors (override errors, argument errors,
// context errors, unknown base block) take the generic code.
type Error struct {
	Kind ErrorKind
	Err  error
}

func simErrorf(kind ErrorKind, format string, a ...any) *Error {
	return &Error{Kind: kind, Err: errors.New(fmt.Sprintf(format, a...))}
}

// Error returns go-ethereum's message.
func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// txErrorKind classifies a message-application error like geth's txValidationError.
func txErrorKind(err error) ErrorKind {
	switch {
	case errors.Is(err, core.ErrNonceTooHigh):
		return NonceTooHigh
	case errors.Is(err, core.ErrNonceTooLow):
		return NonceTooLow
	case errors.Is(err, core.ErrSenderNoEOA):
		return SenderNotEOA
	case errors.Is(err, core.ErrFeeCapVeryHigh), errors.Is(err, core.ErrTipVeryHigh), errors.Is(err, core.ErrTipAboveFeeCap):
		return InvalidParams
	case errors.Is(err, core.ErrFeeCapTooLow):
		return BaseFeeTooLow
	case errors.Is(err, core.ErrInsufficientFunds), errors.Is(err, core.ErrInsufficientFundsForTransfer):
		return InsufficientFunds
	case errors.Is(err, core.ErrIntrinsicGas):
		return IntrinsicGas
	case errors.Is(err, vm.ErrMaxInitCodeSizeExceeded):
		return MaxInitCodeSizeExceeded
	}
	return Internal
}
