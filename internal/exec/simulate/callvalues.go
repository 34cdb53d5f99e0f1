package simulate

// callValues hands out a block's per-call values (call defaults, messages, receipts) one
// call at a time, from chunks that start at firstCallChunk values and double, never past
// the calls left. Made all at once for the block, they were some 900 bytes a call before
// the first ran: 4.5 MB for a block of the most calls a request may have, even when its
// first call fails or the gas budget stops it early. A block of up to firstCallChunk calls
// still makes one allocation of each.
type callValues[T any] struct {
	free  []T
	left  int // the calls not yet handed a value: no chunk is made larger
	chunk int // the last chunk's size
}

const firstCallChunk = 128

func newCallValues[T any](calls int) callValues[T] { return callValues[T]{left: calls} }

// next returns a zero value for the next call. It is called once per call at most.
func (v *callValues[T]) next() *T {
	if len(v.free) == 0 {
		v.chunk = min(max(2*v.chunk, firstCallChunk), v.left)
		v.free = make([]T, v.chunk)
	}
	x := &v.free[0]
	v.free = v.free[1:]
	v.left--
	return x
}
