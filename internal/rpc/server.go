package rpc

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"time"
)

// Method answers one call. The result is written as JSON: a json.RawMessage is written
// verbatim (it is trusted to be valid JSON, so hot objects can be encoded ahead of time),
// anything else goes through encoding/json. A nil result with a nil error is written as
// null. An error that is an [*Error] (errors.As) is sent with its code, message and data;
// any other error as [CodeServer] with err.Error(). A panic is recovered, logged with its
// stack and sent as [CodeInternal].
//
// ctx carries the call's deadline ([Config.RequestTimeout]) and is cancelled when it
// expires or the client goes away. Methods may run concurrently with each other. See
// [Params] for how long the parameters may be used.
type Method func(ctx context.Context, params Params) (any, error)

// Service is the method table of one endpoint. It is read, never modified, by the server;
// it must not be modified after [NewServer].
type Service struct {
	// Methods maps full method names ("eth_chainId") to their implementation.
	Methods map[string]Method

	// Subscriptions maps eth_subscribe kinds ("newHeads", "logs") to their implementation.
	Subscriptions map[string]SubscribeFunc
}

// Server is a JSON-RPC 2.0 server for HTTP POST and WebSocket on one path. It is an
// http.Handler and can also run its own http.Server ([Server.Serve]). It is safe for
// concurrent use.
type Server struct {
	cfg     Config
	methods map[string]Method
	kinds   map[string]SubscribeFunc
	log     *slog.Logger
	newID   func() string // subscription IDs; random, or sequential in tests
	http    *http.Server  // run by Serve, stopped by Shutdown

	// contentType is the Content-Type header value of responses, shared by all of them
	// to save an allocation per request; net/http only reads it.
	contentType []string

	bufs      sync.Pool // *buffer
	exchanges sync.Pool // *exchange

	mu       sync.Mutex
	shutdown bool                 // guarded by mu; no new WebSocket connections
	conns    map[*wsConn]struct{} // guarded by mu; open WebSocket connections
	connWG   sync.WaitGroup       // one per tracked WebSocket connection
}

// NewServer returns a Server for svc with cfg's limits (zero fields take their defaults).
func NewServer(cfg Config, svc Service) *Server {
	return newServer(cfg, svc, randomID)
}

// newServer is NewServer with a chosen subscription ID generator.
func newServer(cfg Config, svc Service, newID func() string) *Server {
	cfg = cfg.withDefaults()
	s := &Server{
		cfg:     cfg,
		methods: svc.Methods,
		kinds:   svc.Subscriptions,
		log:     cfg.Logger,
		newID:   newID,
		conns:   make(map[*wsConn]struct{}),

		contentType: []string{contentType},
	}
	s.http = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		ReadTimeout:       cfg.ReadTimeout,
		WriteTimeout:      cfg.WriteTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelDebug),
	}
	return s
}

// Serve accepts connections on ln and serves them with an http.Server configured with
// the Config's timeouts. It blocks; after [Server.Shutdown] it returns
// http.ErrServerClosed. It may be called for several listeners.
func (s *Server) Serve(ln net.Listener) error {
	return s.http.Serve(ln)
}

// Shutdown stops the http.Server gracefully (no new connections, in-flight HTTP calls
// finish) and closes every WebSocket connection with status 1001, ending their
// subscriptions. It waits for the connections to close or ctx to end, whichever is first,
// and returns ctx's error in the latter case. WebSocket connections accepted through
// ServeHTTP on another http.Server are closed too.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.shutdown = true
	conns := make([]*wsConn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()

	for _, c := range conns {
		go c.close()
	}
	httpErr := s.http.Shutdown(ctx)

	done := make(chan struct{})
	go func() {
		s.connWG.Wait()
		close(done)
	}()
	select {
	case <-done:
		return httpErr
	case <-ctx.Done():
		for _, c := range conns {
			c.stop("server shutdown", nil)
		}
		if httpErr == nil {
			httpErr = ctx.Err()
		}
		return httpErr
	}
}

// track registers a WebSocket connection; it reports false after Shutdown.
func (s *Server) track(c *wsConn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdown {
		return false
	}
	s.conns[c] = struct{}{}
	s.connWG.Add(1)
	return true
}

// untrack removes a connection registered by track.
func (s *Server) untrack(c *wsConn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	s.connWG.Done()
}

// callContext returns the context for one call or batch and its timeout: parent with
// Config.RequestTimeout, kept 100 ms below the WriteTimeout of the http.Server serving the
// request, and never past parent's own deadline. Without any of these it returns parent,
// a nil cancel and zero.
func (s *Server) callContext(parent context.Context) (context.Context, context.CancelFunc, time.Duration) {
	timeout := s.cfg.RequestTimeout
	if hs, ok := parent.Value(http.ServerContextKey).(*http.Server); ok && hs.WriteTimeout > 0 {
		wt := max(hs.WriteTimeout-writeTimeoutMargin, hs.WriteTimeout/2)
		if timeout <= 0 || wt < timeout {
			timeout = wt
		}
	}
	if deadline, ok := parent.Deadline(); ok {
		if until := max(time.Until(deadline), 1); timeout <= 0 || until < timeout {
			timeout = until
		}
	}
	if timeout <= 0 {
		return parent, nil, 0
	}
	ctx := newLazyDeadline(parent, timeout)
	return ctx, ctx.stop, timeout
}

