package txpool

import (
	"errors"
	"runtime"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
)

// TestLargeFutureTransactionsMemory: 2,000 future-nonce transactions of 120 KB call data,
// about 450 MB of heap if a pool kept them whole, are bounded by the queued slots (1024 slots
// of 32 KiB): the heap grows by less than 200 MB, and every transaction is either kept or
// refused with an error that says why. Not parallel: it measures the heap.
func TestLargeFutureTransactionsMemory(t *testing.T) {
	const (
		count    = 2000
		dataSize = 120_000
		maxGrow  = 200 << 20
	)
	cases := []struct {
		name    string
		senders int
	}{
		{"one sender", 1},
		{"2000 senders", count},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newTestState()
			p := New(testConfig, Config{})
			before := heapInUse()
			kept, refused := 0, 0
			for i := range count {
				key, _ := testKey(10_000 + i%c.senders)
				raw, err := signed(t, key, 1+uint64(i/c.senders), 1, dataSize).MarshalBinary()
				if err != nil {
					t.Fatal(err)
				}
				tx := new(types.Transaction) // as eth_sendRawTransaction decodes it
				if err := tx.UnmarshalBinary(raw); err != nil {
					t.Fatal(err)
				}
				switch err := p.Add(tx, s.view()); {
				case err == nil:
					kept++
				case errors.Is(err, ErrAccountQueueFull) || errors.Is(err, ErrPoolFull):
					refused++
				default:
					t.Fatalf("transaction %d: %v", i, err)
				}
			}
			after := heapInUse()
			_, queued := p.Slots()
			pooled := p.Len()
			t.Logf("%d accepted, %d refused, %d kept in %d queued slots; heap %d MB → %d MB",
				kept, refused, pooled, queued, before>>20, after>>20)
			if after > before && after-before > maxGrow {
				t.Errorf("heap grew by %d MB, want less than %d MB", (after-before)>>20, maxGrow>>20)
			}
			if queued > DefaultConfig.GlobalQueue {
				t.Errorf("%d queued slots, over the limit of %d", queued, DefaultConfig.GlobalQueue)
			}
			runtime.KeepAlive(p)
		})
	}
}

// heapInUse returns the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
