package exec

import (
	"context"
	"fmt"
	"runtime"
)

// DefaultEVMQueue is how many EVM requests may wait for a running slot by default.
const DefaultEVMQueue = 64

// A Limiter bounds the EVM work of a node: at most a fixed number of requests execute at once
// and a short queue waits for them; a request beyond both is refused at once with a
// *BusyError, so that a flood of expensive calls costs the node neither memory (each running
// EVM holds its memory and state) nor the latency of its cheap methods. It is safe for
// concurrent use; one Limiter serves both endpoints.
type Limiter struct {
	running chan struct{} // a token per executing request
	waiting chan struct{} // a token per request waiting for a running slot
}

// NewLimiter returns a Limiter that runs concurrency requests at once (0 means GOMAXPROCS)
// with queue more waiting (negative means none).
func NewLimiter(concurrency, queue int) *Limiter {
	if concurrency <= 0 {
		concurrency = runtime.GOMAXPROCS(0)
	}
	return &Limiter{running: make(chan struct{}, concurrency), waiting: make(chan struct{}, max(queue, 0))}
}

// Acquire waits for a running slot and returns the function that gives it back, which the
// caller must call once its EVM work is done. When every slot is taken and the queue is full
// it returns a *BusyError at once; when ctx ends while waiting, ctx's error.
func (l *Limiter) Acquire(ctx context.Context) (release func(), err error) {
	select {
	case l.running <- struct{}{}:
		return l.release, nil
	default:
	}
	select {
	case l.waiting <- struct{}{}:
	default:
		return nil, &BusyError{Running: cap(l.running), Queued: cap(l.waiting)}
	}
	defer func() { <-l.waiting }()
	select {
	case l.running <- struct{}{}:
		return l.release, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (l *Limiter) release() { <-l.running }

// Limits returns the number of requests that may run at once and wait.
func (l *Limiter) Limits() (concurrency, queue int) { return cap(l.running), cap(l.waiting) }

// A BusyError refuses EVM work because the node runs and queues as much as it may.
type BusyError struct {
	Running, Queued int // the limits, all in use
}

// Error returns "server busy: N EVM calls running and M queued, retry later".
func (e *BusyError) Error() string {
	return fmt.Sprintf("server busy: %d EVM calls running and %d queued, retry later", e.Running, e.Queued)
}
