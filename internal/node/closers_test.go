package node

import (
	"errors"
	"slices"
	"testing"
)

// TestClosers checks the cleanup idiom: reverse order, every closer runs whatever the others
// return, errors joined, a second close does nothing, and unwindOnError closes only on error.
func TestClosers(t *testing.T) {
	var order []int
	errA, errB := errors.New("a"), errors.New("b")
	var s closers
	s.push(func() error { order = append(order, 1); return errA })
	s.pushFunc(func() { order = append(order, 2) })
	s.push(func() error { order = append(order, 3); return errB })
	err := s.close()
	if want := []int{3, 2, 1}; !slices.Equal(order, want) {
		t.Fatalf("closed in order %v, want %v", order, want)
	}
	if !errors.Is(err, errA) || !errors.Is(err, errB) {
		t.Fatalf("close: %v, want both errors joined", err)
	}
	if err := s.close(); err != nil || len(order) != 3 {
		t.Fatalf("second close: %v, ran %v", err, order)
	}

	closed := 0
	start := func(fail error) (err error) {
		var s closers
		defer s.unwindOnError(&err)
		s.pushFunc(func() { closed++ })
		return fail
	}
	if err := start(nil); err != nil || closed != 0 {
		t.Fatalf("a start that succeeded: %v, %d closed; want nil, 0", err, closed)
	}
	if err := start(errA); !errors.Is(err, errA) || closed != 1 {
		t.Fatalf("a start that failed: %v, %d closed; want a, 1", err, closed)
	}
}
