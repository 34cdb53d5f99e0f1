package rpc

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestLazyDeadline(t *testing.T) {
	t.Parallel()
	t.Run("err-without-done", func(t *testing.T) {
		c := newLazyDeadline(context.Background(), time.Millisecond)
		defer c.stop()
		if err := c.Err(); err != nil {
			t.Fatalf("before the deadline: %v", err)
		}
		for c.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		if !errors.Is(c.Err(), context.DeadlineExceeded) || c.started.Load() {
			t.Fatalf("after the deadline: %v, timer started %v", c.Err(), c.started.Load())
		}
	})
	t.Run("done-fires", func(t *testing.T) {
		c := newLazyDeadline(context.Background(), time.Millisecond)
		defer c.stop()
		<-c.Done()
		if !errors.Is(c.Err(), context.DeadlineExceeded) {
			t.Fatalf("err %v", c.Err())
		}
	})
	t.Run("parent-cancel", func(t *testing.T) {
		parent, cancel := context.WithCancel(context.Background())
		c := newLazyDeadline(parent, time.Hour)
		defer c.stop()
		cancel()
		if !errors.Is(c.Err(), context.Canceled) {
			t.Fatalf("err before Done: %v", c.Err())
		}
		<-c.Done()
		if !errors.Is(c.Err(), context.Canceled) {
			t.Fatalf("err after Done: %v", c.Err())
		}
	})
	t.Run("value", func(t *testing.T) {
		type key struct{}
		c := newLazyDeadline(context.WithValue(context.Background(), key{}, 7), time.Hour)
		if c.Value(key{}) != 7 {
			t.Fatal("value not inherited")
		}
		if d, ok := c.Deadline(); !ok || time.Until(d) < 59*time.Minute {
			t.Fatalf("deadline %v %v", d, ok)
		}
	})
}
