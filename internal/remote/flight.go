package remote

import "sync"

// flight runs one fetch per key at a time: a second caller of the same key waits for the
// first one's fetch and shares its outcome (golang.org/x/sync/singleflight, reduced to what
// the caches need).
type flight struct {
	mu    sync.Mutex // guards calls
	calls map[any]*flightCall
}

type flightCall struct {
	done chan struct{}
	err  error
}

// do runs fetch for key unless a fetch of key is under way; then it waits for that one and
// returns its error.
func (f *flight) do(key any, fetch func() error) error {
	f.mu.Lock()
	if f.calls == nil {
		f.calls = make(map[any]*flightCall)
	}
	if c, ok := f.calls[key]; ok {
		f.mu.Unlock()
		<-c.done
		return c.err
	}
	c := &flightCall{done: make(chan struct{})}
	f.calls[key] = c
	f.mu.Unlock()

	c.err = fetch()
	f.mu.Lock()
	delete(f.calls, key)
	f.mu.Unlock()
	close(c.done)
	return c.err
}
