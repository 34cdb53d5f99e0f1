package rpc

import (
	"log/slog"
	"net/http"
	"time"
)

// Config holds every limit and timeout of a [Server]. The zero value is valid: [NewServer]
// replaces each zero field with its default, listed on the field.
type Config struct {
	// BodyLimit is the largest HTTP request body in bytes. A larger body is refused with
	// HTTP 413, as go-ethereum does. Zero means 5 MiB; a negative value removes the limit.
	BodyLimit int64

	// BatchItemLimit is the largest number of messages in one batch. A larger batch is
	// answered with one -32600 "batch too large" error (data: {"limit": n}), as soon as
	// the scanner reaches the message past the limit: no more than n messages are ever
	// parsed. Zero means 1000; a negative value removes the limit.
	BatchItemLimit int

	// BatchResponseLimit caps the bytes of results and errors in one batch response. Once a
	// batch passes it, the calls not yet run are answered with -32003 "response too large".
	// Zero means 25,000,000; a negative value removes the limit.
	BatchResponseLimit int

	// ResponseLimit is the largest encoded result of one call in bytes. A larger result is
	// replaced with -32003 "response too large". Zero means 128 MiB; a negative value
	// removes the limit.
	ResponseLimit int

	// RequestTimeout bounds one call, or one whole batch. When it expires the call's context
	// is cancelled and the client gets -32002 "request timed out" for every call not yet
	// answered, even if the method is still running. Over HTTP the deadline is also kept
	// 100 ms below the http.Server's WriteTimeout, as go-ethereum does. Zero means 30 s; a
	// negative value removes the timeout.
	RequestTimeout time.Duration

	// WSReadLimit is the largest WebSocket message in bytes. A larger message closes the
	// connection with status 1009 and the reason "message too big: over the read limit of
	// N bytes". It also bounds the bytes of the messages whose calls run at once on one
	// connection (a message always fits when none runs). Zero means 32 MiB; a negative
	// value removes both bounds.
	WSReadLimit int64

	// WSSendQueueBytes is the byte budget of the outbound messages buffered per WebSocket
	// connection, written as fast as the client reads. A backlog over it is allowed for
	// WSSlowConsumerTimeout: a burst of notifications (a block's 10,000 logs, a
	// newFlashblocks message of tens of KB) is not a slow client. A backlog that stays over
	// it longer, or that reaches four times it (so that a stalled client holds a bounded
	// amount of memory), closes the connection as a slow consumer; so does one write that
	// the client does not take for 10 s. Responses wait while the backlog is over it. A
	// message always fits an empty queue. Zero or negative means 16 MiB.
	WSSendQueueBytes int64

	// WSSlowConsumerTimeout is how long a WebSocket connection's backlog may stay over
	// WSSendQueueBytes before the connection is closed as a slow consumer. Zero or negative
	// means 10 s.
	WSSlowConsumerTimeout time.Duration

	// WSInFlight is the number of calls (or batches) one WebSocket connection may have
	// running at once. When it is reached the server stops reading from that connection
	// until a call finishes. Zero or negative means 256.
	WSInFlight int

	// ReadHeaderTimeout, ReadTimeout, WriteTimeout and IdleTimeout apply, as in
	// http.Server, to the connections [Server.Serve] accepts, on the fast path and in the
	// http.Server it hands connections to; they do not apply when the Server is mounted
	// in another http.Server. Zero means 5 s, 30 s, 35 s and 120 s; a negative value
	// means no timeout. WriteTimeout should stay above RequestTimeout so that a slow call
	// is answered with -32002 rather than a dropped connection. Hijacked WebSocket
	// connections are not subject to them.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration

	// VirtualHosts lists the host names a request's Host header may name, as
	// go-ethereum's --http.vhosts: others get 403 "invalid host specified". IP literals
	// and requests without Host are always allowed; "*" allows every name. It keeps web
	// pages that reach a loopback node through DNS rebinding out. Nil means
	// {"localhost"}. It applies to every request: POST, GET and WebSocket upgrades.
	VirtualHosts []string

	// WSOrigins lists the origins a WebSocket upgrade may come from, as go-ethereum's
	// --ws.origins: "scheme://host:port", or a rule that leaves out the scheme or the port
	// ("localhost" allows any of them); "*" allows every origin. An upgrade from another
	// origin gets 403; one without an Origin header (not a browser) is always allowed. Nil
	// means the endpoint's own localhost origins: http:// and https:// with localhost,
	// 127.0.0.1 and [::1] on the port the connection came in on.
	WSOrigins []string

	// CORSOrigins lists the origins that get CORS headers, as go-ethereum's
	// --http.corsdomain: a request whose Origin is listed gets Access-Control-Allow-Origin
	// and a preflight (OPTIONS) is answered 204 with the allowed method and headers; "*"
	// allows every origin. Nil means none: no CORS headers, so browser pages of other
	// origins cannot read responses, and OPTIONS gets 405.
	CORSOrigins []string

	// Logger receives panics of methods (with stack), slow-consumer disconnects and
	// WebSocket errors. Nil discards.
	Logger *slog.Logger

	// LogRequests logs one Info line per call to Logger: method, duration and error code
	// (0 for success). False logs no line per request.
	LogRequests bool

	// Observer is told about calls, WebSocket connections and subscriptions (observe.go);
	// nil observes nothing and costs nothing.
	Observer Observer

	// Pages answers the GET requests that are not WebSocket upgrades (after the Host
	// check): a health check, a page for browsers. Nil answers them 200 with an empty
	// body, as go-ethereum does.
	Pages http.Handler
}

