package simulate

import (
	"slices"
	"testing"
)

// TestCallValues: each call gets a distinct zero value, from chunks that start at
// firstCallChunk values whatever the block's size, double, and never reach past its calls.
func TestCallValues(t *testing.T) {
	for _, tc := range []struct {
		calls  int
		chunks []int
	}{
		{1, []int{1}},
		{100, []int{100}},
		{firstCallChunk, []int{firstCallChunk}},
		{firstCallChunk + 1, []int{firstCallChunk, 1}},
		{DefaultMaxCallsPerBlock, []int{128, 256, 512, 1024, 2048, 1032}},
	} {
		v := newCallValues[[4]uint64](tc.calls)
		var chunks []int
		seen := map[*[4]uint64]bool{}
		for range tc.calls {
			if len(v.free) == 0 {
				chunks = append(chunks, 0)
			}
			x := v.next()
			if seen[x] || *x != [4]uint64{} {
				t.Fatalf("%d calls: value %d handed out twice or not zero: %v", tc.calls, len(seen), *x)
			}
			seen[x] = true
			x[0], x[3] = 1, 1
			chunks[len(chunks)-1]++
		}
		if !slices.Equal(chunks, tc.chunks) {
			t.Errorf("%d calls: chunks %v, want %v", tc.calls, chunks, tc.chunks)
		}
		if len(v.free) != 0 || v.left != 0 {
			t.Errorf("%d calls: %d values left over, %d calls still expected", tc.calls, len(v.free), v.left)
		}
	}
}
