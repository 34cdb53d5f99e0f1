package rpc

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"github.com/coder/websocket"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"sync/atomic"
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
// expires, when a request served by net/http loses its client, or when [Server.Shutdown]
// gives up waiting. On the fast path a client that went away is noticed only at the
// connection's next read or write, after the call. Methods may run concurrently with
// each other. See [Params] for how long the parameters may be used.
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
// http.Handler, and it can serve listeners itself ([Server.Serve]) with a fast path for
// JSON-RPC POST requests in front of its own http.Server. It is safe for concurrent use.
type Server struct {
	cfg     Config
	exp     *exposure               // who may connect (exposure.go)
	methods map[string]*methodEntry // observe.go
	unknown *methodEntry            // calls of methods the Service lacks
	sub     *methodEntry            // <namespace>_subscribe
	unsub   *methodEntry            // <namespace>_unsubscribe
	obs     Observer                // nil: not observed
	kinds   map[string]SubscribeFunc
	log     *slog.Logger
	newID   func() string // subscription IDs; random, or sequential in tests
	http    *http.Server  // serves what the fast path hands over; stopped by Shutdown

	// fastCtx is the parent context of calls on the fast path. It carries http, whose
	// WriteTimeout bounds a call's deadline as over net/http, and is cancelled when
	// Shutdown gives up waiting.
	fastCtx    context.Context
	fastCancel context.CancelFunc

	// contentType is the Content-Type header value of responses, shared by all of them
	// to save an allocation per request; net/http only reads it.
	contentType []string

	bufs      sync.Pool // *buffer
	notes     sync.Pool // *buffer with note set (notification.go)
	exchanges sync.Pool // *exchange

	// fastRequests counts requests served by the fast path, handoffs the connections it
	// handed to net/http.
	fastRequests, handoffs atomic.Uint64

	mu        sync.Mutex
	shutdown  atomic.Bool               // set with mu held: no new connections
	conns     map[*wsConn]struct{}      // guarded by mu; open WebSocket connections
	connWG    sync.WaitGroup            // one per tracked WebSocket connection
	fast      map[*fastConn]struct{}    // guarded by mu; connections on the fast path
	fastWG    sync.WaitGroup            // one per tracked fast-path connection
	listeners map[net.Listener]struct{} // guarded by mu; listeners of running Serve calls
}

// NewServer returns a Server for svc with cfg's limits (zero fields take their defaults).
func NewServer(cfg Config, svc Service) *Server {
	return newServer(cfg, svc, randomID)
}

// newServer is NewServer with a chosen subscription ID generator.
func newServer(cfg Config, svc Service, newID func() string) *Server {
	cfg = cfg.withDefaults()
	s := &Server{
		cfg:   cfg,
		exp:   newExposure(&cfg),
		obs:   cfg.Observer,
		kinds: svc.Subscriptions,
		log:   cfg.Logger,
		newID: newID,
		conns: make(map[*wsConn]struct{}),

		fast:        make(map[*fastConn]struct{}),
		listeners:   make(map[net.Listener]struct{}),
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
	s.methods, s.unknown, s.sub, s.unsub = buildMethods(svc, cfg.Observer)
	s.fastCtx, s.fastCancel = context.WithCancel(context.WithValue(context.Background(), http.ServerContextKey, s.http))
	return s
}

// Serve accepts connections on ln and serves them until [Server.Shutdown], then returns
// http.ErrServerClosed. JSON-RPC POST requests are answered on a fast path of its own
// (fastpath.go); a connection's first request of any other kind hands the connection to
// an http.Server, which serves it from then on. Both apply the Config's timeouts. TLS
// connections (from a tls.NewListener) all go to the http.Server. Serve may be called for
// several listeners; it closes ln before returning.
func (s *Server) Serve(ln net.Listener) error {
	defer ln.Close()
	hl := newHandoffListener(ln.Addr())
	if !s.trackListener(ln, true) {
		return http.ErrServerClosed
	}
	defer s.trackListener(ln, false)
	httpDone := make(chan struct{})
	go func() {
		s.http.Serve(hl)
		hl.Close() // http.Server stopped taking connections: fail further hand-overs
		close(httpDone)
	}()
	err := s.accept(ln, hl)
	hl.Close()
	<-httpDone
	if s.shutdown.Load() {
		return http.ErrServerClosed
	}
	return err
}

// accept accepts connections until ln fails, retrying temporary errors as net/http does,
// and starts a fast-path goroutine for each.
func (s *Server) accept(ln net.Listener, hl *handoffListener) error {
	var delay time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if ne, ok := err.(interface{ Temporary() bool }); ok && ne.Temporary() && !s.shutdown.Load() {
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				s.log.Debug("rpc accept error; retrying", "err", err, "delay", delay)
				time.Sleep(delay)
				continue
			}
			return err
		}
		delay = 0
		if _, ok := nc.(*tls.Conn); ok {
			// net/http does the handshake and HTTP/2; the fast path is for plain TCP.
			s.handoffs.Add(1)
			if !hl.handOver(nc) {
				nc.Close()
			}
			continue
		}
		fc := &fastConn{srv: s, nc: nc, buf: make([]byte, 0, fastReadBuffer)}
		if !s.trackFast(fc) {
			nc.Close()
			continue
		}
		go s.serveFast(fc, hl)
	}
}

