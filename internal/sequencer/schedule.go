package sequencer

import "time"

// Deadline scheduling (doc.go, "The cadence"). Flashblock k is due at start + k × interval,
// its build starts lead earlier, and an early build waits for its deadline before it is
// published (preconf.PublishOptions.PublishAfter), so a change of build time (20-80 ms under
// load, the first flashblock after a block boundary the slowest) does not show in the
// interval between two publications. The lead follows the recent builds: a few milliseconds
// when they are quick, so that a transaction waits little for its publication, and enough
// for the slowest recent one under load, up to half an interval.
//
// The first flashblock of a block has a lead of its own. It is built while the chain writes the
// block just sealed (preconf.SealAsync: 130-250 ms of CPU for a block of 10,000 mix
// transactions) on the same cores, so under load it takes longer than the others, and half an
// interval did not cover it (the boundary's interval p99 was 253-318 ms at 4,000-5,000 mix
// transactions a second, docs/benchmarks.md). Nothing is built between the seal and its
// deadline, so its build may start as early as the seal: its lead follows the recent first
// builds alone, up to the whole interval. The other flashblocks' lead follows theirs, so
// that the slow first ones do not lengthen every wait.

const (
	// buildHistory is how many recent builds set the lead: two blocks at the default timing.
	buildHistory = 20
	// firstHistory is how many recent first flashblocks of a block set their lead.
	firstHistory = 5
	// leadMargin is added to 1.5 × the longest recent build for what varies between builds
	// (the timer waking late, a core taken by another goroutine).
	leadMargin = 2 * time.Millisecond
	// minLead is the least lead.
	minLead = time.Millisecond
)

// schedule plans the timer loop's flashblocks: flashblock k (from 1) is due at
// start + k × interval and its build starts lead before. It is the loop's own: not safe for
// concurrent use.
type schedule struct {
	interval time.Duration
	start    time.Time
	next     int64                       // the number of the next flashblock to plan
	builds   [buildHistory]time.Duration // the last builds but first ones, a ring
	recorded int                         // builds recorded in builds so far
	firsts   [firstHistory]time.Duration // the last builds of a block's first flashblock, a ring
	firstsN  int                         // builds recorded in firsts so far
}

// newSchedule returns the schedule of flashblocks every interval from start, the first one due
// one interval after it.
func newSchedule(interval time.Duration, start time.Time) *schedule {
	return &schedule{interval: interval, start: start, next: 1}
}

// due returns the deadline of flashblock k.
func (s *schedule) due(k int64) time.Time { return s.start.Add(time.Duration(k) * s.interval) }

// lead returns how long before its deadline a build starts: 1.5 × the longest of the recent
// builds plus leadMargin, within [minLead, interval/2].
func (s *schedule) lead() time.Duration {
	return min(max(longestOf(s.builds[:])*3/2+leadMargin, minLead), s.interval/2)
}

// firstLead returns how long before its deadline the build of a block's first flashblock
// starts: 1.5 × the longest of the recent first builds plus leadMargin, at least lead and at
// most the interval (the build then starts as soon as the block is open).
func (s *schedule) firstLead() time.Duration {
	return min(max(longestOf(s.firsts[:])*3/2+leadMargin, s.lead()), s.interval)
}

func longestOf(builds []time.Duration) time.Duration {
	var longest time.Duration
	for _, b := range builds {
		longest = max(longest, b)
	}
	return longest
}

// plan returns the deadline of the next flashblock and when its build starts, for a loop that
// is free at now; first says that it is a block's first flashblock (firstLead). A deadline passed by more than an interval is skipped, as a time.Ticker
// drops the ticks its reader missed; the next one is planned even when it has passed (the build
// then starts at once and is published as soon as it is done). skipped counts the deadlines
// left out.
func (s *schedule) plan(now time.Time, first bool) (deadline, begin time.Time, skipped int64) {
	k := s.next
	if late := now.Sub(s.due(k)); late > s.interval {
		// The first k' after k with due(k') >= now - interval.
		skipped = int64((late - 1) / s.interval)
		k += skipped
	}
	s.next = k + 1
	deadline = s.due(k)
	lead := s.lead()
	if first {
		lead = s.firstLead()
	}
	return deadline, deadline.Add(-lead), skipped
}

// observe records how long a build took, from its start to the moment it could be published;
// first says that it built a block's first flashblock.
func (s *schedule) observe(build time.Duration, first bool) {
	if first {
		s.firsts[s.firstsN%firstHistory] = build
		s.firstsN++
		return
	}
	s.builds[s.recorded%buildHistory] = build
	s.recorded++
}

// loopClock is the timer loop's time source: the wall clock (wallClock), or a test's that
// steps the loop deterministically.
type loopClock interface {
	// Now returns the current time.
	Now() time.Time
	// SleepUntil returns at t, at once when t has passed, or earlier with false when stop is
	// closed; false also when t has passed but stop is closed (a loop whose builds always run
	// late must still stop).
	SleepUntil(t time.Time, stop <-chan struct{}) bool
}

// wallClock is the loopClock of time.Now and real timers.
type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

func (wallClock) SleepUntil(t time.Time, stop <-chan struct{}) bool {
	d := time.Until(t)
	if d <= 0 {
		select {
		case <-stop:
			return false
		default:
			return true
		}
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-stop:
		return false
	}
}
