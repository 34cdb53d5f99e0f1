package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"

	"github.com/flashrpc/flashrpc/internal/flashblocks"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/sequencer"
)

// feed publishes a node's flashblocks on a WebSocket: the dev sequencer's pre-confirmations
// or a replica's verified feed.
type feed struct {
	pub    *flashblocks.Publisher
	ln     net.Listener
	brotli bool
	format flashblocks.Format
	log    *slog.Logger
}

// startFeed opens the feed's socket and serves it; nil when the feed is disabled (Port -1).
func startFeed(cfg Feed, logger *slog.Logger) (*feed, error) {
	if cfg.Port == -1 {
		return nil, nil
	}
	if cfg.Port < 0 || cfg.Port > 65535 {
		return nil, fmt.Errorf("--feed.port %d: want a port, 0 for any free one, or -1 for no feed", cfg.Port)
	}
	addr := net.JoinHostPort(cfg.Addr, strconv.Itoa(cfg.Port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("flashblocks feed: listen on %s: %w", addr, err)
	}
	logger = logger.With("component", "feed")
	fd := &feed{pub: flashblocks.NewPublisher(flashblocks.PublisherConfig{Brotli: cfg.Brotli, Logger: logger}), ln: ln, brotli: cfg.Brotli, format: cfg.Format, log: logger}
	go func() {
		if err := fd.pub.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("flashblocks feed stopped", "err", err)
		}
	}()
	return fd, nil
}

// watch publishes pre's snapshots to the feed, starting with the next one. A nil feed does
// nothing.
func (fd *feed) watch(pre *preconf.Preconf) {
	if fd != nil {
		pre.OnSnapshot(fd.publish)
	}
}

// publish sends one pre-confirmation in the feed's format; it runs on preconf's writer
// goroutine and never waits for a consumer.
func (fd *feed) publish(snap *preconf.Snapshot) {
	p, err := sequencer.FeedPayload(snap, fd.format)
	if err == nil {
		err = fd.pub.Publish(p)
	}
	if err != nil {
		fd.log.Error("cannot publish pre-confirmation", "block", snap.Number(), "index", snap.Index, "err", err)
	}
}

// republish sends a flashblock another producer published, as it came (a replica's verified
// feed). A nil feed does nothing.
func (fd *feed) republish(p *flashblocks.Payload, text []byte) {
	if fd != nil {
		fd.pub.PublishText(p, text)
	}
}

// info returns what the banner says of the feed.
func (fd *feed) info() *FeedInfo {
	if fd == nil {
		return nil
	}
	enc := "JSON text frames"
	if fd.brotli {
		enc = "brotli binary frames"
	}
	return &FeedInfo{URL: "ws://" + fd.ln.Addr().String(), Encoding: enc, Format: fd.format, Consumers: fd.pub.Consumers}
}

// close disconnects every consumer and stops serving. A nil feed does nothing.
func (fd *feed) close() error {
	if fd == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	return fd.pub.Shutdown(ctx)
}

// FeedInfo describes a node's flashblocks feed.
type FeedInfo struct {
	// URL is the feed's WebSocket URL.
	URL string
	// Encoding names its frames ("JSON text frames" or "brotli binary frames").
	Encoding string
	// Format is the format the dev sequencer publishes in (a replica republishes its
	// upstream's).
	Format flashblocks.Format
	// Consumers returns how many consumers are connected.
	Consumers func() int
}
