package exec

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
)

// A RevertError reports that the executed call ran the REVERT opcode. It unwraps to
// vm.ErrExecutionReverted.
type RevertError struct {
	// Reason is the ABI-decoded Error(string) message or Panic(uint256) description, or empty
	// when the revert data does not decode.
	Reason string
	// Data is the complete revert data. It is owned by the error.
	Data []byte

	decoded bool // whether Reason came from decoding (geth prints "execution reverted: " then)
}

// NewRevertError decodes data like go-ethereum's abi.UnpackRevert.
func NewRevertError(data []byte) *RevertError {
	reason, err := abi.UnpackRevert(data)
	if err != nil {
		return &RevertError{Data: data}
	}
	return &RevertError{Reason: reason, Data: data, decoded: true}
}

// Error returns "execution reverted" or "execution reverted: <reason>", as go-ethereum does.
func (e *RevertError) Error() string {
	if !e.decoded && e.Reason == "" {
		return vm.ErrExecutionReverted.Error()
	}
	return vm.ErrExecutionReverted.Error() + ": " + e.Reason
}

// Unwrap returns vm.ErrExecutionReverted.
func (e *RevertError) Unwrap() error { return vm.ErrExecutionReverted }

// A VMError reports an execution failure other than a revert: out of gas, invalid opcode,
// stack underflow, write protection and so on. Its text is the EVM's.
type VMError struct {
	Err error // the error from core/vm
	// GasCapped is set in simulated calls whose gas the request's gas budget lowered; the
	// message then says so.
	GasCapped bool
}

// Error returns the EVM's error text (e.g. "out of gas", "invalid opcode: INVALID"), with
// " (gas limit was capped by the RPC server's global gas cap)" when GasCapped.
func (e *VMError) Error() string {
	if e.GasCapped {
		return e.Err.Error() + " (gas limit was capped by the RPC server's global gas cap)"
	}
	return e.Err.Error()
}

// Unwrap returns the EVM error, so errors.Is(err, vm.ErrOutOfGas) works.
func (e *VMError) Unwrap() error { return e.Err }

// A TxError reports a message that could not be applied at all: the transaction would be
// invalid in this block (insufficient funds, nonce, fee cap below base fee, intrinsic gas,
// init code too large, ...). Err carries go-ethereum's text, e.g. "err: insufficient funds
// for gas * price + value: address 0x… have 0 want 1 (supplied gas 50000000)" for calls, or
// "failed with 21000 gas: …" / "insufficient funds for transfer" for estimates; errors.Is
// with the core error (core.ErrInsufficientFunds, core.ErrNonceTooLow, ...) still works.
type TxError struct {
	Err error
}

// Error returns go-ethereum's message.
func (e *TxError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error chain.
func (e *TxError) Unwrap() error { return e.Err }

// A TimeoutError reports an execution aborted because its time ran out (Env.EVMTimeout) or
// its context was cancelled.
type TimeoutError struct {
	Timeout time.Duration
}

// Error returns "execution aborted (timeout = 5s)", go-ethereum's text.
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("execution aborted (timeout = %v)", e.Timeout)
}

// An AllowanceError reports an estimate whose call still runs out of gas at the highest gas
// limit the estimator may try (block gas limit, EIP-7825 cap, the sender's funds, the RPC
// gas cap).
type AllowanceError struct {
	Gas uint64 // the highest gas limit tried
	// Capped says Gas was the EIP-7825 transaction gas cap: the call needs more gas than any
	// transaction may have.
	Capped bool
}

// Error returns "gas required exceeds allowance (<gas>)", go-ethereum's text, followed, when
// the cap was the limit, by ": exceeds maximum per-transaction gas limit (EIP-7825 cap
// <cap>)", the pool's refusal for such a transaction.
func (e *AllowanceError) Error() string {
	if e.Capped {
		return fmt.Sprintf("gas required exceeds allowance (%d): exceeds maximum per-transaction gas limit (EIP-7825 cap %d)", e.Gas, params.MaxTxGas)
	}
	return fmt.Sprintf("gas required exceeds allowance (%d)", e.Gas)
}

