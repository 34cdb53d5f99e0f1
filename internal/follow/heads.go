package follow

import (
	"context"
	"errors"
	"time"

	"github.com/flashrpc/flashrpc/internal/remote"
)

// New heads: by subscription (eth_subscribe newHeads on the upstream's WebSocket) where the
// upstream serves it, so a sealed block is fetched as soon as the upstream announces it; by
// polling eth_blockNumber every PollInterval otherwise, and while a dropped subscription is
// being redialled. A subscription that announces nothing for liveEvery is checked with one
// eth_blockNumber; an upstream that does not answer it ends the subscription (a connection
// may outlive the node behind it), and polling takes over.

// resubscribeEvery is how long the replica polls before it tries to subscribe again.
const resubscribeEvery = 5 * time.Second

// subscribeTimeout bounds dialling the upstream's WebSocket and subscribing.
const subscribeTimeout = 5 * time.Second

// liveEvery is how long a subscription may stay silent before the upstream is asked.
const liveEvery = time.Second

// Subscribed reports whether new heads come by subscription (false: polling).
func (f *Follower) Subscribed() bool { return f.subscribed.Load() }

// watchHeads learns the upstream's new heads until ctx ends and wakes the writer when the
// head moved.
func (f *Follower) watchHeads(ctx context.Context) {
	if f.wsURL == "" {
		f.poll(ctx, 0, nil)
		return
	}
	logged := false
	for ctx.Err() == nil {
		// The head is polled while the subscription is dialled: a dial can take its time.
		var (
			sub   *remote.HeadSubscription
			err   error
			ready = make(chan struct{})
		)
		go func() {
			defer close(ready)
			dctx, cancel := context.WithTimeout(ctx, subscribeTimeout)
			defer cancel()
			sub, err = remote.SubscribeHeads(dctx, f.wsURL)
		}()
		f.poll(ctx, 0, ready)
		<-ready
		if err == nil {
			logged = false
			if ctx.Err() == nil {
				f.followSubscription(ctx, sub)
			}
			sub.Close()
		} else if ctx.Err() == nil && !logged {
			f.log.Info("no newHeads subscription on the upstream: polling its head", "ws", f.wsURL, "every", f.cfg.PollInterval, "err", err)
			logged = true
		}
		f.poll(ctx, resubscribeEvery, nil)
	}
}

// followSubscription takes heads from sub until it fails or the upstream stops answering.
func (f *Follower) followSubscription(ctx context.Context, sub *remote.HeadSubscription) {
	f.subscribed.Store(true)
	defer f.subscribed.Store(false)
	f.log.Info("following the upstream's new heads by subscription", "ws", f.wsURL)
	if !f.askHead(ctx) { // the head before the first announcement
		return
	}
	for {
		next, cancel := context.WithTimeout(ctx, liveEvery)
		h, err := sub.Next(next)
		cancel()
		switch {
		case err == nil:
			f.setHead(h.Number, true)
		case ctx.Err() != nil:
			return
		case errors.Is(err, context.DeadlineExceeded):
			if !f.askHead(ctx) {
				return
			}
		default:
			f.log.Warn("newHeads subscription dropped: polling until it is back", "ws", f.wsURL, "err", err)
			return
		}
	}
}

// poll asks the upstream for its head every PollInterval, for d (zero: until ctx ends) or
// until stop is closed.
func (f *Follower) poll(ctx context.Context, d time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(f.cfg.PollInterval)
	defer t.Stop()
	var end <-chan time.Time
	if d > 0 {
		timer := time.NewTimer(d)
		defer timer.Stop()
		end = timer.C
	}
	for {
		f.askHead(ctx)
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-end:
			return
		case <-t.C:
		}
	}
}

// askHead asks the upstream for its head; false when it did not answer.
func (f *Follower) askHead(ctx context.Context) bool {
	n, err := f.up.blockNumber(ctx)
	if err != nil {
		if ctx.Err() == nil && time.Since(f.lastUpErr) > 10*time.Second {
			f.log.Warn("upstream does not answer", "upstream", f.cfg.Upstream, "err", err)
			f.lastUpErr = time.Now()
		}
		return false
	}
	f.setHead(n, false)
	return true
}

// setHead records the upstream's head n and wakes the writer when there is something to do
// (always for an announced head: it may replace a block at the same height).
func (f *Follower) setHead(n uint64, announced bool) {
	f.upLastOK.Store(time.Now().UnixNano())
	old := f.upHead.Swap(n)
	f.upKnown.Store(true)
	head := f.chain.Head().Number.Uint64()
	if f.m != nil {
		f.m.SetUpstream(n, max(n, head)-head)
	}
	if announced || n != old || n > head {
		f.wake()
	}
}
