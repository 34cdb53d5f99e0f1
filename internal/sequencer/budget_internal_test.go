package sequencer

import (
	"testing"
	"time"

	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// TestFlashblocksOf: N of the per-flashblock budget comes from Config.Flashblocks, else from
// the timing on an OP Stack chain; a plain Ethereum chain and manual mode have no budget.
func TestFlashblocksOf(t *testing.T) {
	l1 := &oprollup.DevL1{}
	for _, c := range []struct {
		name string
		cfg  Config
		want int
	}{
		{"op, Base's timing", Config{L1: l1, BlockTime: 2 * time.Second, PreconfInterval: 200 * time.Millisecond}, 10},
		{"op, 1 s / 250 ms", Config{L1: l1, BlockTime: time.Second, PreconfInterval: 250 * time.Millisecond}, 4},
		{"op, not a multiple", Config{L1: l1, BlockTime: time.Second, PreconfInterval: 300 * time.Millisecond}, 3},
		{"op, manual", Config{L1: l1}, 0},
		{"op, interval over the block time", Config{L1: l1, BlockTime: time.Second, PreconfInterval: 2 * time.Second}, 0},
		{"op, explicit", Config{L1: l1, Flashblocks: 5, BlockTime: 2 * time.Second, PreconfInterval: 200 * time.Millisecond}, 5},
		{"l1, Base's timing", Config{BlockTime: 2 * time.Second, PreconfInterval: 200 * time.Millisecond}, 0},
		{"l1, explicit", Config{Flashblocks: 10}, 10},
	} {
		if got := c.cfg.flashblocks(); got != c.want {
			t.Errorf("%s: %d flashblocks, want %d", c.name, got, c.want)
		}
	}
}