// Shutdown stops the server gracefully: it closes the listeners and idle connections,
// lets requests in flight finish (their responses ask the client to close the
// connection), stops the http.Server and closes every WebSocket connection with status
// 1001, ending their subscriptions. It waits for the connections to close or ctx to end,
// whichever is first; in the latter case it closes the remaining fast-path and WebSocket
// connections, cancels the contexts of fast-path calls still running and returns ctx's
// error (net/http's connections are left as http.Server.Shutdown leaves them). WebSocket
// connections accepted through ServeHTTP on another http.Server are closed too.
func (s *Server) Shutdown(ctx context.Context) error {
	conns := s.stopAccepting()
	for _, c := range conns {
		go c.close()
	}
	httpErr := s.http.Shutdown(ctx)

	done := make(chan struct{})
	go func() {
		s.connWG.Wait()
		s.fastWG.Wait()
		close(done)
	}()
	defer s.fastCancel()
	select {
	case <-done:
		return httpErr
	case <-ctx.Done():
		for _, c := range conns {
			c.stop("server shutdown", nil)
		}
		s.mu.Lock()
		for fc := range s.fast {
			fc.nc.Close()
		}
		s.mu.Unlock()
		if httpErr == nil {
			httpErr = ctx.Err()
		}
		return httpErr
	}
}

// CloseWebSockets closes every open WebSocket connection with status 1012 (service restart)
// and reason, ending their subscriptions; the server goes on accepting connections. A node
// whose chain was replaced (a re-fork) calls it: the subscriptions were of the chain that
// is gone, and clients reconnect and subscribe again.
func (s *Server) CloseWebSockets(reason string) {
	s.mu.Lock()
	conns := make([]*wsConn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		go c.ws.Close(websocket.StatusServiceRestart, reason)
	}
}

