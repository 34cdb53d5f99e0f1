package rpc

import (
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// The fast path serves the HTTP/1.1 requests that carry JSON-RPC (POST, Content-Length, a
// JSON content type; fasthead.go has the exact subset) on the connections [Server.Serve]
// accepts, without net/http's per-request machinery: no Request, header maps or response
// writer, no goroutine reading in the background, one read and one write per request.
// The first request that does not fit the subset (a GET, a WebSocket upgrade, a chunked
// body, Expect: 100-continue, HTTP/1.0, a body over the limit, a malformed request) hands
// the connection to net/http together with the bytes read so far (handoff.go); it stays
// there. Both paths answer the same requests with the same bytes, the Date aside.
//
// The fast path keeps net/http's timeouts: IdleTimeout (or ReadTimeout) between requests,
// ReadHeaderTimeout from the first byte of a request to the end of its head, ReadTimeout
// to the end of its body and WriteTimeout from the end of the head to the end of the
// response. Unlike net/http it does not read while a method runs, so a client that goes
// away is noticed at the next read or write, not by cancelling the running call.

// fastConn is one connection served by the fast path. Its goroutine (serveFast) reads,
// runs and answers the requests one at a time; the HTTP flow (http.go) decides what to
// answer. The only other goroutines that touch it are the exchange's timer, which writes
// a late response while serveFast waits in a method, and Shutdown, which closes it when
// idle (state).
type fastConn struct {
	srv   *Server
	nc    net.Conn
	state atomic.Int32 // connIdle, connActive or connClosed

	buf     []byte // bytes read; buf[start:] are not consumed yet
	start   int
	skipped int  // CR and LF bytes skipped before the current request (at most 4)
	served  bool // a request was served: net/http then skips CR/LF before the next

	readDeadline time.Time // as last set
	host         string    // the Host of the last request, kept to save its allocation

	// Per request. write sets them, on serveFast's goroutine or on the timer's while
	// serveFast waits in the exchange; the exchange's mutex orders the two.
	closeAfter bool   // answer with Connection: close and close (client's or Shutdown's wish)
	responded  bool   // the response was written
	broken     bool   // close after this request: Connection: close was sent or a write failed
	dateSec    int64  // Unix second of date
	date       []byte // cached Date value
}

// States of a fastConn, for Shutdown: idle connections wait for the first byte of a
// request and may be closed at once; active ones finish their request first.
const (
	connIdle int32 = iota
	connActive
	connClosed
)

// Sizes of the fast path's buffers.
const (
	// fastReadBuffer is the read buffer of a connection; bodies that do not fit get a
	// buffer of their own for the time of their request.
	fastReadBuffer = 4 << 10

	// maxCopiedBody is the largest response body copied behind its head for a single
	// write; larger ones go out with writev.
	maxCopiedBody = 64 << 10
)

// serveFast serves fc on the fast path until it closes or is handed to l's http.Server.
// The caller has tracked fc.
func (s *Server) serveFast(fc *fastConn, l *handoffListener) {
	defer s.untrackFast(fc)
	for {
		req, next := fc.readRequest()
		switch next {
		case nextHandOff:
			fc.handOff(l)
			return
		case nextClose:
			fc.nc.Close()
			return
		}
		fc.handle(req)
		if fc.broken {
			fc.nc.Close()
			return
		}
	}
}

// next says what serveFast does after readRequest.
type next int

const (
	nextServe next = iota
	nextHandOff
	nextClose
)

// readRequest reads until buf holds a complete request for the fast path. The
// connection is idle until the request's first byte is in, then active.
func (fc *fastConn) readRequest() (fastRequest, next) {
	fc.skipped = 0
	t0 := time.Now() // start of the request: when its first byte came, or accept
	waiting := fc.start == len(fc.buf)
	if waiting && fc.served && !fc.goIdle() {
		return fastRequest{}, nextClose
	}
	for {
		var (
			req fastRequest
			res = headMore
		)
		if p := fc.skipCRLF(); len(p) > 0 {
			if waiting {
				if !fc.state.CompareAndSwap(connIdle, connActive) {
					return req, nextClose // closed by Shutdown
				}
				if fc.served {
					t0 = time.Now()
				}
				waiting = false
			}
			req, res = parseHead(p)
			switch {
			case res == headHandOff, res == headDone && !fc.serves(&req):
				return req, nextHandOff
			case res == headDone && len(p) >= req.head+req.body:
				return req, nextServe
			}
		}
		if res == headDone {
			fc.reserve(req.head + req.body)
		}
		if err := fc.fill(fc.readDeadlineAt(t0, waiting, res)); err != nil {
			if res == headDone {
				fc.answerReadError(err) // net/http's handler would have read the body
			}
			return req, nextClose
		}
	}
}

// serves reports whether the fast path answers a request with this head: when the HTTP
// flow would serve it as JSON-RPC with no header fields of its own (no CORS). Everything
// else, refusals included, is net/http's to write.
func (fc *fastConn) serves(req *fastRequest) bool {
	if string(req.host) != fc.host {
		fc.host = string(req.host) // one allocation per connection, not per request
	}
	h := req.httpHead(fc.host)
	return fc.srv.decide(&h) == serveRPC && fc.srv.exp.corsOrigin(h.origin) == ""
}

// goIdle marks the connection idle between requests. It reports false when Shutdown has
// begun, after closing the connection if Shutdown did not.
func (fc *fastConn) goIdle() bool {
	fc.state.Store(connIdle)
	// Shutdown sets shutdown before it closes idle connections; one of the two sees
	// the other's write.
	return !fc.srv.shutdown.Load() || !fc.state.CompareAndSwap(connIdle, connClosed)
}

// readDeadlineAt returns the read deadline of a request that started at t0, as net/http
// has it: the idle timeout while waiting for a request after another, the header timeout
// until the head is in, the read timeout until the body is.
func (fc *fastConn) readDeadlineAt(t0 time.Time, waiting bool, res headResult) time.Time {
	cfg := &fc.srv.cfg
	switch {
	case waiting && fc.served:
		return deadline(t0, cfg.IdleTimeout, cfg.ReadTimeout)
	case res == headMore:
		return deadline(t0, cfg.ReadHeaderTimeout, cfg.ReadTimeout)
	}
	return deadline(t0, cfg.ReadTimeout, 0)
}

// deadline returns t0 plus d, or plus fallback when d is zero; the zero time when both
// are zero (no timeout), as net/http reads its timeouts.
func deadline(t0 time.Time, d, fallback time.Duration) time.Time {
	if d == 0 {
		d = fallback
	}
	if d == 0 {
		return time.Time{}
	}
	return t0.Add(d)
}

// skipCRLF drops up to four CR or LF bytes in front of a request that follows another,
// as net/http tolerates after a POST, and returns the unconsumed bytes.
func (fc *fastConn) skipCRLF() []byte {
	p := fc.buf[fc.start:]
	for fc.served && fc.skipped < 4 && len(p) > 0 && (p[0] == '\r' || p[0] == '\n') {
		p = p[1:]
		fc.start++
		fc.skipped++
	}
	return p
}

// reserve makes room in buf for a request of n bytes starting at buf[start].
func (fc *fastConn) reserve(n int) {
	if cap(fc.buf)-fc.start >= n {
		return
	}
	if n <= cap(fc.buf) {
		fc.buf = fc.buf[:copy(fc.buf, fc.buf[fc.start:])]
	} else {
		fc.buf = append(make([]byte, 0, n), fc.buf[fc.start:]...)
	}
	fc.start = 0
}

// fill reads into buf with read deadline d, making room first if it is full: by moving
// the unconsumed bytes to the front, or by doubling the buffer when they fill half of it.
func (fc *fastConn) fill(d time.Time) error {
	if len(fc.buf) == cap(fc.buf) {
		n := len(fc.buf) - fc.start + 1
		if n > cap(fc.buf)/2 {
			n = 2 * cap(fc.buf)
		}
		fc.reserve(n)
	}
	if !d.Equal(fc.readDeadline) {
		if err := fc.nc.SetReadDeadline(d); err != nil {
			return err
		}
		fc.readDeadline = d
	}
	n, err := fc.nc.Read(fc.buf[len(fc.buf):cap(fc.buf)])
	fc.buf = fc.buf[:len(fc.buf)+n]
	if n > 0 {
		return nil // an error comes back with the next read
	}
	return err
}

// consume drops a served request of n bytes from buf and shrinks a buffer grown for a
// large body once the rest fits the usual size.
func (fc *fastConn) consume(n int) {
	fc.start += n
	rest := len(fc.buf) - fc.start
	switch {
	case rest == 0 && cap(fc.buf) <= fastReadBuffer:
		fc.buf, fc.start = fc.buf[:0], 0
	case cap(fc.buf) > fastReadBuffer && rest <= fastReadBuffer:
		fc.buf = append(make([]byte, 0, fastReadBuffer), fc.buf[fc.start:]...)
		fc.start = 0
	}
}

// handOff gives the connection, with the bytes read and not consumed, to net/http.
func (fc *fastConn) handOff(l *handoffListener) {
	c := &replayConn{Conn: fc.nc, pending: fc.buf[fc.start:]}
	fc.buf, fc.start = nil, 0
	fc.srv.handoffs.Add(1)
	// net/http sets its own deadlines; clear the fast path's.
	if fc.nc.SetDeadline(time.Time{}) != nil || !l.handOver(c) {
		fc.nc.Close()
	}
}

// handle answers one request whose head and body are in buf.
func (fc *fastConn) handle(req fastRequest) {
	s := fc.srv
	s.fastRequests.Add(1)
	fc.served, fc.responded, fc.closeAfter = true, false, req.close
	if d := s.cfg.WriteTimeout; d > 0 {
		if fc.nc.SetWriteDeadline(time.Now().Add(d)) != nil {
			fc.broken = true
			return
		}
	}
	body := fc.buf[fc.start+req.head : fc.start+req.head+req.body]
	s.serveJSON(s.fastCtx, body, fc, nil)
	if !fc.responded {
		fc.write(nil, false) // nothing to answer: 200 with an empty body
	}
	fc.consume(req.head + req.body)
}

// respond implements responder: it writes the response of an exchange.
func (fc *fastConn) respond(out *buffer, late bool) {
	fc.write(out.b, late)
	fc.srv.putBuf(out)
}

// write writes a 200 response with body. A late response (the exchange's timer, while
// a method still runs on serveFast's goroutine) closes the connection after the method
// returns, as writeHTTP does over net/http. write is called at most once per request.
func (fc *fastConn) write(body []byte, late bool) {
	fc.responded = true
	closing := late || fc.closeAfter || fc.srv.shutdown.Load()
	now := time.Now()
	if sec := now.Unix(); sec != fc.dateSec || fc.date == nil {
		fc.date = now.UTC().AppendFormat(fc.date[:0], http.TimeFormat)
		fc.dateSec = sec
	}
	out := fc.srv.getBuf()
	out.b = fastResponseHead(out.b, len(body), fc.date, late, closing)
	var err error
	if len(body) <= maxCopiedBody {
		out.b = append(out.b, body...)
		_, err = fc.nc.Write(out.b)
	} else {
		bufs := net.Buffers{out.b, body}
		_, err = bufs.WriteTo(fc.nc)
	}
	fc.srv.putBuf(out)
	if err != nil || closing {
		fc.broken = true
	}
}

// answerReadError answers a request whose body could not be read, as servePost does:
// in the form of a late response, which closes the connection.
func (fc *fastConn) answerReadError(err error) {
	if d := fc.srv.cfg.WriteTimeout; d > 0 {
		fc.nc.SetWriteDeadline(time.Now().Add(d))
	}
	fc.write(appendErrorResponse(nil, jsonNull, readError(err)), true)
}

// closeIfIdle closes the connection if it waits for a request; Shutdown calls it.
func (fc *fastConn) closeIfIdle() {
	if fc.state.CompareAndSwap(connIdle, connClosed) {
		fc.nc.Close()
	}
}
