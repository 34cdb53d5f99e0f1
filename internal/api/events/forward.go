package events

import (
	"context"
)

// Forwarder sends signed transactions on to another node instead of this node's pool: a
// replica (flashrpc follow) forwards them to its sequencer, and serves them once its feed
// pre-confirms them. eth_sendRawTransaction answers the transaction's hash when the
// forwarder accepts it; eth_sendRawTransactionSync forwards it the same way and then waits
// for the receipt on this endpoint, as for a local pool.
type Forwarder interface {
	// SendRawTransaction forwards one signed transaction (EIP-2718 bytes, already decoded
	// once by the caller). An error with an ErrorCode method (the other node's answer) is
	// relayed to the client with its code, message and data.
	SendRawTransaction(ctx context.Context, raw []byte) error
}
