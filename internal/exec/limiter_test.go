package exec

import (
	"context"
	"errors"
	"runtime"
	"testing"
)

func TestLimiter(t *testing.T) {
	t.Parallel()
	l := NewLimiter(2, 1)
	ctx := context.Background()
	r1, err := l.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := l.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The third waits in the queue.
	got := make(chan error, 1)
	go func() {
		r3, err := l.Acquire(ctx)
		if err == nil {
			r3()
		}
		got <- err
	}()
	for len(l.waiting) == 0 {
		runtime.Gosched()
	}
	// The fourth finds both full and is refused at once.
	_, err = l.Acquire(ctx)
	var busy *BusyError
	if !errors.As(err, &busy) || busy.Running != 2 || busy.Queued != 1 {
		t.Fatalf("fourth: %v, want busy with 2 running and 1 queued", err)
	}
	if want := "server busy: 2 EVM calls running and 1 queued, retry later"; err.Error() != want {
		t.Fatalf("message %q, want %q", err, want)
	}
	r1()
	if err := <-got; err != nil {
		t.Fatalf("queued request: %v", err)
	}
	r2()
	// Everything was given back.
	if len(l.running) != 0 || len(l.waiting) != 0 {
		t.Fatalf("%d running and %d waiting left", len(l.running), len(l.waiting))
	}
}

func TestLimiterContext(t *testing.T) {
	t.Parallel()
	l := NewLimiter(1, 4)
	release, err := l.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan error, 1)
	go func() {
		_, err := l.Acquire(ctx)
		got <- err
	}()
	for len(l.waiting) == 0 {
		runtime.Gosched()
	}
	cancel()
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled while queued: %v", err)
	}
	if len(l.waiting) != 0 {
		t.Fatal("a cancelled request kept its place in the queue")
	}
}

func TestLimiterDefaults(t *testing.T) {
	t.Parallel()
	if c, q := NewLimiter(0, -1).Limits(); c != runtime.GOMAXPROCS(0) || q != 0 {
		t.Fatalf("NewLimiter(0, -1) = %d running, %d queued; want GOMAXPROCS and 0", c, q)
	}
}
