package rpc

import (
	"errors"
	"fmt"
	"net"
	"strconv"
)

// JSON-RPC error codes. The numbers and their meaning are go-ethereum's.
const (
	CodeParseError     = -32700 // invalid JSON
	CodeInvalidRequest = -32600 // not a valid JSON-RPC request
	CodeMethodNotFound = -32601 // unknown method, or subscriptions over HTTP
	CodeInvalidParams  = -32602 // parameters could not be decoded
	CodeInternal       = -32603 // method panicked or its result could not be encoded

	CodeServer           = -32000 // default for errors without a code
	CodeTimeout          = -32002 // request timed out
	CodeResponseTooLarge = -32003 // result or batch response over its limit
	CodeLimitExceeded    = -32005 // a query limit was hit (e.g. eth_getLogs range)

	CodeReverted      = 3      // execution reverted; Data holds the revert bytes as hex
	CodeTxSyncTimeout = 4      // eth_sendRawTransactionSync waited in vain; Data holds the tx hash
	CodeVMError       = -32015 // EVM error other than revert

	// Transaction validation and eth_simulateV1 codes (go-ethereum internal/ethapi).
	CodeNonceTooLow         = -38010
	CodeNonceTooHigh        = -38011
	CodeFeeCapTooLow        = -38012
	CodeIntrinsicGas        = -38013
	CodeInsufficientFunds   = -38014
	CodeBlockGasLimit       = -38015
	CodeBlockNumberOrder    = -38020
	CodeBlockTimestampOrder = -38021
	CodeMovePrecompileSelf  = -38022
	CodeMovePrecompileDup   = -38023
	CodeSenderNotEOA        = -38024
	CodeMaxInitCode         = -38025
	CodeClientLimit         = -38026
)

// The errors the server itself produces, with go-ethereum's messages. They are shared
// and never modified.
var (
	errParse             = &Error{Code: CodeParseError, Message: "parse error"}
	errInvalidRequest    = &Error{Code: CodeInvalidRequest, Message: "invalid request"}
	errEmptyBatch        = &Error{Code: CodeInvalidRequest, Message: "empty batch"}
	errTimeout           = &Error{Code: CodeTimeout, Message: "request timed out"}
	errResponseTooLarge  = &Error{Code: CodeResponseTooLarge, Message: "response too large"}
	errNonArrayArgs      = &Error{Code: CodeInvalidParams, Message: "non-array args"}
	errHandlerCrashed    = &Error{Code: CodeInternal, Message: "method handler crashed"}
	errNotifyUnsupported = &Error{Code: CodeMethodNotFound, Message: "notifications not supported"}
	errConnClosed        = &Error{Code: CodeServer, Message: "connection closed"}
	errReadBody          = &Error{Code: CodeParseError, Message: "read error"}
	errReadTimeout       = &Error{Code: CodeParseError, Message: "read timeout"}
)

// batchTooLarge is go-ethereum's -32600 "batch too large" for a batch over
// Config.BatchItemLimit, with the limit as data: {"limit": n}.
func batchTooLarge(limit int) *Error {
	return &Error{Code: CodeInvalidRequest, Message: "batch too large", Data: limitData{limit}}
}

// limitData is the data member of errors for a request over a limit.
type limitData struct {
	Limit int `json:"limit"`
}

// methodNotFound is go-ethereum's -32601 error for an unknown method.
func methodNotFound(method []byte) *Error {
	return &Error{Code: CodeMethodNotFound, Message: "the method " + string(method) + " does not exist/is not available"}
}

// methodNameTooLong refuses a method name over maxMethodNameLength.
func methodNameTooLong(n int) *Error {
	return NewError(CodeInvalidRequest, "method name too long: %d > %d", n, maxMethodNameLength)
}

// noSubscription is go-ethereum's -32601 error for an unknown subscription kind.
func noSubscription(kind string, namespace []byte) *Error {
	return NewError(CodeMethodNotFound, "no %q subscription in %s namespace", kind, namespace)
}

// internalError reports a result that could not be encoded.
func internalError(err error) *Error {
	return &Error{Code: CodeInternal, Message: err.Error()}
}

// readError is go-ethereum's error for a request body that could not be read.
func readError(err error) *Error {
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		return errReadTimeout
	}
	return errReadBody
}

// Error is a JSON-RPC error: the "error" member of a response. A [Method] returns one to
// choose the code; any other error is sent as [CodeServer] with its Error() text.
// Error values are not modified by the server and may be shared.
type Error struct {
	Code    int    // JSON-RPC error code, one of the Code constants
	Message string // human-readable message: lowercase, no trailing period
	Data    any    // optional "data" member, encoded as JSON; omitted when nil
}

// codedError and dataError are go-ethereum's rpc.Error and rpc.DataError behaviour: any
// error with these methods is sent with its code and data, so errors written for
// go-ethereum's server keep their codes here.
type (
	codedError interface {
		error
		ErrorCode() int
	}
	dataError interface {
		error
		ErrorData() any
	}
)

var (
	_ codedError = (*Error)(nil)
	_ dataError  = (*Error)(nil)
)

// NewError returns an Error with the code and a message formatted with fmt.Sprintf.
func NewError(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// InvalidParams returns a [CodeInvalidParams] Error with a message formatted with
// fmt.Sprintf, such as "invalid argument 0: hex string without 0x prefix".
func InvalidParams(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// Error returns the message, or "json-rpc error <code>" when it is empty.
func (e *Error) Error() string {
	if e.Message == "" {
		return "json-rpc error " + strconv.Itoa(e.Code)
	}
	return e.Message
}

// ErrorCode returns the JSON-RPC code (go-ethereum's rpc.Error interface).
func (e *Error) ErrorCode() int { return e.Code }

// ErrorData returns the data member (go-ethereum's rpc.DataError interface).
func (e *Error) ErrorData() any { return e.Data }

// toError converts an error returned by a method into the Error sent to the client: an
// *Error anywhere in the chain as it is, an error with an ErrorCode method with that code
// and its ErrorData, anything else as CodeServer with err.Error().
func toError(err error) *Error {
	if e, ok := errors.AsType[*Error](err); ok {
		return e
	}
	out := &Error{Code: CodeServer, Message: err.Error()}
	if ce, ok := errors.AsType[codedError](err); ok {
		out.Code = ce.ErrorCode()
	}
	if de, ok := errors.AsType[dataError](err); ok {
		out.Data = de.ErrorData()
	}
	return out
}

// appendError appends the JSON encoding of e: {"code":…,"message":…[,"data":…]}. Data
// that cannot be encoded is left out.
func appendError(buf []byte, e *Error) []byte {
	buf = append(buf, `{"code":`...)
	buf = strconv.AppendInt(buf, int64(e.Code), 10)
	buf = append(buf, `,"message":`...)
	buf = appendString(buf, e.Message)
	if e.Data != nil {
		if data, err := appendValue(nil, e.Data); err == nil {
			buf = append(buf, `,"data":`...)
			buf = append(buf, data...)
		}
	}
	return append(buf, '}')
}
