package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"

	"github.com/flashrpc/flashrpc/internal/flashblocks"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// defaultFeedPort is the flashblocks feed's port unless --feed.port says otherwise.
const defaultFeedPort = 8548

// feedFlags are the dev command's flashblocks feed flags.
type feedFlags struct {
	addr   string
	port   int
	brotli bool
}

func (f *feedFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.addr, "feed.addr", "127.0.0.1", "interface of the flashblocks feed (WebSocket, Base's FlashblocksPayloadV1)")
	fs.IntVar(&f.port, "feed.port", defaultFeedPort, "port of the flashblocks feed; -1 = no feed")
	fs.BoolVar(&f.brotli, "feed.brotli", false, "send the feed's messages brotli-compressed in binary frames instead of JSON text frames")
}

// feed publishes every pre-confirmation of the dev sequencer on a WebSocket.
type feed struct {
	pub    *flashblocks.Publisher
	ln     net.Listener
	brotli bool
	log    *slog.Logger
}

// startFeed opens the feed's socket, serves it and publishes pre's snapshots to it, starting
// with the next one (pre nil: what republish is given); nil when the feed is disabled
// (--feed.port -1).
func startFeed(f *feedFlags, pre *preconf.Preconf, logger *slog.Logger) (*feed, error) {
	if f.port == -1 {
		return nil, nil
	}
	if f.port < 0 || f.port > 65535 {
		return nil, fmt.Errorf("--feed.port %d: want a port, 0 for any free one, or -1 for no feed", f.port)
	}
	addr := net.JoinHostPort(f.addr, strconv.Itoa(f.port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("flashblocks feed: listen on %s: %w", addr, err)
	}
	logger = logger.With("component", "feed")
	fd := &feed{pub: flashblocks.NewPublisher(flashblocks.PublisherConfig{Brotli: f.brotli, Logger: logger}), ln: ln, brotli: f.brotli, log: logger}
	go func() {
		if err := fd.pub.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("flashblocks feed stopped", "err", err)
		}
	}()
	if pre != nil {
		pre.OnSnapshot(fd.publish)
	}
	return fd, nil
}

// publish sends one pre-confirmation; it runs on preconf's writer goroutine and never waits
// for a consumer.
func (fd *feed) publish(snap *preconf.Snapshot) {
	p, err := flashblocks.FromBlock(snap.Block, snap.Index, snap.FirstNew)
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

// url returns the feed's WebSocket URL.
func (fd *feed) url() string { return "ws://" + fd.ln.Addr().String() }

// encoding names the feed's frames for the banner.
func (fd *feed) encoding() string {
	if fd.brotli {
		return "brotli binary frames"
	}
	return "JSON text frames"
}

// close disconnects every consumer and stops serving. A nil feed does nothing.
func (fd *feed) close() {
	if fd == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	fd.pub.Shutdown(ctx)
}