// An ArgsError reports transaction arguments that cannot form a call: conflicting fee
// fields, a chain id other than the node's, "data" and "input" that differ, a blob or
// set-code call without "to", and similar. Its text is go-ethereum's.
type ArgsError struct {
	msg string
}

func argsErrorf(format string, a ...any) *ArgsError {
	return &ArgsError{msg: fmt.Sprintf(format, a...)}
}

// Error returns the message.
func (e *ArgsError) Error() string { return e.msg }

// An OverrideError reports a state or block override that cannot be applied: both "state"
// and "stateDiff" on one account, movePrecompileToAddress on a non-precompile or onto an
// overridden account, or a block override key this method does not support. Its text is
// go-ethereum's.
type OverrideError struct {
	msg string
}

func overrideErrorf(format string, a ...any) *OverrideError {
	return &OverrideError{msg: fmt.Sprintf(format, a...)}
}

// Error returns the message.
func (e *OverrideError) Error() string { return e.msg }

// A DecodeError reports a JSON request value that does not decode: a wrong type in a field,
// an unknown or duplicated override key. The message names the field.
type DecodeError struct {
	msg string
}

// Error returns the message.
func (e *DecodeError) Error() string { return e.msg }

// classifyEstimateError turns an error of the gas search (gasSearch.estimate) into this
// package's types.
func classifyEstimateError(err error, revert []byte) error {
	var n uint64
	var allowance *AllowanceError
	switch {
	case errors.As(err, &allowance):
		return allowance
	case errors.Is(err, vm.ErrExecutionReverted):
		return NewRevertError(revert)
	case strings.HasPrefix(err.Error(), "gas required exceeds allowance"):
		if _, serr := fmt.Sscanf(err.Error(), "gas required exceeds allowance (%d)", &n); serr == nil {
			return &AllowanceError{Gas: n}
		}
		return err
	case isTxError(err):
		return &TxError{Err: err}
	}
	if isVMError(err) {
		return &VMError{Err: err}
	}
	return err
}

// isTxError reports whether err is one of core's transaction-validity errors.
func isTxError(err error) bool {
	for _, target := range txErrors {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

var txErrors = []error{
	core.ErrNonceTooLow, core.ErrNonceTooHigh, core.ErrNonceMax, core.ErrGasLimitReached,
	core.ErrInsufficientFundsForTransfer, core.ErrInsufficientFunds, core.ErrGasUintOverflow,
	core.ErrIntrinsicGas, core.ErrFloorDataGas, core.ErrTipAboveFeeCap, core.ErrTipVeryHigh,
	core.ErrFeeCapVeryHigh, core.ErrFeeCapTooLow, core.ErrSenderNoEOA, core.ErrBlobFeeCapTooLow,
	core.ErrMissingBlobHashes, core.ErrTooManyBlobs, core.ErrBlobTxCreate, core.ErrEmptyAuthList,
	core.ErrSetCodeTxCreate, core.ErrGasLimitTooHigh,
	vm.ErrMaxInitCodeSizeExceeded,
}

// isVMError reports whether err is one of core/vm's execution errors.
func isVMError(err error) bool {
	for _, target := range vmErrors {
		if errors.Is(err, target) {
			return true
		}
	}
	var stackErr *vm.ErrStackUnderflow
	var overErr *vm.ErrStackOverflow
	var opErr *vm.ErrInvalidOpCode
	return errors.As(err, &stackErr) || errors.As(err, &overErr) || errors.As(err, &opErr)
}

var vmErrors = []error{
	vm.ErrOutOfGas, vm.ErrCodeStoreOutOfGas, vm.ErrDepth, vm.ErrInsufficientBalance,
	vm.ErrContractAddressCollision, vm.ErrMaxCodeSizeExceeded, vm.ErrInvalidJump,
	vm.ErrWriteProtection, vm.ErrReturnDataOutOfBounds, vm.ErrGasUintOverflow, vm.ErrInvalidCode,
	vm.ErrNonceUintOverflow,
}
