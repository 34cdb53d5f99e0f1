package sequencer

import (
	"context"
	"runtime/pprof"
)

// The kind of each build of the timer loop decides its seal and names it in the debug log and
// in CPU profiles: the loop labels its goroutine (pprof labels, inherited by the goroutines a
// build starts: the state root's helpers, the tries' hashing) with `flashblock`, the kind, and
// `phase`, staging or build. The kinds cost differently under load (the first flashblock of a
// block opens its state cold, the last commits the block's state), so a profile of the node
// (--pprof) read with `go tool pprof -tagfocus flashblock=first` shows where one kind's time
// goes. The chain write a seal starts is labelled chain=write (internal/preconf).

// The kinds of build of the timer loop: a block's first and last flashblock when it has
// several, the ones between, a block of one build (Denim's), and a pre-confirmation when no
// seal comes (block time 0). The loop seals on kindLast (before the publication) and
// kindBlock (after it).
const (
	kindFirst   = "first"
	kindLast    = "last"
	kindOther   = "other"
	kindBlock   = "block"
	kindPreconf = "preconf"
)

// buildKind returns the kind of the n-th build of the timer loop (from 1), for blocks of
// perBlock flashblocks (0: no seals).
func buildKind(n, perBlock int) string {
	switch {
	case perBlock == 0:
		return kindPreconf
	case perBlock == 1:
		return kindBlock
	case n%perBlock == 0:
		return kindLast
	case n%perBlock == 1:
		return kindFirst
	}
	return kindOther
}

// labelBuild sets the loop goroutine's labels to a build of kind in phase.
func labelBuild(kind, phase string) {
	pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels("flashblock", kind, "phase", phase)))
}
