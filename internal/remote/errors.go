package remote

import (
	"encoding/json"
	"fmt"
)

// UpstreamError says that the upstream could not answer: it was unreachable, timed out, kept
// answering 429 or 5xx after every retry, answered something that is not JSON-RPC, or answered
// a state read with an error (a node that cannot serve the fork block's state, for one). It is
// never turned into a value: callers report it (the API maps it to a JSON-RPC error naming the
// upstream) and cache nothing.
type UpstreamError struct {
	// URL is the upstream's URL.
	URL string
	// Method is the JSON-RPC method that failed (the first of a batch).
	Method string
	// Reason says what went wrong, in words.
	Reason string
	// Err is the cause, when there is one (a transport error, a context error).
	Err error
}

func (e *UpstreamError) Error() string {
	return fmt.Sprintf("upstream %s failed: %s: %s", e.URL, e.Method, e.Reason)
}

// Unwrap returns the cause.
func (e *UpstreamError) Unwrap() error { return e.Err }

// RPCError is a JSON-RPC error object the upstream answered a call with. For history and
// forwarded calls it is the answer (an eth_call that reverts before the fork block, say) and
// reaches the client unchanged; for state reads it is a failure and comes wrapped in an
// UpstreamError.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// ErrorCode returns the JSON-RPC code.
func (e *RPCError) ErrorCode() int { return e.Code }

// ErrorData returns the data field, nil when there is none.
func (e *RPCError) ErrorData() any {
	if len(e.Data) == 0 {
		return nil
	}
	return e.Data
}

// rateLimited reports whether the error asks the client to slow down: HTTP 429's JSON-RPC
// forms (-32005 "limit exceeded", used by geth and most providers, and 429 itself).
func (e *RPCError) rateLimited() bool { return e.Code == -32005 || e.Code == 429 }