// stopAccepting marks the server as shut down, closes the listeners and the idle
// fast-path connections, and returns the open WebSocket connections.
func (s *Server) stopAccepting() []*wsConn {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shutdown.Store(true)
	for ln := range s.listeners {
		ln.Close()
	}
	for fc := range s.fast {
		fc.closeIfIdle()
	}
	conns := make([]*wsConn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	return conns
}

// trackListener registers (add) or removes ln; it reports false for an addition after
// Shutdown.
func (s *Server) trackListener(ln net.Listener, add bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !add {
		delete(s.listeners, ln)
		return true
	}
	if s.shutdown.Load() {
		return false
	}
	s.listeners[ln] = struct{}{}
	return true
}

// trackFast registers a fast-path connection; it reports false after Shutdown.
func (s *Server) trackFast(fc *fastConn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdown.Load() {
		return false
	}
	s.fast[fc] = struct{}{}
	s.fastWG.Add(1)
	return true
}

// untrackFast removes a connection registered by trackFast: closed, or handed over.
func (s *Server) untrackFast(fc *fastConn) {
	s.mu.Lock()
	delete(s.fast, fc)
	s.mu.Unlock()
	s.fastWG.Done()
}

// track registers a WebSocket connection; it reports false after Shutdown.
func (s *Server) track(c *wsConn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdown.Load() {
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
// request, and never past parent's own deadline. Without any of these it returns nil and
// zero: the call runs under parent. The caller must stop the context it gets.
func (s *Server) callContext(parent context.Context) (*lazyDeadline, time.Duration) {
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
		return nil, 0
	}
	return newLazyDeadline(parent, timeout), timeout
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
	return outcome{err: errInvalidRequest}
}

// call runs a call or notification, observed when the server has an Observer or logs
// requests.
func (s *Server) call(ctx context.Context, x *exchange, r *request) outcome {
	e := s.lookup(r.method)
	if e.obs == nil && !s.cfg.LogRequests {
		return s.dispatch(ctx, x, r, e)
	}
	start := time.Now()
	o := s.dispatch(ctx, x, r, e)
	s.observeCall(e, r.method, time.Since(start), &o)
	return o
}

// dispatch runs the call of r, whose table entry is e.
func (s *Server) dispatch(ctx context.Context, x *exchange, r *request, e *methodEntry) outcome {
	switch e.kind {
	case entryUnknown:
		if len(r.method) > maxMethodNameLength {
			return outcome{err: methodNameTooLong(len(r.method))}
		}
		return outcome{err: methodNotFound(r.method)}
	case entrySubscribe:
		return s.subscribe(ctx, x.conn, r)
	case entryUnsubscribe:
		return s.unsubscribe(x.conn, r)
	}
	m := e.fn
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
			res, err = nil, errHandlerCrashed
		}
	}()
	return m(ctx, params)
}

// result encodes a method's result, enforcing the response limit.
func (s *Server) result(res any) outcome {
	enc, err := encodeValue(res)
	if err != nil {
		return outcome{err: internalError(err)}
	}
	if s.cfg.ResponseLimit >= 0 && len(enc) > s.cfg.ResponseLimit {
		return outcome{err: errResponseTooLarge}
	}
	return outcome{result: enc}
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
type buffer struct {
	b    []byte
	note bool // a notification's, from and back to the notes pool (getNoteBuf)
}

// getBuf returns an empty buffer from the pool.
func (s *Server) getBuf() *buffer {
	if b, ok := s.bufs.Get().(*buffer); ok {
		return b
	}
	return &buffer{b: make([]byte, 0, 1024)}
}

// putBuf returns b to its pool; the caller must not use it afterwards.
func (s *Server) putBuf(b *buffer) {
	if b != nil && b.note {
		s.putNoteBuf(b)
		return
	}
	if b == nil || cap(b.b) > maxPooledBuffer {
		return
	}
	b.b = b.b[:0]
	s.bufs.Put(b)
}

// grow returns buf with room for at least one more byte: the same slice when it has room,
// else a copy with twice the capacity (at least minBufferGrowth), but no more than upTo
// bytes in all when upTo > len(buf). Doubling keeps the bytes allocated while a message of
// n bytes is read under 2n; append's growth of 1.25x for large slices allocates 5n.
func grow(buf []byte, upTo int64) []byte {
	if len(buf) < cap(buf) {
		return buf
	}
	n := int64(max(2*cap(buf), minBufferGrowth))
	if upTo > int64(len(buf)) && n > upTo {
		n = upTo
	}
	return append(make([]byte, 0, n), buf...)
}

// minBufferGrowth is the smallest capacity grow gives a buffer.
const minBufferGrowth = 4 << 10
