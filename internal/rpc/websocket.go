package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// wsConn is one WebSocket connection. Its goroutines:
//
//   - the reader (the HTTP handler's goroutine) reads messages and starts one goroutine per
//     message, at most Config.WSInFlight at a time; so calls on one connection run
//     concurrently and may be answered out of order, as in go-ethereum;
//   - the writer is the only goroutine writing data frames; it takes messages from the
//     send queue (sendQueue), in the order they were queued;
//   - the pinger pings every wsPingInterval.
//
// The queue counts bytes, not messages: a block's worth of notifications, however many,
// is queued at once and written as fast as the client reads. Responses wait while the
// backlog is over Config.WSSendQueueBytes (the client's own requests are throttled by its
// reading). Notifications never wait; the connection is closed as a slow consumer when the
// backlog stays over Config.WSSendQueueBytes for Config.WSSlowConsumerTimeout, when it
// reaches wsSendQueueCeiling times that budget, or when one write finds the client not
// reading for wsWriteTimeout. The connection ends when the reader fails, the writer fails,
// a ping fails, the client is a slow consumer or the server shuts down; stop records the
// first reason.
type wsConn struct {
	srv      *Server
	ws       *websocket.Conn
	remote   string
	ctx      context.Context // parent of every call; cancelled when the connection ends
	cancel   context.CancelFunc
	q        sendQueue
	quit     chan struct{} // closed by stop
	inflight chan struct{} // one token per running call
	held     *byteBudget   // bytes of the messages whose calls run; nil: no read limit
	stopOnce sync.Once
	wg       sync.WaitGroup // writer and pinger

	mu     sync.Mutex
	subs   map[string]*Subscription // guarded by mu
	closed bool                     // guarded by mu; no new subscriptions
}

// reasonSlowConsumer is logged when a connection is closed because its client does not read
// what is sent to it.
const reasonSlowConsumer = "slow consumer"

// sendQueue holds a connection's outbound messages until the writer has written them.
type sendQueue struct {
	mu     sync.Mutex
	msgs   []*buffer     // guarded by mu; waiting for the writer
	bytes  int64         // guarded by mu; of msgs and of the message being written
	over   *time.Timer   // guarded by mu; runs while bytes is over the budget
	overID uint64        // guarded by mu; counts the timers, so a stale one does nothing
	room   chan struct{} // guarded by mu; closed when bytes falls to the budget
	wake   chan struct{} // capacity 1: msgs has messages the writer has not seen
}

// serveWebSocket upgrades the request and serves the connection until it ends.
func (s *Server) serveWebSocket(w http.ResponseWriter, r *http.Request) {
	if s.shutdown.Load() {
		http.Error(w, "server shutting down", http.StatusServiceUnavailable)
		return
	}
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		InsecureSkipVerify: true, // any Origin, like go-ethereum with "*"
		CompressionMode:    websocket.CompressionDisabled,
	})
	if err != nil {
		s.log.Debug("websocket upgrade failed", "remote", r.RemoteAddr, "err", err)
		return // Accept has written the HTTP error
	}
	ws.SetReadLimit(-1) // readMessage enforces Config.WSReadLimit, with a clearer close reason
	ctx, cancel := context.WithCancel(context.Background())
	c := &wsConn{
		srv:      s,
		ws:       ws,
		remote:   r.RemoteAddr,
		ctx:      ctx,
		cancel:   cancel,
		quit:     make(chan struct{}),
		inflight: make(chan struct{}, s.cfg.WSInFlight),
		subs:     make(map[string]*Subscription),
	}
	c.q.wake = make(chan struct{}, 1)
	if limit := s.cfg.WSReadLimit; limit >= 0 {
		c.held = newByteBudget(max(limit, 1))
	}
	if !s.track(c) {
		cancel()
		ws.Close(websocket.StatusGoingAway, "server shutting down")
		return
	}
	defer s.untrack(c)
	if s.obs != nil {
		s.obs.WebSocketConns(1)
		defer s.obs.WebSocketConns(-1)
	}
	c.wg.Add(2)
	go c.writeLoop()
	go c.pingLoop()
	err = c.readLoop()
	c.teardown(err)
}

