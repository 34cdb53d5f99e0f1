package follow

import (
	"context"
	"errors"
	"time"

	"github.com/flashrpc/flashrpc/internal/flashblocks"
)

// Redial backoff of a dropped feed: from feedBackoffMin, doubling up to feedBackoffMax, back to
// the minimum once a connection delivered a message.
const (
	feedBackoffMin = 100 * time.Millisecond
	feedBackoffMax = 5 * time.Second
)

// received is one flashblock and when it arrived.
type received struct {
	p       *flashblocks.Payload
	text    []byte   // the message's JSON text, as the feed sent it
	txs     *decoded // its transactions, decoded on arrival; nil: the writer decodes them
	arrived time.Time
}

// readFeed reads the feed until ctx ends, redialling with backoff when it drops. Messages that
// do not decode are logged and skipped; the connection stays up. Each flashblock's senders are
// recovered on a pool of workers from its arrival (recover.go); the pool ends with the reader.
func (f *Follower) readFeed(ctx context.Context) {
	pool := newSenderPool(ctx)
	defer pool.close()
	arr := &arrivals{config: f.chain.Config(), pool: pool}
	backoff := feedBackoffMin
	for ctx.Err() == nil {
		c, err := flashblocks.Dial(ctx, f.cfg.Feed)
		if err != nil {
			f.log.Warn("flashblocks feed: dial failed", "feed", f.cfg.Feed, "retry", backoff, "err", err)
			if !sleep(ctx, backoff) {
				return
			}
			backoff = min(2*backoff, feedBackoffMax)
			continue
		}
		f.setFeed(true)
		f.log.Info("flashblocks feed connected", "feed", f.cfg.Feed)
		got, err := f.readConn(ctx, c, arr)
		c.Close()
		f.setFeed(false)
		if ctx.Err() != nil {
			return
		}
		// Whatever was in flight is lost: the sequence check refuses the rest of this block.
		f.log.Warn("flashblocks feed dropped: redialling; pending falls back to the sealed head until the next block", "err", err)
		if f.m != nil {
			f.m.FeedReconnect()
		}
		if got {
			backoff = feedBackoffMin
		}
		if !sleep(ctx, backoff) {
			return
		}
		backoff = min(2*backoff, feedBackoffMax)
	}
}

// readConn reads one connection until it fails; got reports whether a message came.
func (f *Follower) readConn(ctx context.Context, c *flashblocks.Client, arr *arrivals) (got bool, err error) {
	for {
		msg, err := c.NextRaw(ctx)
		if err != nil {
			return got, err
		}
		got = true
		arrived := time.Now()
		if f.m != nil {
			f.m.FeedMessage()
		}
		p, text, err := flashblocks.DecodeText(msg)
		if err != nil {
			f.refuseFlash(nil, err)
			f.lost.Store(true) // the sequence cannot go on
			continue
		}
		f.post(received{p: p, text: text, txs: arr.decode(p), arrived: arrived})
	}
}

// post hands a flashblock to the writer. When the queue is full the message is lost, and
// the writer learns so before it handles the next one.
func (f *Follower) post(r received) {
	select {
	case f.payloads <- r:
	default:
		f.log.Warn("flashblocks queue full: message dropped", "queue", payloadQueue)
		f.lost.Store(true)
	}
}

func (f *Follower) setFeed(up bool) {
	f.feedUp.Store(up)
	if f.m != nil {
		f.m.SetFeedConnected(up)
	}
	if !up {
		f.lost.Store(true) // the sequence is broken
	}
}

// sleep waits d or until ctx ends; false when ctx ended.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// errLost is the reason of a sequence broken by a lost message.
var errLost = errors.New("a message was lost (undecodable, dropped from a full queue, or the feed dropped)")
