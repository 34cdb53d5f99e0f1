package sequencer

import "time"

// Deadline scheduling (doc.go, "The cadence"). Flashblock k is due at start + k × interval,
// its build starts lead earlier, and an early build waits for its deadline before it is
// published (preconf.PublishOptions.PublishAfter), so a change of build time (20-80 ms under
// load, the first flashblock after a block boundary the slowest) does not show in the
// interval between two publications. The lead follows the recent builds: a few milliseconds
// when they are quick, so that a transaction waits little for its publication, and enough
// for the slowest recent one under load, up to half an interval.

const (
	// buildHistory is how many recent builds set the lead: two blocks at the default timing,
	// so that the slow first flashblock after a boundary is always among them.
	buildHistory = 20
	// leadMargin is added to 1.5 × the longest recent build for what varies between builds
	// (the timer waking late, a core taken by another goroutine).
	leadMargin = 2 * time.Millisecond
	// minLead is the least lead.
	minLead = time.Millisecond
	// maxCatchUp is how far a Denim chain's timer catches up with the clock (catchUp): a stall
	// longer than that (a machine woken from sleep) is left behind, as the blocks sealed back
	// to back to cover it would hold the sequencer for minutes.
	maxCatchUp = time.Minute
)

// schedule plans the timer loop's flashblocks: flashblock k (from 1) is due at
// start + k × interval and its build starts lead before. It is the loop's own: not safe for
// concurrent use.
type schedule struct {
	interval time.Duration
	keep     time.Duration // how late a deadline may be and still be kept: interval, or maxCatchUp
	start    time.Time
	next     int64 // the number of the next flashblock to plan
	builds   recentBuilds
	// sealBuilds are the builds of blocks' last flashblocks, which also commit the block's
	// state (preconf.PublishOptions.Seal): their lead is their own, so that the commit does
	// not lengthen every other flashblock's lead and shorten its staging.
	sealBuilds recentBuilds
}

// recentBuilds is a ring of the last buildHistory builds.
type recentBuilds struct {
	took     [buildHistory]time.Duration
	recorded int // builds recorded so far
}

func (r *recentBuilds) add(build time.Duration) {
	r.took[r.recorded%buildHistory] = build
	r.recorded++
}

// lead returns 1.5 × the longest of the builds plus leadMargin, within [minLead, interval/2].
func (r *recentBuilds) lead(interval time.Duration) time.Duration {
	var longest time.Duration
	for _, b := range r.took {
		longest = max(longest, b)
	}
	return min(max(longest*3/2+leadMargin, minLead), interval/2)
}

// newSchedule returns the schedule of flashblocks every interval from start, the first one due
// one interval after it.
func newSchedule(interval time.Duration, start time.Time) *schedule {
	return &schedule{interval: interval, keep: interval, start: start, next: 1}
}

// catchUp makes the schedule keep the deadlines passed by up to maxCatchUp: their builds run
// back to back until the schedule is on time again. A Denim chain's blocks each add 200 ms to
// the chain's time (Tms, denim.go), one a deadline: a skipped deadline would leave the chain's
// time behind the clock for good.
func (s *schedule) catchUp() { s.keep = max(maxCatchUp, s.interval) }

// due returns the deadline of flashblock k.
func (s *schedule) due(k int64) time.Time { return s.start.Add(time.Duration(k) * s.interval) }

// lead returns how long before its deadline a build starts: 1.5 × the longest of the recent
// builds plus leadMargin, within [minLead, interval/2].
func (s *schedule) lead() time.Duration { return s.builds.lead(s.interval) }

// sealLead is lead for a block's last flashblock, from the recent ones' builds.
func (s *schedule) sealLead() time.Duration { return s.sealBuilds.lead(s.interval) }

// plan returns the deadline of the next flashblock and when its build starts, for a loop that
// is free at now. A deadline passed by more than an interval (by more than maxCatchUp when
// the schedule catches up) is skipped, as a time.Ticker drops the ticks its reader missed;
// the next one is planned even when it has passed (the build then starts at once and is
// published as soon as it is done). skipped counts the deadlines left out.
func (s *schedule) plan(now time.Time) (deadline, begin time.Time, skipped int64) {
	k := s.next
	if late := now.Sub(s.due(k)); late > s.keep {
		// The first k' after k with due(k') >= now - keep.
		skipped = int64((late-s.keep-1)/s.interval) + 1
		k += skipped
	}
	s.next = k + 1
	deadline = s.due(k)
	return deadline, deadline.Add(-s.lead()), skipped
}

// observe records how long a build took, from its start to the moment it could be published.
func (s *schedule) observe(build time.Duration) { s.builds.add(build) }

// observeSeal records how long the build of a block's last flashblock took, its state
// commit included.
func (s *schedule) observeSeal(build time.Duration) { s.sealBuilds.add(build) }

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

// addUntil returns until when a build that starts at now, due at deadline and planned to
// start at begin (the schedule's lead before it), adds transactions: the first half of the
// lead, the second left for the assembly, so that a flashblock with more waiting than fits
// is published on time and the rest goes into the next one, as production builders close a
// flashblock at its deadline. A build that starts late still gets half a lead: each build
// takes something, so the pool cannot starve behind a timer that runs late.
func addUntil(deadline, begin, now time.Time) time.Time {
	half := deadline.Sub(begin) / 2
	return maxTime(deadline.Add(-half), now.Add(half))
}

// sealAddUntil is addUntil for a block's last flashblock, whose build also commits the
// block's state before its publication (preconf.PublishOptions.Seal): it adds for a quarter
// of the lead and leaves three quarters to the assembly and the commit; a late build still
// gets a quarter.
func sealAddUntil(deadline, begin, now time.Time) time.Time {
	quarter := deadline.Sub(begin) / 4
	return maxTime(deadline.Add(-3*quarter), now.Add(quarter))
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