// errMessageTooBig reports a WebSocket message over Config.WSReadLimit.
var errMessageTooBig = errors.New("message too big")

// readLoop reads messages until the connection fails. A message waits for an inflight
// token and for room in the byte budget before its goroutine starts, and the reader
// reads nothing meanwhile: a client that pipelines messages faster than they are answered
// is throttled by TCP, and holds at most WSInFlight calls and, besides the message being
// read, WSReadLimit bytes of messages.
func (c *wsConn) readLoop() error {
	for {
		_, rd, err := c.ws.Reader(c.ctx)
		if err != nil {
			return err
		}
		msg := c.srv.getBuf()
		if msg.b, err = readMessage(rd, msg.b, c.srv.cfg.WSReadLimit); err != nil {
			c.srv.putBuf(msg)
			return err
		}
		n := c.held.clamp(int64(len(msg.b)))
		select {
		case c.inflight <- struct{}{}:
		case <-c.quit:
			c.srv.putBuf(msg)
			return errors.New("connection stopped")
		}
		if !c.held.acquire(n, c.quit) {
			<-c.inflight
			c.srv.putBuf(msg)
			return errors.New("connection stopped")
		}
		go c.handle(msg, n)
	}
}

// readMessage appends the message in r to buf. More than limit bytes (negative: no
// limit) is errMessageTooBig, after reading at most limit+1 bytes of it.
func readMessage(r io.Reader, buf []byte, limit int64) ([]byte, error) {
	start, upTo := len(buf), int64(-1)
	if limit >= 0 {
		upTo = int64(start) + limit + 1
	}
	for {
		if len(buf) == cap(buf) && len(buf) > start {
			// Full: a message that fills the buffer exactly (a power of two, the read
			// limit itself) ends here more often than not. Look for its end before
			// growing, which would copy it once more.
			var probe [1]byte
			n, err := io.ReadFull(r, probe[:])
			if err == io.EOF {
				return buf, nil
			}
			if err != nil {
				return buf, err
			}
			if limit >= 0 && int64(len(buf)-start+n) > limit {
				return buf, errMessageTooBig // without growing the buffer for it
			}
			buf = append(grow(buf, upTo), probe[:n]...)
		}
		buf = grow(buf, upTo)
		p := buf[len(buf):cap(buf)]
		if limit >= 0 {
			if room := limit + 1 - int64(len(buf)-start); int64(len(p)) > room {
				p = p[:room]
			}
		}
		n, err := r.Read(p)
		buf = buf[:len(buf)+n]
		if limit >= 0 && int64(len(buf)-start) > limit {
			return buf, errMessageTooBig
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// handle answers one message; it owns msg, one inflight token and n bytes of the budget.
func (c *wsConn) handle(msg *buffer, n int64) {
	defer func() {
		c.held.release(n)
		<-c.inflight
		c.srv.putBuf(msg)
	}()
	c.srv.serveJSON(c.ctx, msg.b, c, c)
}

// respond implements responder: it queues the response of an exchange.
func (c *wsConn) respond(out *buffer, late bool) { c.reply(out) }

// byteBudget bounds the bytes of the messages a connection holds while their calls run.
// acquire is called by the connection's reader only; release by any goroutine. A nil
// budget has no bound.
type byteBudget struct {
	size  int64
	mu    sync.Mutex
	free  int64         // guarded by mu
	freed chan struct{} // capacity 1: bytes were released since the reader last looked
}

func newByteBudget(size int64) *byteBudget {
	return &byteBudget{size: size, free: size, freed: make(chan struct{}, 1)}
}

// clamp returns n, or the whole budget when n is larger: a message always fits an empty
// budget.
func (b *byteBudget) clamp(n int64) int64 {
	if b == nil {
		return 0
	}
	return min(n, b.size)
}

// acquire takes n bytes (at most the budget's size), waiting for releases. It reports
// false when quit closes first.
func (b *byteBudget) acquire(n int64, quit <-chan struct{}) bool {
	if b == nil {
		return true
	}
	for {
		b.mu.Lock()
		if b.free >= n {
			b.free -= n
			b.mu.Unlock()
			return true
		}
		b.mu.Unlock()
		select {
		case <-b.freed:
		case <-quit:
			return false
		}
	}
}

// release returns n bytes taken by acquire.
func (b *byteBudget) release(n int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.free += n
	b.mu.Unlock()
	select {
	case b.freed <- struct{}{}:
	default:
	}
}

// reply queues a response. While the backlog is over Config.WSSendQueueBytes it waits for
// the writer to bring it down; it gives up when the connection stops. Responses do not
// make a slow consumer: the client's own calls are bounded by Config.WSInFlight and its
// reading.
func (c *wsConn) reply(b *buffer) {
	q := &c.q
	for {
		q.mu.Lock()
		if q.bytes <= c.srv.cfg.WSSendQueueBytes {
			c.push(b, int64(len(b.b)))
			q.mu.Unlock()
			return
		}
		room := q.room
		q.mu.Unlock()
		select {
		case <-room:
		case <-c.quit:
			c.srv.putBuf(b)
			return
		}
	}
}

// notify queues a notification without waiting. It reports whether b was queued: false
// when the connection has stopped, or stops now because the backlog would reach
// wsSendQueueCeiling times Config.WSSendQueueBytes (a message always fits an empty queue).
// A backlog over the budget starts the slow-consumer timer.
func (c *wsConn) notify(b *buffer) bool {
	select {
	case <-c.quit:
		c.srv.putBuf(b)
		return false
	default:
	}
	n := int64(len(b.b))
	q := &c.q
	q.mu.Lock()
	if ceiling := c.srv.cfg.WSSendQueueBytes * wsSendQueueCeiling; q.bytes > 0 && q.bytes+n > ceiling {
		unread := q.bytes + n // read under q.mu: the writer changes q.bytes
		q.mu.Unlock()
		c.srv.putBuf(b)
		c.stop(reasonSlowConsumer, fmt.Errorf("%d bytes unread, the ceiling is %d", unread, ceiling))
		return false
	}
	c.push(b, n)
	q.mu.Unlock()
	return true
}

// push appends b (n bytes) to the queue and wakes the writer; q.mu is held.
func (c *wsConn) push(b *buffer, n int64) {
	q := &c.q
	q.msgs = append(q.msgs, b)
	q.bytes += n
	if q.bytes > c.srv.cfg.WSSendQueueBytes && q.over == nil {
		q.overID++
		id := q.overID
		q.room = make(chan struct{})
		q.over = time.AfterFunc(c.srv.cfg.WSSlowConsumerTimeout, func() { c.stayedOver(id) })
	}
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// stayedOver runs when a backlog has been over the budget for Config.WSSlowConsumerTimeout:
// unless the writer has brought it down since (timer id is no longer the running one), the
// client is a slow consumer.
func (c *wsConn) stayedOver(id uint64) {
	q := &c.q
	q.mu.Lock()
	still := q.over != nil && q.overID == id
	bytes := q.bytes
	q.mu.Unlock()
	if still {
		c.stop(reasonSlowConsumer, fmt.Errorf("%d bytes unread for over %v, the budget is %d", bytes, c.srv.cfg.WSSlowConsumerTimeout, c.srv.cfg.WSSendQueueBytes))
	}
}

// written takes n written bytes off the backlog; back at or under the budget, it stops the
// slow-consumer timer and lets waiting responses in.
func (c *wsConn) written(n int64) {
	q := &c.q
	q.mu.Lock()
	defer q.mu.Unlock()
	q.bytes -= n
	if q.over != nil && q.bytes <= c.srv.cfg.WSSendQueueBytes {
		q.over.Stop()
		q.over = nil
		close(q.room)
	}
}

// drain drops the messages left in the queue when the connection has stopped.
func (c *wsConn) drain() {
	q := &c.q
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, b := range q.msgs {
		c.srv.putBuf(b)
	}
	q.msgs = nil
	if q.over != nil {
		q.over.Stop()
		q.over = nil
	}
}

// writeLoop writes queued messages until the connection stops. A write that the client
// does not take for wsWriteTimeout makes it a slow consumer.
func (c *wsConn) writeLoop() {
	defer c.wg.Done()
	defer c.drain()
	var batch []*buffer
	for {
		select {
		case <-c.quit:
			return
		case <-c.q.wake:
		}
		c.q.mu.Lock()
		batch, c.q.msgs = c.q.msgs, batch[:0]
		c.q.mu.Unlock()
		for i, b := range batch {
			ctx, cancel := context.WithTimeout(c.ctx, wsWriteTimeout)
			err := c.ws.Write(ctx, websocket.MessageText, b.b)
			timedOut := ctx.Err() == context.DeadlineExceeded
			cancel()
			n := int64(len(b.b))
			c.srv.putBuf(b)
			batch[i] = nil
			c.written(n)
			if err != nil {
				for _, rest := range batch[i+1:] {
					c.srv.putBuf(rest)
				}
				if timedOut {
					c.stop(reasonSlowConsumer, fmt.Errorf("a write was not taken in %v: %w", wsWriteTimeout, err))
				} else {
					c.stop("write failed", err)
				}
				return
			}
		}
	}
}

// pingLoop pings the client every wsPingInterval and stops the connection when a pong
// does not come back within wsPongTimeout.
func (c *wsConn) pingLoop() {
	defer c.wg.Done()
	t := time.NewTicker(wsPingInterval)
	defer t.Stop()
	for {
		select {
		case <-c.quit:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(c.ctx, wsPongTimeout)
			err := c.ws.Ping(ctx)
			cancel()
			if err != nil {
				c.stop("ping failed", err)
				return
			}
		}
	}
}

// stop ends the connection without waiting: it records the reason, stops the writer and
// pinger, and closes the socket on another goroutine (closing can block while a close
// handshake runs). Only the first call has an effect.
func (c *wsConn) stop(reason string, err error) {
	c.stopOnce.Do(func() {
		close(c.quit)
		level := slog.LevelDebug
		if reason == reasonSlowConsumer {
			level = slog.LevelWarn
			if c.srv.obs != nil {
				c.srv.obs.SlowConsumer()
			}
		}
		c.srv.log.Log(context.Background(), level, "websocket connection closed", "remote", c.remote, "reason", reason, "err", err)
		go c.ws.CloseNow()
	})
}

// close closes the connection with status 1001 (server shutdown), with a close handshake.
func (c *wsConn) close() {
	c.ws.Close(websocket.StatusGoingAway, "server shutting down")
}

// teardown runs when the reader has stopped: it stops the connection, waits for the
// writer and pinger, cancels running calls and ends every subscription.
func (c *wsConn) teardown(err error) {
	reason := "read failed"
	switch {
	case websocket.CloseStatus(err) != -1:
		reason = "closed by client"
	case errors.Is(err, errMessageTooBig):
		// Tell the client why, with a close handshake (at most 5 s, discarding the rest
		// of the message), before the connection is torn down.
		reason = fmt.Sprintf("message too big: over the read limit of %d bytes", c.srv.cfg.WSReadLimit)
		c.ws.Close(websocket.StatusMessageTooBig, reason)
	}
	c.stop(reason, err)
	c.cancel()
	c.wg.Wait()
	c.mu.Lock()
	c.closed = true
	subs := c.subs
	c.subs = nil
	c.mu.Unlock()
	for _, sub := range subs {
		sub.end()
	}
}

// add registers a new subscription; it reports false when the connection has closed.
func (c *wsConn) add(sub *Subscription) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.subs[sub.id] = sub
	return true
}

// unsubscribe ends the subscription with the ID and reports whether it existed.
func (c *wsConn) unsubscribe(id string) bool {
	c.mu.Lock()
	sub := c.subs[id]
	delete(c.subs, id)
	c.mu.Unlock()
	if sub == nil {
		return false
	}
	sub.end()
	return true
}
