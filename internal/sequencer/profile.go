package sequencer

import (
	"context"
	"runtime/pprof"
)

// The timer loop labels its goroutine for CPU profiles (pprof labels, inherited by the
// goroutines a build starts: the state root's helpers, the tries' hashing): `flashblock` is
// the kind of build, `phase` staging or build. The kinds cost differently under load (the
// first flashblock of a block opens its state cold, the last commits the block's state), so
// a profile of the node (--pprof) read with `go tool pprof -tagfocus flashblock=first` shows
// where one kind's time goes. The chain write a seal starts is labelled chain=write
// (internal/preconf).

// buildKind names the build of the n-th flashblock of the timer loop (from 1) of blocks of
// perBlock: "first" and "last" of a block of several, "other" between, "block" for a block
// of one build (Denim's), "preconf" when no seal comes (perBlock 0).
func buildKind(n, perBlock int) string {
	switch {
	case perBlock == 0:
		return "preconf"
	case perBlock == 1:
		return "block"
	case n%perBlock == 0:
		return "last"
	case n%perBlock == 1:
		return "first"
	}
	return "other"
}

// labelBuild sets the loop goroutine's labels to a build of kind in phase.
func labelBuild(kind, phase string) {
	pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels("flashblock", kind, "phase", phase)))
}
