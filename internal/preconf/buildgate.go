package preconf

import "sync"

// buildGate tells the chain write of a sealed block (SealAsync) when the writer is building a
// pre-confirmation, from Begin until the batch is assembled: the write waits for that build
// before each of its steps (chain.Executed.WritePaced) instead of taking a core from it. On
// two cores shared with the RPC's ingestion and the load, the first flashblock after a
// boundary was late while the write of the block before ran beside its build
// (docs/benchmarks.md, "The block boundary under load"). It is safe for concurrent use.
type buildGate struct {
	mu       sync.Mutex
	building chan struct{} // closed when the build in progress is assembled; nil between builds
}

// begin marks a build started.
func (g *buildGate) begin() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.building == nil {
		g.building = make(chan struct{})
	}
}

// end marks the build in progress assembled (or abandoned) and reports whether one was in
// progress; it does nothing between builds.
func (g *buildGate) end() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.building == nil {
		return false
	}
	close(g.building)
	g.building = nil
	return true
}

// wait returns once no build is in progress: at once between builds, else when the build in
// progress ends. It waits for one build at most, so a writer whose builds run back to back
// still makes progress.
func (g *buildGate) wait() {
	g.mu.Lock()
	ch := g.building
	g.mu.Unlock()
	if ch != nil {
		<-ch
	}
}
