package rpc

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// lazyDeadline is a context with a deadline whose timer exists only once something waits on
// Done. Most calls (a pre-encoded block, a state read) never wait: for them context.WithTimeout's
// timer and allocations were the largest cost of the request path after the socket itself. A
// method that blocks or runs long (eth_call, eth_getLogs) selects on Done and gets a real
// timer-backed context.
type lazyDeadline struct {
	parent   context.Context
	deadline time.Time

	once    sync.Once
	started atomic.Bool // set after ctx and cancel are
	ctx     context.Context
	cancel  context.CancelFunc
}

func newLazyDeadline(parent context.Context, timeout time.Duration) *lazyDeadline {
	return &lazyDeadline{parent: parent, deadline: time.Now().Add(timeout)}
}

func (c *lazyDeadline) start() {
	c.ctx, c.cancel = context.WithDeadline(c.parent, c.deadline)
	c.started.Store(true)
}

// Deadline implements context.Context.
func (c *lazyDeadline) Deadline() (time.Time, bool) { return c.deadline, true }

// Done implements context.Context; the first call starts the timer.
func (c *lazyDeadline) Done() <-chan struct{} {
	c.once.Do(c.start)
	return c.ctx.Done()
}

// Err implements context.Context without starting a timer.
func (c *lazyDeadline) Err() error {
	if c.started.Load() {
		return c.ctx.Err()
	}
	if err := c.parent.Err(); err != nil {
		return err
	}
	if !time.Now().Before(c.deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// AfterFunc arranges to call f once the context is done, as context.AfterFunc does. With it,
// contexts derived from this one (context.WithCancel, context.AfterFunc) register with the
// timer-backed context instead of each starting a goroutine that waits on Done.
func (c *lazyDeadline) AfterFunc(f func()) (stop func() bool) {
	c.once.Do(c.start)
	return context.AfterFunc(c.ctx, f)
}

// Value implements context.Context.
func (c *lazyDeadline) Value(key any) any { return c.parent.Value(key) }

// stop releases the timer, if one was started.
func (c *lazyDeadline) stop() {
	if c.started.Load() {
		c.cancel()
	}
}
