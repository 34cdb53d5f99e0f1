package txpool

import (
	"time"

	"github.com/ethereum/go-ethereum/core/types"
)

// Sizes, as go-ethereum's legacy pool sets them.
const (
	// SlotSize is the size of one slot: a transaction takes ceil(size / SlotSize) slots, so
	// that the limits below bound memory and not just a count.
	SlotSize = 32 * 1024
	// MaxTxSize is the largest transaction accepted, in bytes (4 slots).
	MaxTxSize = 4 * SlotSize
	// maxBlobTxSize bounds a blob transaction including its sidecar.
	maxBlobTxSize = 8 * 1024 * 1024
)

// Config sets the pool's limits, with go-ethereum's names and defaults (core/txpool/legacypool,
// the --txpool.* flags). Executable ("pending") transactions continue their sender's nonce
// from the state of the block in progress without a gap; queued transactions have a higher
// nonce and wait for the gap to fill. Every limit is in slots: a transaction of up to 32 KiB
// takes one, as in geth's counts, a larger one up to four. A zero field takes DefaultConfig's
// value.
type Config struct {
	// AccountSlots is the executable slots each account is guaranteed: when the executable
	// slots are all in use, an account over this is the first to lose its newest ones.
	AccountSlots uint64
	// GlobalSlots is the most executable slots, all accounts together.
	GlobalSlots uint64
	// AccountQueue is the most queued slots one account may hold.
	AccountQueue uint64
	// GlobalQueue is the most queued slots, all accounts together.
	GlobalQueue uint64
	// Lifetime is how long an account's queued transactions are kept when none of its
	// transactions became executable meanwhile.
	Lifetime time.Duration
	// PriceBump is the percentage by which a replacement must raise both fee caps.
	PriceBump uint64
	// Now is the clock of Lifetime; nil means time.Now.
	Now func() time.Time
}

// DefaultConfig holds go-ethereum's defaults.
var DefaultConfig = Config{
	AccountSlots: 16,
	GlobalSlots:  4096 + 1024,
	AccountQueue: 64,
	GlobalQueue:  1024,
	Lifetime:     3 * time.Hour,
	PriceBump:    10,
}

// withDefaults returns c with every zero field set to DefaultConfig's value.
func (c Config) withDefaults() Config {
	d := DefaultConfig
	if c.AccountSlots == 0 {
		c.AccountSlots = d.AccountSlots
	}
	if c.GlobalSlots == 0 {
		c.GlobalSlots = d.GlobalSlots
	}
	if c.AccountQueue == 0 {
		c.AccountQueue = d.AccountQueue
	}
	if c.GlobalQueue == 0 {
		c.GlobalQueue = d.GlobalQueue
	}
	if c.Lifetime == 0 {
		c.Lifetime = d.Lifetime
	}
	if c.PriceBump == 0 {
		c.PriceBump = d.PriceBump
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// numSlots is the number of slots tx takes.
func numSlots(tx *types.Transaction) uint64 {
	return (tx.Size() + SlotSize - 1) / SlotSize
}
