// Package api implements the eth_, net_, web3_ and debug_ JSON-RPC methods; the JSON shapes of
// blocks, transactions, receipts and logs are internal/ethjson's. The standard and the
// pre-confirmed endpoint are two configurations of one API: on the pre-confirmed endpoint the
// `pending` tag means the block in progress (the newest preconf snapshot), on the standard
// endpoint the sealed head (decisions.md). The dev chain's own methods (dev_, anvil_,
// hardhat_, evm_, txpool_, the dev accounts) are internal/devapi's, added to an endpoint's
// method table through Config.Extend.
//
// # One view per request
//
// A request reads one preconf.View, loaded with one atomic load when it begins (view.go): the
// sealed head, safe and finalized blocks and the block in progress, which preconf's writer
// publishes together at every pre-confirmation and every change of the sealed chain, after the
// sealed data is durable. `latest`, `pending`, `safe` and `finalized`, block numbers (a number
// above the view's head is not found), transaction and receipt look-ups (pre-confirmed, or
// sealed up to the view's head), state reads, the sealed and the pre-confirmed part of
// eth_getLogs, the bases of eth_call, eth_estimateGas and eth_simulateV1, and the pre-encoded
// head and pending blocks all resolve against it. Hence a transaction an answer has shown is in
// every later answer, a log is neither duplicated nor missed across a seal, and `latest` never
// goes backwards; retraction (dev_seal with a transaction list) and reorganisations are the
// exceptions. Most methods are viewMethods: Service wraps them so the view is loaded in one
// place, and tests run them on a view of their choosing (view_test.go: TestViewAcrossSeal,
// TestViewUnderLoad). The pool is not part of the view; the two methods that read it read it so
// that a transaction moving from the pool into a pre-confirmation is seen in one or the other.
//
// The methods beyond the core ones (proofs, access lists, filters, tracing, raw data, the
// rest of go-ethereum's eth_ namespace) are registered in surface.go; docs/rpc.md lists what
// is served per endpoint and what is refused.
//
// In fork mode (internal/fork: the chain continues an upstream chain from its block N) the
// methods that name blocks, transactions, logs or state of the upstream's part answer with the
// upstream's answer (Backend.Upstream routes them by what they declare they read, below). A replica (flashrpc follow)
// forwards eth_sendRawTransaction and its Sync variant to its sequencer instead of a pool
// (Backend.Forward, forward.go).
//
// Methods decode their parameters with typed decoders and answer with pre-encoded JSON
// (internal/ethjson's appenders, no reflection); the latest and pending blocks are encoded once
// per change and reused. Every JSON-RPC error the methods build, and every mapping of a domain
// error (chain, exec, the log search) to a code, is in one place,
// errors.go; params.go's decoders build the generic invalid-argument errors. An error no
// mapping claims (a pool's rejection, for one) reaches the client as -32000 with its text.
//
// # Streams
//
// One fan-out (streams.go) feeds every subscription kind (subscriptions.go: newHeads, logs and
// newPendingTransactions on both endpoints; pendingLogs, newFlashblockTransactions and
// newFlashblocks on the pre-confirmed one), the polling filters (filters.go) and the waits of
// eth_sendRawTransactionSync: the chain's and preconf's
// listeners only queue what the writer published; one drain delivers it in order, each item
// encoded once, through rpc.Subscription.Notify, which never blocks (the transport disconnects
// a subscriber that cannot keep up). A subscription or wait gets only the events queued after it
// began.
//
// On an OP Stack chain (op-geth's rules, internal/oprollup) deposits carry their OP fields
// (ethjson; a deposit's nonce is its receipt's depositNonce, so blocks and transactions pass
// receipts where deposits are encoded), receipts the L1 fee fields, eth_simulateV1 runs on
// its base block's L1 attributes and the tip suggestion skips deposits.
//
// Every method is registered with what it reads (Reads, reads.go): a block number or tag, a
// block hash, a transaction hash, a state's block, a range of logs, only the head, or no chain
// data. On a chain that continues an upstream (fork mode), Backend.Upstream (internal/fork)
// routes each method by that declaration, and answers what the API asks of the upstream
// (fork.go): api knows no upstream client.
//
// Concurrency: an *API is safe for concurrent use. Readers never block the writer: a request
// holds its View, immutable, from start to end.
//
// Imports: rpc, ethjson, exec, exec/simulate, preconf, chain, txpool, logs, recent and
// go-ethereum; neither internal/fork, internal/remote nor internal/sequencer.
package api
