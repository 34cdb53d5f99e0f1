package rpc

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// An exchange answers the messages of one request: an HTTP body or a WebSocket message,
// holding a single message or a batch. A single message is handled as a batch of one
// that is framed without brackets.
//
// run executes the calls in order on the caller's goroutine under one deadline
// (go-ethereum handles a batch the same way). If the deadline passes first, the timer,
// on its own goroutine, sends the entries answered so far plus -32002 for the
// rest and any later results are dropped. mu makes sure exactly one response is sent.
// Subscriptions created by the calls are activated only after the response is queued, so
// their notifications never overtake it.
type exchange struct {
	srv    *Server
	out    responder // sends the response
	conn   *wsConn   // WebSocket connection, for subscriptions; nil over HTTP
	reqs   []request
	batch  bool
	over   bool               // the batch has more items than Config.BatchItemLimit
	one    [1]request         // backing array for single messages
	params [8]json.RawMessage // backing array for the Params of the running call
	expire func()             // x.onExpire, bound once
	timer  *time.Timer        // runs expire at the deadline; created once, re-armed by run

	mu    sync.Mutex
	resp  *buffer         // response under construction; guarded by mu
	items int             // entries in out; guarded by mu
	next  int             // index of the first message not yet answered; guarded by mu
	size  int             // bytes of results and errors in out; guarded by mu
	sent  bool            // the response was sent (or there was none); guarded by mu
	subs  []*Subscription // created by answered calls; guarded by mu
}

// getExchange returns an idle exchange from the pool.
func (s *Server) getExchange() *exchange {
	if x, ok := s.exchanges.Get().(*exchange); ok {
		return x
	}
	x := &exchange{srv: s}
	x.expire = x.onExpire
	return x
}

// putExchange returns x to the pool. Only an exchange whose expire function never ran may
// be reused, since that goroutine may still hold it.
func (s *Server) putExchange(x *exchange) {
	clear(x.reqs) // drop references into the request buffer
	x.reqs = x.reqs[:0]
	if cap(x.reqs) > maxPooledBatch {
		x.reqs = nil
	}
	clear(x.subs)
	clear(x.params[:])
	x.out, x.conn, x.batch, x.over, x.subs = nil, nil, false, false, x.subs[:0]
	x.resp, x.items, x.next, x.size, x.sent = nil, 0, 0, 0, false
	s.exchanges.Put(x)
}

// parse splits body into the exchange's messages.
func (x *exchange) parse(body []byte) error {
	dst := x.reqs[:0]
	if cap(dst) == 0 {
		dst = x.one[:0]
	}
	reqs, batch, err := parseBody(body, dst, x.srv.cfg.BatchItemLimit)
	x.reqs, x.batch = reqs, batch
	if err == errBatchTooLarge {
		x.over = true // answered by checkBatch
		return nil
	}
	return err
}

// run answers the messages and sends the response. It reports whether x may be reused.
func (x *exchange) run(ctx context.Context) (reusable bool) {
	x.resp = x.srv.getBuf()
	if x.batch && !x.checkBatch() {
		return true
	}
	// The deadline is enforced twice: the context's own timer cancels the methods, and
	// x.timer answers for them if they do not return. A pooled timer is cheaper than
	// context.AfterFunc.
	ld, timeout := x.srv.callContext(ctx)
	if ld != nil {
		ctx = ld
		defer ld.stop()
		if x.timer == nil {
			x.timer = time.AfterFunc(timeout, x.expire)
		} else {
			x.timer.Reset(timeout)
		}
	}
	for i := range x.reqs {
		if ctx.Err() != nil {
			break
		}
		o := x.srv.answer(ctx, x, &x.reqs[i])
		if ctx.Err() != nil {
			// The deadline passed while the call ran: it is answered as timed out even
			// if the method returned (typically ctx.Err()) before the timer fired.
			if o.sub != nil {
				x.conn.unsubscribe(o.sub.id)
			}
			break
		}
		if !x.add(i, o) {
			break
		}
	}
	// A timer that already fired may still be running expire on its goroutine.
	reusable = ld == nil || x.timer.Stop()
	x.mu.Lock()
	defer x.mu.Unlock()
	if ctx.Err() != nil {
		x.timeoutLocked(false)
	} else {
		x.sendLocked(false)
	}
	return reusable
}

