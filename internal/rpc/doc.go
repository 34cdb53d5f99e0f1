// Package rpc is flashrpc's JSON-RPC 2.0 server transport: HTTP POST and WebSocket on one
// path, batches, limits, timeouts, subscriptions and the wire form of errors. It keeps
// go-ethereum's codes, messages and behaviour (rpc package, v1.17.10) without its
// reflection: methods are plain functions in a table ([Service]) and results may be
// pre-encoded JSON.
//
// # What it owns
//
// The package owns the envelope ({"jsonrpc","id","method","params"}), the framing of
// responses and notifications, the error codes and every error value the server builds
// (errors.go), the limits (limits.go) and who may connect (exposure.go). It knows nothing
// about Ethereum: method semantics, parameter decoding beyond splitting the
// params array, and the mapping of domain errors to codes belong to internal/api. It
// imports only the standard library and github.com/coder/websocket.
//
// # Operations hooks
//
// A Server reports what it does to an [Observer] (Config.Observer: calls by method with
// their duration and error code, WebSocket connections, subscriptions, slow consumers),
// whose per-method observers are resolved when the server is built, so metrics cost no
// lookup per call; Config.LogRequests logs one line per call; Config.Pages answers the GET
// requests that are not WebSocket upgrades (health check, browser page). internal/node
// wires internal/metrics, internal/health and internal/liveview to them.
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
// Params alias the request buffer and are valid only until the method returns. A call
// gets at most 65 of them (maxParams+1): no method takes that many, so one with more
// refuses them itself ("too many arguments, want at most N").
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
// nothing at all (an empty HTTP body). A batch over [Config.BatchItemLimit] is refused as
// soon as the scanner reaches the item past the limit, with one -32600 "batch too large"
// (data: the limit): the items after it are neither parsed nor validated.
//
// # Timeouts and limits
//
// Each call, or each batch as a whole, runs under [Config.RequestTimeout]. When it
// expires the context is cancelled and the client immediately gets -32002 for every call
// not yet answered, even if a method ignores the cancellation. Results over
// [Config.ResponseLimit], and batch calls after the batch passed
// [Config.BatchResponseLimit], get -32003. See [Config] for every limit.
//
// What a request costs is bounded by the limits, not by its content: bodies and
// WebSocket messages are read into doubling buffers (under twice their size in
// allocations), a batch materialises at most BatchItemLimit messages and a call at most 65
// params. Refusing the largest body or message the limits let through allocates little
// more than the body itself (TestBatchTooLargeMemory).
//
// # WebSocket and subscriptions
//
// Each WebSocket connection has a reader, a writer and a pinger goroutine. Messages on one
// connection are handled concurrently (at most [Config.WSInFlight] at a time), so
// responses may come back in a different order than the requests, as with go-ethereum;
// within a batch the order is kept. The messages whose calls run hold at most
// [Config.WSReadLimit] bytes (one message always fits); until calls finish the reader
// reads nothing more, so a client pipelining large messages waits in TCP, not in memory.
// A message over WSReadLimit closes the connection with status 1009 and the reason
// "message too big: over the read limit of N bytes". All outbound messages go through one
// queue drained by the writer, which is the only goroutine writing data frames.
//
// eth_subscribe(kind, params...) calls the [SubscribeFunc] registered for kind, which
// arranges for [Subscription.Notify] to be called until [Subscription.Done] is closed.
// Notify never blocks. The queue has a byte budget ([Config.WSSendQueueBytes]), not a
// message count: a burst of notifications over it is written as fast as the client reads,
// and only a backlog that stays over it for [Config.WSSlowConsumerTimeout] (or reaches four
// times it, or a write the client does not take for 10 s) closes the connection as a slow
// consumer, so a stuck client cannot hold up the code that publishes events or other
// connections. Notifications are never sent before the eth_subscribe response that
// carries the subscription ID. eth_unsubscribe(id) returns true, or false when the ID is
// unknown on the connection. Over HTTP both return -32601 "notifications not supported".
//
// # HTTP
//
// One flow serves every HTTP request (http.go): the transport reads the head, decide
// applies the endpoint's checks in go-ethereum's order (virtual host, method, body
// length, content type, WebSocket origin) and serveJSON answers the body through a
// responder that writes the bytes. [Server.ServeHTTP] is that flow inside any
// http.Server. [Server.Serve] serves a listener with a fast path in front of its own
// http.Server: the requests of ordinary JSON-RPC clients (POST, HTTP/1.1, Content-Length,
// at most one Content-Type and Origin, no Expect, Transfer-Encoding or Upgrade) that
// decide lets through and that need no header fields of their own (no CORS) are read,
// answered and written by a minimal HTTP/1.1 loop per connection, one read and one write
// per request. The first request of any other kind (health checks, WebSocket upgrades,
// chunked bodies, curl's Expect: 100-continue, refusals such as 403, 405, 413 and 415,
// CORS, malformed requests) hands the connection, with the bytes already read, to the
// http.Server for good. Both paths give the same answers byte for byte, Date aside, and
// apply the same limits and timeouts; docs/fastpaths.md names the tests that compare
// them. The fast path does not watch a connection while a method runs: a client that goes
// away is noticed at the next read or write, not by cancelling the call.
//
// # Exposure
//
// As go-ethereum's node does, the endpoint refuses web pages of other sites, which can
// otherwise reach a loopback node through DNS rebinding (exposure.go): a request whose
// Host is not in [Config.VirtualHosts] (IP literals and no Host always pass) gets 403, a
// WebSocket upgrade whose Origin is not in [Config.WSOrigins] (default: the endpoint's own
// localhost origins; no Origin always passes) gets 403, and CORS headers go only to
// [Config.CORSOrigins].
//
// # Concurrency
//
// A [Server] is safe for concurrent use. Over HTTP a request is handled on its
// connection's goroutine (net/http's or the fast path's). Methods and SubscribeFuncs are
// called concurrently and must synchronise their own state. [Subscription] methods may
// be called from any goroutine. [Server.Shutdown] stops both HTTP paths and closes every
// WebSocket connection, which http.Server.Shutdown does not do.
package rpc
