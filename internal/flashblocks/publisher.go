package flashblocks

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Publisher defaults and timings.
const (
	// DefaultQueueSize is how many messages a consumer may fall behind before it is
	// disconnected: more than 10 s of pre-confirmations at 200 ms. Base's proxy allows 20.
	DefaultQueueSize = 64
	// DefaultWriteTimeout bounds one write to a consumer; Base's proxy allows 1 s.
	DefaultWriteTimeout = 2 * time.Second

	pingInterval = 15 * time.Second
	pongTimeout  = 10 * time.Second

	reasonSlowConsumer = "slow consumer"
	reasonShutdown     = "publisher shutting down"
)

// PublisherConfig configures a Publisher. The zero value publishes JSON text frames with the
// default limits.
type PublisherConfig struct {
	// Brotli sends every message brotli-compressed in a binary frame, as Base's public streams
	// do, instead of JSON in a text frame.
	Brotli bool
	// QueueSize is the number of messages buffered per consumer; a consumer whose queue is
	// full when a message is published is disconnected. Zero means DefaultQueueSize. It also
	// bounds the replay a new consumer gets (see [Publisher]).
	QueueSize int
	// WriteTimeout bounds one write to a consumer; a consumer that takes longer is
	// disconnected. Zero means DefaultWriteTimeout.
	WriteTimeout time.Duration
	// Logger receives connects, disconnects and their reasons; nil discards.
	Logger *slog.Logger
}

// Publisher serves a flashblocks feed over WebSocket: every consumer that connects, at any
// path, receives each published payload once, in order. It is an http.Handler and can run its
// own http.Server ([Publisher.Serve]). It is safe for concurrent use.
//
// A consumer that connects in the middle of a block first receives the block's payloads
// published so far, from index 0, so it can follow the block at once instead of waiting for
// the next one (when they fit in its queue). Consumers only read: a data message from one
// closes its connection.
type Publisher struct {
	cfg  PublisherConfig
	log  *slog.Logger
	http *http.Server

	mu        sync.Mutex
	consumers map[*consumer]struct{} // guarded by mu
	block     [][]byte               // guarded by mu; the current block's messages from index 0
	blockID   PayloadID              // guarded by mu; payload id of block
	closed    bool                   // guarded by mu; no new consumers, no more messages
	wg        sync.WaitGroup         // one per connected consumer
}

// NewPublisher returns a Publisher with no consumers.
func NewPublisher(cfg PublisherConfig) *Publisher {
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = DefaultQueueSize
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	p := &Publisher{cfg: cfg, log: logger, consumers: make(map[*consumer]struct{})}
	p.http = &http.Server{
		Handler:           p,
		ReadHeaderTimeout: 5 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelDebug),
	}
	return p
}

// Serve accepts consumers on ln until [Publisher.Shutdown]; it then returns
// http.ErrServerClosed.
func (p *Publisher) Serve(ln net.Listener) error { return p.http.Serve(ln) }

// Publish encodes payload once and queues it for every consumer without waiting: a consumer
// whose queue is full is disconnected as a slow consumer. It fails only when the payload
// cannot be encoded. Payloads must be published in order (index 0 opens a block).
func (p *Publisher) Publish(payload *Payload) error {
	msg, err := Encode(payload)
	if err != nil {
		return err
	}
	p.PublishText(payload, msg)
	return nil
}

// PublishText is Publish of a payload whose JSON text is given, as another producer sent it
// ([DecodeText]): a relay republishes it byte for byte (brotli-compressed again when the
// publisher sends brotli). text must be payload's encoding; it is not checked.
func (p *Publisher) PublishText(payload *Payload, text []byte) {
	msg := text
	if p.cfg.Brotli {
		msg = Compress(msg)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	if payload.Index == 0 || payload.PayloadID != p.blockID {
		p.block, p.blockID = p.block[:0], payload.PayloadID
	}
	if len(p.block) < p.cfg.QueueSize {
		p.block = append(p.block, msg)
	}
	for c := range p.consumers {
		select {
		case c.send <- msg:
		default:
			delete(p.consumers, c)
			c.stop(reasonSlowConsumer, nil)
		}
	}
	return
}

// Consumers returns the number of connected consumers.
func (p *Publisher) Consumers() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.consumers)
}