// outcome is the answer to one message, before it is framed.
type outcome struct {
	skip   bool          // no response entry: a notification or an ignored response
	result []byte        // encoded result when err is nil
	err    *Error        // error to send instead of a result
	sub    *Subscription // created by this call; activated once the response is queued
}

// answer runs one message of exchange x.
func (s *Server) answer(ctx context.Context, x *exchange, r *request) outcome {
	switch {
	case r.isCall():
		return s.call(ctx, x, r)
	case r.isNotification():
		// Notifications run but get no response. Subscription notifications are
		// addressed to clients and ignored, as go-ethereum does.
		if !bytes.HasSuffix(r.method, []byte("_subscription")) {
			if o := s.call(ctx, x, r); o.sub != nil {
				x.conn.unsubscribe(o.sub.id) // nobody can learn its ID
			}
		}
		return outcome{skip: true}
	case r.isResponse():
		return outcome{skip: true}
	}
	return outcome{err: &Error{Code: CodeInvalidRequest, Message: msgInvalidRequest}}
}

// call runs a call or notification.
func (s *Server) call(ctx context.Context, x *exchange, r *request) outcome {
	if len(r.method) > maxMethodNameLength {
		return outcome{err: NewError(CodeInvalidRequest, "method name too long: %d > %d", len(r.method), maxMethodNameLength)}
	}
	if bytes.HasSuffix(r.method, []byte("_subscribe")) {
		return s.subscribe(ctx, x.conn, r)
	}
	if bytes.HasSuffix(r.method, []byte("_unsubscribe")) {
		return s.unsubscribe(x.conn, r)
	}
	m := s.methods[string(r.method)]
	if m == nil {
		return outcome{err: methodNotFound(r.method)}
	}
	// The exchange's scratch array backs the Params: calls of an exchange run one at a
	// time, and Params must not outlive the call.
	params, perr := parseParams(r.params, x.params[:0])
	if perr != nil {
		return outcome{err: perr}
	}
	res, err := s.invoke(ctx, r.method, m, params)
	if err != nil {
		return outcome{err: toError(err)}
	}
	return s.result(res)
}

// invoke runs m, turning a panic into CodeInternal.
func (s *Server) invoke(ctx context.Context, method []byte, m Method, params Params) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("rpc method panicked", "method", string(method), "panic", p, "stack", string(debug.Stack()))
			res, err = nil, &Error{Code: CodeInternal, Message: msgHandlerCrashed}
		}
	}()
	return m(ctx, params)
}

// result encodes a method's result, enforcing the response limit.
func (s *Server) result(res any) outcome {
	enc, err := encodeValue(res)
	if err != nil {
		return outcome{err: &Error{Code: CodeInternal, Message: err.Error()}}
	}
	if s.cfg.ResponseLimit >= 0 && len(enc) > s.cfg.ResponseLimit {
		return outcome{err: &Error{Code: CodeResponseTooLarge, Message: msgResponseTooLarge}}
	}
	return outcome{result: enc}
}

// methodNotFound is go-ethereum's -32601 error.
func methodNotFound(method []byte) *Error {
	return &Error{Code: CodeMethodNotFound, Message: "the method " + string(method) + " does not exist/is not available"}
}

// randomID returns a subscription ID: 16 random bytes as a hex quantity (go-ethereum's
// format: "0x" and up to 32 hex digits without leading zeros).
func randomID() string {
	var b [16]byte
	rand.Read(b[:])
	return hexQuantity(b[:])
}

// hexQuantity formats b as a JSON-RPC quantity: "0x" without leading zeros, "0x0" for zero.
func hexQuantity(b []byte) string {
	h := bytes.TrimLeft([]byte(hex.EncodeToString(b)), "0")
	if len(h) == 0 {
		return "0x0"
	}
	return "0x" + string(h)
}

// buffer is a reusable byte slice.
type buffer struct{ b []byte }

// getBuf returns an empty buffer from the pool.
func (s *Server) getBuf() *buffer {
	if b, ok := s.bufs.Get().(*buffer); ok {
		return b
	}
	return &buffer{b: make([]byte, 0, 1024)}
}

// putBuf returns b to the pool; the caller must not use it afterwards.
func (s *Server) putBuf(b *buffer) {
	if b == nil || cap(b.b) > maxPooledBuffer {
		return
	}
	b.b = b.b[:0]
	s.bufs.Put(b)
}
