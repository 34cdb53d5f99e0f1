// Package rpc is flashrpc's JSON-RPC 2.0 server transport: HTTP POST and WebSocket on one
// path, batches, limits, timeouts, subscriptions and the wire form of errors. It keeps
// go-ethereum's codes, messages and behaviour (rpc package, v1.17.10) without its
// reflection: methods are plain functions in a table ([Service]) and results may be
// pre-encoded JSON.
//
// # What it owns
//
// The package owns the envelope ({"jsonrpc","id","method","params"}), the framing of
// responses and notifications, the error codes (errors.go) and the limits (limits.go). It
// knows nothing about Ethereum: method semantics, parameter decoding beyond splitting the
// params array, and the mapping of domain errors to codes belong to internal/api. It
// imports only the standard library and github.com/coder/websocket.
//
// # Methods
//
// A [Method] gets the call's context and its [Params] (raw JSON elements) and returns a
// result or an error. Return a json.RawMessage to have bytes written verbatim: the server
// trusts it to be valid JSON, which is how hot objects such as the latest block are
// encoded once and served many times. Other results go through encoding/json. Errors that
// are an [*Error] keep their code and data; others become -32000. Panics become -32603 and
// are logged with their stack.
//
// Params alias the request buffer and are valid only until the method returns.
//
// # Requests
//
// The envelope is read by a hand-written scanner that validates the whole body as
// encoding/json would, picks out the four members in any order (escaped keys and strings
// included) and leaves params unparsed until the method is known. Request handling
// follows go-ethereum: parse errors are -32700 with id null; non-objects, a missing or
// wrong "jsonrpc", an object or array id and a missing method are -32600 "invalid
// request"; unknown methods are -32601; a params value that is not an array is -32602
// "non-array args"; messages without id (notifications) run but get no response; response
// objects sent to the server are ignored. A batch is answered in order as one array, an
// empty batch with one -32600 "empty batch" object, a batch of only notifications with
// nothing at all (an empty HTTP body).
//
// # Timeouts and limits
//
// Each call, or each batch as a whole, runs under [Config.RequestTimeout]. When it
// expires the context is cancelled and the client immediately gets -32002 for every call
// not yet answered, even if a method ignores the cancellation. Results over
// [Config.ResponseLimit], and batch calls after the batch passed
// [Config.BatchResponseLimit], get -32003. See [Config] for every limit.
//
// # WebSocket and subscriptions
//
// Each WebSocket connection has a reader, a writer and a pinger goroutine. Messages on one
// connection are handled concurrently (at most [Config.WSInFlight] at a time), so
// responses may come back in a different order than the requests, as with go-ethereum;
// within a batch the order is kept. All outbound messages go through one bounded queue
// drained by the writer, which is the only goroutine writing data frames.
//
// eth_subscribe(kind, params...) calls the [SubscribeFunc] registered for kind, which
// arranges for [Subscription.Notify] to be called until [Subscription.Done] is closed.
// Notify never blocks: when the queue is full the connection is closed as a slow
// consumer, so a stuck client cannot hold up the code that publishes events or other
// connections. Notifications are never sent before the eth_subscribe response that
// carries the subscription ID. eth_unsubscribe(id) returns true, or false when the ID is
// unknown on the connection. Over HTTP both return -32601 "notifications not supported".
//
// # HTTP
//
// [Server.ServeHTTP] serves the endpoint inside any http.Server. [Server.Serve] serves a
// listener with a fast path in front of its own http.Server: the JSON-RPC requests of
// ordinary clients (POST, HTTP/1.1, Content-Length within the body limit, a JSON content
// type, no Expect, Transfer-Encoding or Upgrade) are read, answered and written by a
// minimal HTTP/1.1 loop per connection, one read and one write per request. The first
// request of any other kind (health checks, WebSocket upgrades, chunked bodies, curl's
// Expect: 100-continue, errors such as 405, 413 and 415, malformed requests) hands the
// connection, with the bytes already read, to the http.Server for good. Both paths give
// the same answers byte for byte, Date aside, and apply the same limits and timeouts. The
// fast path does not watch a connection while a method runs: a client that goes away is
// noticed at the next read or write, not by cancelling the call.
//
// # Concurrency
//
// A [Server] is safe for concurrent use. Over HTTP a request is handled on its
// connection's goroutine (net/http's or the fast path's). Methods and SubscribeFuncs are
// called concurrently and must synchronise their own state. [Subscription] methods may
// be called from any goroutine. [Server.Shutdown] stops both HTTP paths and closes every
// WebSocket connection, which http.Server.Shutdown does not do.
package rpc
