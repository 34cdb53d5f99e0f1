package remote

import (
	"context"
	"sync"

	"github.com/ethereum/go-ethereum/common"
)

// Discovery collects the upstream reads one execution needed and did not find cached, so that
// they can be fetched together instead of one round trip each. An execution runs on a state
// whose reader records a miss here and answers it as zero instead of waiting for the upstream;
// when it missed anything its result is discarded, Fetch reads everything it missed in one go
// (batches sent together), and it runs again. A pass that misses nothing read only real
// values, so its result is exact. It is safe for concurrent use.
type Discovery struct {
	mu       sync.Mutex // guards the sets
	accounts map[common.Address]struct{}
	slots    map[SlotKey]struct{}
}

// NewDiscovery returns an empty Discovery.
func NewDiscovery() *Discovery {
	return &Discovery{accounts: make(map[common.Address]struct{}), slots: make(map[SlotKey]struct{})}
}

// MissAccount records that an account was needed and not cached.
func (d *Discovery) MissAccount(addr common.Address) {
	d.mu.Lock()
	d.accounts[addr] = struct{}{}
	d.mu.Unlock()
}

// MissStorage records that a slot was needed and not cached.
func (d *Discovery) MissStorage(addr common.Address, slot common.Hash) {
	d.mu.Lock()
	d.slots[SlotKey{addr, slot}] = struct{}{}
	d.mu.Unlock()
}

// Missed returns how many reads were missed.
func (d *Discovery) Missed() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.accounts) + len(d.slots)
}

// Fetch reads everything missed from s's upstream in one go and empties the sets.
func (d *Discovery) Fetch(ctx context.Context, s *State) error {
	d.mu.Lock()
	accounts := make([]common.Address, 0, len(d.accounts))
	for a := range d.accounts {
		accounts = append(accounts, a)
	}
	slots := make([]SlotKey, 0, len(d.slots))
	for k := range d.slots {
		slots = append(slots, k)
	}
	clear(d.accounts)
	clear(d.slots)
	d.mu.Unlock()
	return s.Fetch(ctx, accounts, slots)
}