// Shutdown stops accepting consumers, closes every connection (status 1001) and waits for
// them, or for ctx to end, whichever is first.
func (p *Publisher) Shutdown(ctx context.Context) error {
	p.mu.Lock()
	p.closed = true
	for c := range p.consumers {
		delete(p.consumers, c)
		c.stop(reasonShutdown, nil)
	}
	p.mu.Unlock()
	err := p.http.Shutdown(ctx)
	done := make(chan struct{})
	go func() {
		p.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return err
	case <-ctx.Done():
		return errors.Join(err, ctx.Err())
	}
}

// ServeHTTP upgrades the request to a WebSocket connection and streams payloads to it until
// it closes or falls behind.
func (p *Publisher) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		InsecureSkipVerify: true, // any Origin: the feed is read-only
		CompressionMode:    websocket.CompressionDisabled,
	})
	if err != nil {
		p.log.Debug("flashblocks feed: upgrade failed", "remote", r.RemoteAddr, "err", err)
		return
	}
	c := &consumer{p: p, ws: ws, remote: r.RemoteAddr, send: make(chan []byte, p.cfg.QueueSize), quit: make(chan struct{})}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		ws.Close(websocket.StatusGoingAway, "shutting down")
		return
	}
	for _, msg := range p.block { // fits: the replay is at most QueueSize long
		c.send <- msg
	}
	p.consumers[c] = struct{}{}
	p.wg.Add(1)
	p.mu.Unlock()
	defer p.wg.Done()
	p.log.Debug("flashblocks feed: consumer connected", "remote", c.remote, "replayed", len(c.send))
	c.run(ws.CloseRead(context.Background()))
}

// consumer is one connected feed reader. The publisher queues messages into send; run, on
// the connection's HTTP goroutine, is the only writer.
type consumer struct {
	p      *Publisher
	ws     *websocket.Conn
	remote string
	send   chan []byte
	quit   chan struct{} // closed by stop
	once   sync.Once
	reason string // set once, by stop, before quit is closed
}

// run writes queued messages and pings until the connection stops; ctx ends when the peer
// closes the connection.
func (c *consumer) run(ctx context.Context) {
	typ := websocket.MessageText
	if c.p.cfg.Brotli {
		typ = websocket.MessageBinary
	}
	ping := time.NewTicker(pingInterval)
	defer ping.Stop()
	for {
		var err error
		select {
		case <-c.quit:
		case <-ctx.Done():
			c.stop("closed by consumer", nil)
		case msg := <-c.send:
			wctx, cancel := context.WithTimeout(ctx, c.p.cfg.WriteTimeout)
			if err = c.ws.Write(wctx, typ, msg); err != nil {
				c.stop("write failed", err)
			}
			cancel()
		case <-ping.C:
			pctx, cancel := context.WithTimeout(ctx, pongTimeout)
			if err = c.ws.Ping(pctx); err != nil {
				c.stop("ping failed", err)
			}
			cancel()
		}
		select {
		case <-c.quit:
			c.p.mu.Lock()
			delete(c.p.consumers, c)
			c.p.mu.Unlock()
			if c.reason == reasonShutdown {
				c.ws.Close(websocket.StatusGoingAway, reasonShutdown)
			}
			c.ws.CloseNow()
			return
		default:
		}
	}
}

// stop ends the connection and logs why; only the first call counts. It does not wait: the
// writer closes the socket (a slow consumer's at once).
func (c *consumer) stop(reason string, err error) {
	c.once.Do(func() {
		c.reason = reason
		close(c.quit)
		level := slog.LevelDebug
		if reason == reasonSlowConsumer {
			level = slog.LevelWarn
			go c.ws.CloseNow() // unblocks a write stuck on the consumer's full socket
		}
		c.p.log.Log(context.Background(), level, "flashblocks feed: consumer disconnected", "remote", c.remote, "reason", reason, "err", err)
	})
}
