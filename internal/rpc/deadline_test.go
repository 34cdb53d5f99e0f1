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
	t.Run("after-func", func(t *testing.T) {
		// context.AfterFunc and derived contexts use the AfterFunc method: they fire with the
		// deadline, and a stopped one does not.
		c := newLazyDeadline(context.Background(), time.Millisecond)
		defer c.stop()
		fired := make(chan struct{})
		context.AfterFunc(c, func() { close(fired) })
		stopped := context.AfterFunc(c, func() { t.Error("stopped AfterFunc ran") })
		if !stopped() {
			t.Fatal("stop before the deadline reports false")
		}
		child, cancel := context.WithCancel(c)
		defer cancel()
		<-fired
		<-child.Done()
		if !errors.Is(child.Err(), context.DeadlineExceeded) {
			t.Fatalf("derived context: %v", child.Err())
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
