// Package api is the JSON-RPC endpoint: the eth_, net_, web3_ and debug_ methods, assembled
// from the packages below it, one per concern. The standard and the pre-confirmed endpoint
// are two configurations of one API: on the pre-confirmed endpoint the `pending` tag means
// the block in progress (the newest preconf snapshot), on the standard endpoint the next
// block as forecast: the sealed head's state in the context of the block after it, without
// transactions (decisions.md; core's forecast.go). On a chain without pre-confirmations
// (preconf's View.Hidden) the pre-confirmed endpoint answers as the standard one (core's
// view.go, ShowsPreconfirmations). The dev chain's own methods (dev_, anvil_, hardhat_,
// evm_, txpool_, the dev accounts) are internal/devapi's, added to an endpoint's method table
// through Config.Extend.
//
// # Where things live
//
//   - api (this package): Config, Backend, New, and Service, the one place that registers the
//     API's methods, each with what it reads (core.Reads), by which Backend.Upstream routes
//     it in fork mode; Config.Extend's methods go in the same way (core.Table.Add).
//   - api/core: what every concern shares: the request's one view (view.go), block
//     resolution and state reads against it, the pre-encoded blocks, transactions and
//     receipts, the tip suggestion, the fork seam (Upstream, Reads, Table) and every
//     JSON-RPC error the methods build (errors.go).
//   - api/param: the typed parameter decoders and the generic invalid-argument errors
//     (-32602 "invalid argument i: …", "missing value …", "too many arguments …").
//   - api/chaindata: the read methods: blocks, headers, transactions and receipts, state and
//     proofs, raw data, fees, the chain's rules, the node's identity.
//   - api/execute: eth_call, eth_estimateGas, eth_createAccessList, eth_simulateV1 and the
//     debug_trace* methods, under the node's EVM limiter.
//   - api/events: eth_getLogs, the polling filters, the subscriptions and the sends, all fed
//     by or waiting on the endpoint's one fan-out of what the writers publish (streams.go).
//
// docs/rpc.md lists what is served per endpoint and what is refused.
//
// # One view per request
//
// A request reads one preconf.View, loaded with one atomic load when it begins (core's
// view.go): the sealed head, safe and finalized blocks and the block in progress, which
// preconf's writer publishes together at every pre-confirmation and every change of the
// sealed chain, after the sealed data is durable. `latest`, `pending`, `safe` and
// `finalized`, block numbers (a number above the view's head is not found), transaction and
// receipt look-ups (pre-confirmed, or sealed up to the view's head), state reads, the sealed
// and the pre-confirmed part of eth_getLogs, the bases of eth_call, eth_estimateGas and
// eth_simulateV1, and the pre-encoded head and pending blocks all resolve against it. Hence a
// transaction an answer has shown is in every later answer, a log is neither duplicated nor
// missed across a seal, and `latest` never goes backwards; retraction (dev_seal with a
// transaction list) and reorganisations are the exceptions. Most methods are viewMethods:
// Service wraps them so the view is loaded in one place, and tests run them on a view of
// their choosing (view_test.go: TestViewAcrossSeal, TestViewUnderLoad). The pool is not part
// of the view; the two methods that read it read it so that a transaction moving from the
// pool into a pre-confirmation is seen in one or the other.
//
// In fork mode (internal/fork: the chain continues an upstream chain from its block N) the
// methods that name blocks, transactions, logs or state of the upstream's part answer with the
// upstream's answer: Backend.Upstream routes each method by what it declares it reads, and
// answers what the concerns ask of the upstream (core's fork.go); api knows no upstream
// client. A replica (flashrpc follow) forwards eth_sendRawTransaction and its Sync variant to
// its sequencer instead of a pool (Backend.Forward, events' forward.go).
//
// # Encoding and errors
//
// Methods decode their parameters with typed decoders (api/param) and answer with
// pre-encoded JSON (internal/ethjson's appenders, no reflection); the latest and pending
// blocks are encoded once per change and reused (core's blockjson.go). Every JSON-RPC error
// the methods build, and every mapping of a domain error (chain, exec, simulate, the log
// search) to a code, is in one place, core's errors.go; param's decoders build the generic
// invalid-argument errors. An error no mapping claims (a pool's rejection, for one) reaches
// the client as -32000 with its text.
//
// On an OP Stack chain (op-geth's rules, internal/oprollup) deposits carry their OP fields
// (ethjson; a deposit's nonce is its receipt's depositNonce, so blocks and transactions pass
// receipts where deposits are encoded), receipts the L1 fee fields, eth_simulateV1 runs on
// its base block's L1 attributes and the tip suggestion skips deposits.
//
// Concurrency: an *API is safe for concurrent use. Readers never block the writer: a request
// holds its View, immutable, from start to end.
//
// Imports: its concerns (api/core, api/chaindata, api/execute, api/events) and, for Config
// and Backend, chain, exec, exec/simulate, logs, preconf, rpc and txpool. Imports point down:
// api → chaindata, execute, events → core → param. No package under internal/api imports
// internal/fork, internal/remote or internal/sequencer.
package api
