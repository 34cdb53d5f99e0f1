package sequencer

import "testing"

// TestBuildKind: the kind of each build of the timer loop (which decides its seal), for
// blocks of ten flashblocks, of two, of one (Denim's), and without seals.
func TestBuildKind(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n, perBlock int
		want        string
	}{
		{1, 10, "first"}, {2, 10, "other"}, {9, 10, "other"}, {10, 10, "last"},
		{11, 10, "first"}, {20, 10, "last"},
		{1, 2, "first"}, {2, 2, "last"}, {3, 2, "first"},
		{1, 1, "block"}, {7, 1, "block"},
		{1, 0, "preconf"}, {10, 0, "preconf"},
	} {
		if got := buildKind(c.n, c.perBlock); got != c.want {
			t.Errorf("buildKind(%d, %d) = %s, want %s", c.n, c.perBlock, got, c.want)
		}
	}
}
