package rpc

import (
	"net"
	"sync"
)

// handoffListener is the net.Listener of the http.Server that [Server.Serve] runs: it
// yields the connections the fast path hands over. Once handed over, a connection stays
// with net/http until it closes. Safe for concurrent use.
type handoffListener struct {
	addr  net.Addr
	conns chan net.Conn
	done  chan struct{} // closed by Close
	once  sync.Once
}

func newHandoffListener(addr net.Addr) *handoffListener {
	return &handoffListener{addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}
}

// Accept implements net.Listener: it waits for a handed-over connection.
func (l *handoffListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close implements net.Listener. http.Server.Shutdown calls it; so does Serve once
// http.Server.Serve has returned, so that no hand-over waits for an Accept that never
// comes.
func (l *handoffListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr implements net.Listener: the address of the real listener.
func (l *handoffListener) Addr() net.Addr { return l.addr }

// handOver gives c to net/http. It reports false once the listener is closed; the caller
// then still owns c.
func (l *handoffListener) handOver(c net.Conn) bool {
	select {
	case l.conns <- c:
		return true
	case <-l.done:
		return false
	}
}

// replayConn is a connection handed to net/http with the bytes the fast path has already
// read from it, which it returns first. net/http reads from one goroutine at a time, so
// it needs no lock.
type replayConn struct {
	net.Conn
	pending []byte // read, not yet returned; owned by the connection
}

// Read returns the pending bytes, then reads from the connection.
func (c *replayConn) Read(p []byte) (int, error) {
	if len(c.pending) == 0 {
		return c.Conn.Read(p)
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

// CloseWrite shuts down the writing side, as *net.TCPConn does; net/http uses it to let
// the client read an error response before the connection closes.
func (c *replayConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
