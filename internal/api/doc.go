// Package api implements the eth_, net_, web3_ and dev_ JSON-RPC methods. The standard and the pre-confirmed endpoint are two
// configurations of one API: on the pre-confirmed endpoint the `pending` tag means the block in
// progress (the newest preconf snapshot), on the standard endpoint the sealed head
// (decisions.md).
//
// Methods decode their parameters with typed decoders and answer with pre-encoded JSON
// (internal/ethjson's appenders, no reflection); the latest and pending blocks are encoded once per change
// and reused. Domain errors from chain, exec, txpool and preconf are mapped to JSON-RPC codes in
// one place, errors.go.
//
// Streams (streams.go): newHeads and logs follow the sealed chain (removed logs on a
// reorganisation); the pre-confirmed endpoint adds pendingLogs, newFlashblockTransactions and
// newFlashblocks, fed by preconf's snapshots and retractions and sent off the sequencer's
// goroutine (preconf_subscriptions.go); eth_sendRawTransactionSync waits on the same events.
//
// Concurrency: an *API is safe for concurrent use. A request takes the preconf snapshot once and
// sees one pre-confirmation index throughout.
//
// Imports: rpc, ethjson, exec, preconf, chain, txpool, logs, sequencer and go-ethereum.
package api