// checkBatch answers an empty or oversized batch with one error and reports whether the
// batch may run.
func (x *exchange) checkBatch() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	switch {
	case x.over:
		// go-ethereum puts the id of the first call on the error. Only the items up to
		// the limit were parsed, so a call after them is not seen.
		id := jsonNull
		for i := range x.reqs {
			if x.reqs[i].isCall() {
				id = x.reqs[i].id
				break
			}
		}
		x.appendLocked(id, nil, batchTooLarge(x.srv.cfg.BatchItemLimit))
	case len(x.reqs) == 0:
		// Not an array: there is no entry the error could belong to.
		x.batch = false
		x.appendLocked(jsonNull, nil, errEmptyBatch)
	default:
		return true
	}
	x.sendLocked(false)
	return false
}

// add records the outcome of message i. It reports whether to go on with the batch.
func (x *exchange) add(i int, o outcome) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.sent {
		// Timed out meanwhile: the client got -32002 and never learns this result.
		if o.sub != nil {
			x.conn.unsubscribe(o.sub.id)
		}
		return false
	}
	x.next = i + 1
	if o.skip {
		return true
	}
	x.appendLocked(x.reqs[i].replyID(), o.result, o.err)
	if o.sub != nil {
		x.subs = append(x.subs, o.sub)
	}
	if limit := x.srv.cfg.BatchResponseLimit; x.batch && limit >= 0 && x.size > limit {
		x.failRestLocked(errResponseTooLarge)
		x.sendLocked(false)
		return false
	}
	return true
}

// onExpire runs on its own goroutine when the exchange's context ends, which may be
// while a method is still running.
func (x *exchange) onExpire() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.timeoutLocked(true)
}

// timeoutLocked answers the messages not yet answered with -32002 and sends the response,
// unless it was sent already.
func (x *exchange) timeoutLocked(late bool) {
	if x.sent {
		return
	}
	x.failRestLocked(errTimeout)
	x.sendLocked(late)
}

// failRestLocked answers every message not yet answered with e.
func (x *exchange) failRestLocked(e *Error) {
	for j := x.next; j < len(x.reqs); j++ {
		if r := &x.reqs[j]; r.answered() {
			x.appendLocked(r.replyID(), nil, e)
		}
	}
	x.next = len(x.reqs)
}

// appendLocked appends one response entry: result, or e when it is not nil.
func (x *exchange) appendLocked(id, result []byte, e *Error) {
	b := x.resp.b
	if x.batch {
		if x.items == 0 {
			b = append(b, '[')
		} else {
			b = append(b, ',')
		}
	}
	b = appendResponseStart(b, id, e != nil)
	start := len(b)
	if e != nil {
		b = appendError(b, e)
	} else {
		b = append(b, result...)
	}
	x.size += len(b) - start
	x.resp.b = append(b, '}')
	x.items++
}

// sendLocked sends the response once; late marks a response sent by the timer while a
// method may still be running. An exchange with no entries sends nothing.
func (x *exchange) sendLocked(late bool) {
	if x.sent {
		return
	}
	x.sent = true
	resp := x.resp
	x.resp = nil
	if x.items == 0 {
		x.srv.putBuf(resp)
		return
	}
	if x.batch {
		resp.b = append(resp.b, ']')
	}
	x.out.respond(resp, late)
	for _, sub := range x.subs {
		sub.activate()
	}
}

// writeHTTP writes a complete JSON-RPC response body. A late response is flushed at once,
// since the handler may stay blocked in the method, and it closes the connection: the
// server reads no further request on it until the handler returns, so a client reusing it
// would wait for that too.
//
// Content-Length is set only when net/http would not compute it: for bodies over its
// 2048-byte buffer, and before a flush. That saves two allocations on small responses.
func writeHTTP(w http.ResponseWriter, body []byte, late bool) {
	h := w.Header()
	if late || len(body) > httpChunkingThreshold {
		h["Content-Length"] = []string{strconv.Itoa(len(body))}
	}
	if late {
		h["Connection"] = []string{"close"}
	}
	w.Write(body)
	if f, ok := w.(http.Flusher); late && ok {
		f.Flush()
	}
}

// httpChunkingThreshold is net/http's bufferBeforeChunkingSize: a handler that writes at
// most this much and returns gets a Content-Length computed by net/http.
const httpChunkingThreshold = 2048
