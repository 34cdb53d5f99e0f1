package rpc

// Notifications have buffers of their own. A subscription's notifications are many at once
// (one per subscriber for every event: a block's logs, each to every logs subscriber) and
// each holds its buffer until the connection's writer has sent it, so a pool shared with
// responses would grow to that peak, and every buffer in it, passed around, to the largest
// response it ever held (an eth_getLogs answer of hundreds of kB), which makes a live heap
// that creeps up for as long as the node runs (docs/operations.md, "Soak"). Responses keep
// the pool they had, as large as the calls in flight; notifications take small buffers from
// their own, and one that grew past maxPooledNote is left to the collector.

// getNoteBuf returns an empty notification buffer.
func (s *Server) getNoteBuf() *buffer {
	if b, ok := s.notes.Get().(*buffer); ok {
		return b
	}
	return &buffer{b: make([]byte, 0, 1024), note: true}
}

// putNoteBuf returns a notification buffer to its pool, unless it grew past maxPooledNote.
func (s *Server) putNoteBuf(b *buffer) {
	if cap(b.b) > maxPooledNote {
		return
	}
	b.b = b.b[:0]
	s.notes.Put(b)
}
