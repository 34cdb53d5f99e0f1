package fork

import (
	"errors"

	"github.com/flashrpc/flashrpc/internal/remote"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// rpcError maps what the upstream answered or failed to answer to the JSON-RPC error a client
// gets: a JSON-RPC error the upstream answered reaches the client as it gave it; an upstream
// that could not answer (unreachable, timing out, 429 or 5xx after every retry) is -32000
// "upstream <url> failed: <method>: <reason>". Any other error is returned as it is. Every
// JSON-RPC error of fork mode is built here.
func rpcError(err error) error {
	var answer *remote.RPCError
	if errors.As(err, &answer) {
		return &rpc.Error{Code: answer.Code, Message: answer.Message, Data: answer.ErrorData()}
	}
	var failed *remote.UpstreamError
	if errors.As(err, &failed) {
		return &rpc.Error{Code: rpc.CodeServer, Message: failed.Error()}
	}
	return err
}
