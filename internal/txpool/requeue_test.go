package txpool

import (
	"errors"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
)

// TestRequeue takes a sender's state back to an earlier block (its blocks dropped), returns
// the dropped transactions to the pool and checks that they run again before the one the
// sender pooled meanwhile, that one whose nonce the state used since is refused, and that the
// Add hook does not run.
func TestRequeue(t *testing.T) {
	key, addr := testKey(0)
	other, otherAddr := testKey(1)
	s := newTestState()
	p := New(testConfig, Config{})
	hooked := 0
	p.SetOnAdd(func(*types.Transaction) { hooked++ })
	tx0, tx1, tx2 := signed(t, key, 0, 1, 0), signed(t, key, 1, 1, 0), signed(t, key, 2, 1, 0)
	used := signed(t, other, 0, 1, 0)
	// tx0, tx1 and used were pre-confirmed (out of the pool) in blocks that are then dropped;
	// tx2 came meanwhile.
	s.setNonce(addr, 2)
	mustAdd(t, p, s, tx2)
	hooked = 0
	s.setNonce(addr, 0)
	s.setNonce(otherAddr, 1) // what the state says after the drop: used's nonce went another way
	p.Reset(s.view())
	errs := p.Requeue(s.view(), tx0, tx1, used)
	if errs[0] != nil || errs[1] != nil || !errors.Is(errs[2], core.ErrNonceTooLow) {
		t.Fatalf("Requeue errors %v, want nil, nil, nonce too low", errs)
	}
	if pending, queued := nonces(p, addr); !slices.Equal(pending, []uint64{0, 1, 2}) || len(queued) != 0 {
		t.Fatalf("pending %v queued %v, want 0 1 2 pending", pending, queued)
	}
	if hooked != 0 {
		t.Fatalf("the Add hook ran %d times", hooked)
	}
}
