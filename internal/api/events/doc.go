// Package events holds what an internal/api endpoint publishes and what waits for it:
// eth_getLogs (logs.go plans the query against the request's view; logs_sealed.go collects
// the sealed part from the log index or a scan; logs_pending.go the pre-confirmed part;
// logs_upstream.go, in fork mode, the upstream's; logs_json.go gathers the answer up to the
// result cap), the polling filters (filters.go, filters_events.go), the subscriptions
// (subscriptions.go, subscriptions_pending.go) and the sends (send.go, send_sync.go), whose
// Sync variant waits for its receipt.
//
// # Streams
//
// One fan-out (streams.go) feeds every subscription kind (newHeads, logs and
// newPendingTransactions on both endpoints; pendingLogs, newFlashblockTransactions and
// newFlashblocks on the pre-confirmed one), the polling filters and the waits of
// eth_sendRawTransactionSync: the chain's and preconf's listeners only queue what the writer
// published; one drain delivers it in order, each item encoded once, through
// rpc.Subscription.Notify, which never blocks (the transport disconnects a subscriber that
// cannot keep up). A subscription or wait gets only the events queued after it began.
//
// Concurrency: an *API is safe for concurrent use; streams.go and filters.go state their lock
// order.
//
// Sealed logs and heads of a Denim block carry its time in milliseconds (blockTimestampMs,
// timestampMs; chain.Chain.TimeMs), pre-confirmed ones none (timems.go).
//
// Imports: internal/api/core, internal/api/param, logs, ethjson, exec (warming a sent
// transaction's state in fork mode), preconf, chain, rpc and go-ethereum.
package events
