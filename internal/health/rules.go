package health

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// Head reports c's sealed head.
func Head(c *chain.Chain) Probe {
	return func(s *Status) { s.Head = c.Head().Number.Uint64() }
}

// Pending reports the index of p's newest pre-confirmation, when a block is in progress.
func Pending(p *preconf.Preconf) Probe {
	return func(s *Status) {
		if snap := p.Current(); snap != nil {
			i := snap.Index
			s.PendingIndex = &i
		}
	}
}

// Upstream reports the upstream's head, as head returns it (ok false: not known yet), and
// the lag of s.Head behind it; it must run after Head. Follow mode's probe.
func Upstream(head func() (n uint64, ok bool)) Probe {
	return func(s *Status) {
		n, ok := head()
		if !ok {
			return
		}
		lag := uint64(0)
		if n > s.Head {
			lag = n - s.Head
		}
		s.UpstreamHead, s.Lag = &n, &lag
	}
}

// Feed reports whether the flashblocks feed is connected, as connected returns it. Follow
// mode's probe.
func Feed(connected func() bool) Probe {
	return func(s *Status) {
		state := FeedDown
		if connected() {
			state = FeedUp
		}
		s.Feed = &state
	}
}

// SealingBlockTimes is how many block times without a sealed block make the dev chain unfit
// ([Sealing]).
const SealingBlockTimes = 5

// Sealing is the dev chain's rule: unfit when no block has become c's head for
// SealingBlockTimes block times (counted from the rule's creation before the first). A
// sequencer that seals on request only (blockTime 0) is never judged. It must be created
// before sealing starts, since it learns of new heads from c.OnHead.
func Sealing(c *chain.Chain, blockTime time.Duration, now func() time.Time) Rule {
	return SealingTimer(c, func() (time.Duration, time.Time) { return blockTime, time.Time{} }, now)
}

// SealingTimer is Sealing for a block time that changes at runtime (evm_setIntervalMining,
// evm_setAutomine): timer returns the block time the sequencer's timer seals at now (0: it
// does not) and when it took effect; the block times are counted from the later of that moment
// and the last head.
func SealingTimer(c *chain.Chain, timer func() (time.Duration, time.Time), now func() time.Time) Rule {
	if now == nil {
		now = time.Now
	}
	var last atomic.Int64 // Unix nanoseconds of the last head
	last.Store(now().UnixNano())
	c.OnHead(func(chain.HeadEvent) { last.Store(now().UnixNano()) })
	return func(s *Status, at time.Time) string {
		blockTime, since := timer()
		if blockTime <= 0 {
			return ""
		}
		from := time.Unix(0, last.Load())
		if since.After(from) {
			from = since
		}
		if d := at.Sub(from); d > SealingBlockTimes*blockTime {
			return fmt.Sprintf("no block sealed for %s (block time %s; unhealthy after %d block times)", d.Round(time.Millisecond), blockTime, SealingBlockTimes)
		}
		return ""
	}
}

// MaxLag is follow mode's rule: unfit when the upstream's head is unknown, or s.Head is more
// than max blocks behind it (--health.max-lag).
func MaxLag(max uint64) Rule {
	return func(s *Status, _ time.Time) string {
		switch {
		case s.UpstreamHead == nil:
			return "upstream head unknown: the upstream has not answered yet"
		case *s.Lag > max:
			return fmt.Sprintf("%d blocks behind the upstream (head %d, upstream %d; --health.max-lag %d)", *s.Lag, s.Head, *s.UpstreamHead, max)
		}
		return ""
	}
}

// FeedConnected is follow mode's rule: unfit while the flashblocks feed is not connected.
func FeedConnected() Rule {
	return func(s *Status, _ time.Time) string {
		if s.Feed != nil && *s.Feed != FeedUp {
			return "flashblocks feed " + *s.Feed + ": pending falls back to the sealed head until it reconnects"
		}
		return ""
	}
}