// Defaults for zero [Config] fields. The exported ones are the defaults of command-line flags
// too.
const (
	DefaultBodyLimit             = 5 << 20
	DefaultBatchItemLimit        = 1000
	DefaultBatchResponseLimit    = 25_000_000
	DefaultResponseLimit         = 128 << 20
	DefaultRequestTimeout        = 30 * time.Second
	DefaultWSReadLimit           = 32 << 20
	DefaultWSSendQueueBytes      = 16 << 20
	DefaultWSSlowConsumerTimeout = 10 * time.Second
	DefaultVirtualHost           = "localhost"
	defaultWSInFlight            = 256
	defaultReadHeaderTimeout     = 5 * time.Second
	defaultReadTimeout           = 30 * time.Second
	defaultWriteTimeout          = 35 * time.Second
	defaultIdleTimeout           = 120 * time.Second
)

// Fixed limits.
const (
	// maxMethodNameLength is go-ethereum's limit on method names.
	maxMethodNameLength = 2048

	// maxJSONDepth is the deepest nesting the scanner accepts, as encoding/json.
	maxJSONDepth = 10000

	// writeTimeoutMargin keeps a call's deadline this far below the HTTP WriteTimeout, so
	// that the timeout error is written before the connection is cut (go-ethereum: 100 ms).
	writeTimeoutMargin = 100 * time.Millisecond

	// wsPingInterval is how often an idle WebSocket connection is pinged; wsPongTimeout is
	// how long the pong may take before the connection is closed.
	wsPingInterval = 30 * time.Second
	wsPongTimeout  = 30 * time.Second

	// wsWriteTimeout bounds writing one WebSocket message; a client that does not read
	// for that long is disconnected as a slow consumer (go-ethereum's defaultWriteTimeout).
	wsWriteTimeout = 10 * time.Second

	// wsSendQueueCeiling times Config.WSSendQueueBytes is the most a WebSocket connection's
	// backlog may reach: a notification that would take it further closes the connection
	// as a slow consumer at once, however short the time over the budget.
	wsSendQueueCeiling = 4

	// maxPooledBuffer is the largest buffer kept for reuse; larger ones are left to the GC.
	maxPooledBuffer = 1 << 20

	// maxPooledNote is the largest notification buffer kept for reuse (notification.go).
	maxPooledNote = 64 << 10

	// maxPooledBatch is the largest request slice an exchange keeps for reuse.
	maxPooledBatch = 64
)

// withDefaults returns c with every zero field replaced by its default and negative
// limits turned into "no limit" (zero, or the type's maximum for sizes).
func (c Config) withDefaults() Config {
	c.BodyLimit = limit64(c.BodyLimit, DefaultBodyLimit)
	c.WSReadLimit = limit64(c.WSReadLimit, DefaultWSReadLimit)
	c.BatchItemLimit = limit(c.BatchItemLimit, DefaultBatchItemLimit)
	c.BatchResponseLimit = limit(c.BatchResponseLimit, DefaultBatchResponseLimit)
	c.ResponseLimit = limit(c.ResponseLimit, DefaultResponseLimit)
	c.RequestTimeout = timeout(c.RequestTimeout, DefaultRequestTimeout)
	c.ReadHeaderTimeout = timeout(c.ReadHeaderTimeout, defaultReadHeaderTimeout)
	c.ReadTimeout = timeout(c.ReadTimeout, defaultReadTimeout)
	c.WriteTimeout = timeout(c.WriteTimeout, defaultWriteTimeout)
	c.IdleTimeout = timeout(c.IdleTimeout, defaultIdleTimeout)
	if c.WSSendQueueBytes <= 0 {
		c.WSSendQueueBytes = DefaultWSSendQueueBytes
	}
	if c.WSSlowConsumerTimeout <= 0 {
		c.WSSlowConsumerTimeout = DefaultWSSlowConsumerTimeout
	}
	if c.WSInFlight <= 0 {
		c.WSInFlight = defaultWSInFlight
	}
	if c.VirtualHosts == nil {
		c.VirtualHosts = []string{DefaultVirtualHost}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// limit maps zero to def and a negative value to -1 (no limit).
func limit(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return -1
	}
	return v
}

// limit64 is limit for int64 sizes.
func limit64(v, def int64) int64 {
	switch {
	case v == 0:
		return def
	case v < 0:
		return -1
	}
	return v
}

// timeout maps zero to def and a negative value to zero (no timeout).
func timeout(v, def time.Duration) time.Duration {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}
