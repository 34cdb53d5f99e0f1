package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"sync"
)

// SubscribeFunc starts one subscription of a kind. It validates params (the eth_subscribe
// parameters after the kind); an error is sent to the client and nothing is subscribed.
// Otherwise it arranges for sub.Notify to be called, from any goroutine, until sub.Done()
// is closed. It must not block. ctx is the eth_subscribe call's context and ends when the
// call returns: tie the subscription's work to sub.Done(), not to ctx. Like a method's,
// params are valid only until it returns: decode the filter before returning.
type SubscribeFunc func(ctx context.Context, params Params, sub *Subscription) error

// Subscription is one eth_subscribe subscription on a WebSocket connection. Its methods
// are safe for concurrent use.
//
// Notifications sent before the client has received the subscription ID are held back
// and queued right after the eth_subscribe response, so the client never sees an ID
// before the response that announces it (go-ethereum's guarantee).
type Subscription struct {
	id   string
	conn *wsConn
	done chan struct{}

	mu      sync.Mutex
	active  bool      // guarded by mu; the eth_subscribe response has been queued
	ended   bool      // guarded by mu; done is closed
	pending []*buffer // guarded by mu; notifications held back until active
	held    int64     // guarded by mu; bytes in pending
}

// ID returns the subscription ID, a hex quantity such as "0x9cef478923ff08bf67fde6c64013158d".
func (s *Subscription) ID() string { return s.id }

// Done returns a channel that is closed when the subscription ends: on eth_unsubscribe,
// when the connection closes (including as a slow consumer) or on server shutdown.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Notify queues the notification {"jsonrpc":"2.0","method":"eth_subscription","params":
// {"subscription":ID,"result":result}}. result is encoded like a [Method] result (a
// json.RawMessage verbatim) before Notify returns, so the caller may reuse it.
//
// Notify never blocks. A client whose backlog stays over the byte budget is closed as a
// slow consumer (Config.WSSendQueueBytes, Config.WSSlowConsumerTimeout); many
// notifications at once are not. Notify reports whether the notification was queued:
// false when the subscription has ended, the connection is closing or result cannot be
// encoded (logged).
func (s *Subscription) Notify(result any) bool {
	srv := s.conn.srv
	b := srv.getNoteBuf()
	b.b = append(b.b, notificationStart...)
	b.b = append(b.b, s.id...)
	b.b = append(b.b, `","result":`...)
	var err error
	if b.b, err = appendValue(b.b, result); err != nil {
		srv.putBuf(b)
		srv.log.Error("cannot encode notification", "subscription", s.id, "err", err)
		return false
	}
	b.b = append(b.b, "}}"...)

	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.ended:
		srv.putBuf(b)
		return false
	case !s.active:
		n := int64(len(b.b))
		if s.held > 0 && s.held+n > srv.cfg.WSSendQueueBytes*wsSendQueueCeiling {
			srv.putBuf(b)
			s.conn.stop(reasonSlowConsumer, fmt.Errorf("%d bytes held back before the subscription was confirmed", s.held+n))
			return false
		}
		s.held += n
		s.pending = append(s.pending, b)
		return true
	}
	return s.conn.notify(b)
}

// activate queues the held-back notifications; it runs after the eth_subscribe response
// has been queued.
func (s *Subscription) activate() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active || s.ended {
		return
	}
	s.active = true
	for i, b := range s.pending {
		if !s.conn.notify(b) {
			for _, rest := range s.pending[i+1:] {
				s.conn.srv.putBuf(rest)
			}
			break
		}
	}
	s.pending, s.held = nil, 0
}

// end closes Done; later notifications are dropped.
func (s *Subscription) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	s.ended = true
	close(s.done)
	if obs := s.conn.srv.obs; obs != nil {
		obs.Subscriptions(-1)
	}
	for _, b := range s.pending {
		s.conn.srv.putBuf(b)
	}
	s.pending, s.held = nil, 0
}

// subscribe handles <namespace>_subscribe: params are the kind and its parameters.
func (s *Server) subscribe(ctx context.Context, conn *wsConn, r *request) outcome {
	if conn == nil {
		return outcome{err: errNotifyUnsupported}
	}
	// Unlike other methods, missing or null params are not an empty list here.
	raw := trimSpace(r.params)
	if len(raw) == 0 || raw[0] != '[' {
		return outcome{err: errNonArrayArgs}
	}
	params, _ := parseParams(raw, nil) // an array cannot fail
	var kind string
	if len(params) == 0 || params[0][0] != '"' || json.Unmarshal(params[0], &kind) != nil {
		return outcome{err: InvalidParams("expected subscription name as first argument")}
	}
	namespace, _, _ := bytes.Cut(r.method, []byte("_"))
	fn := s.kinds[kind]
	if string(namespace) != "eth" || fn == nil {
		return outcome{err: noSubscription(kind, namespace)}
	}

	sub := &Subscription{id: s.newID(), conn: conn, done: make(chan struct{})}
	if s.obs != nil {
		s.obs.Subscriptions(1) // end, which every path below leads to, takes it back
	}
	if !conn.add(sub) {
		sub.end()
		return outcome{err: errConnClosed}
	}
	if err := s.startSubscription(ctx, fn, params[1:], sub); err != nil {
		conn.unsubscribe(sub.id)
		return outcome{err: toError(err)}
	}
	res := make([]byte, 0, len(sub.id)+2)
	return outcome{result: appendString(res, sub.id), sub: sub}
}

// startSubscription runs fn, turning a panic into CodeInternal.
func (s *Server) startSubscription(ctx context.Context, fn SubscribeFunc, params Params, sub *Subscription) (err error) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("rpc subscription panicked", "panic", p, "stack", string(debug.Stack()))
			err = errHandlerCrashed
		}
	}()
	return fn(ctx, params, sub)
}

// unsubscribe handles <namespace>_unsubscribe(id): true when the subscription existed on
// this connection, false otherwise.
func (s *Server) unsubscribe(conn *wsConn, r *request) outcome {
	if conn == nil {
		return outcome{err: errNotifyUnsupported}
	}
	params, perr := parseParams(r.params, nil)
	switch {
	case perr != nil:
		return outcome{err: perr}
	case len(params) == 0 || string(params[0]) == "null":
		return outcome{err: InvalidParams("missing value for required argument 0")}
	case len(params) > 1:
		return outcome{err: InvalidParams("too many arguments, want at most 1")}
	}
	var id string
	if err := json.Unmarshal(params[0], &id); err != nil {
		return outcome{err: InvalidParams("invalid argument 0: %v", err)}
	}
	if conn.unsubscribe(id) {
		return outcome{result: []byte("true")}
	}
	return outcome{result: []byte("false")}
}
