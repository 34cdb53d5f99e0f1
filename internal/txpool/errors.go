package txpool

import "errors"

// Errors of the pool's limits. Validation errors are go-ethereum's (core and core/txpool), and
// so are these texts: the API sends them as -32000 with the message, which explains what
// would be accepted.
var (
	// ErrPoolFull is returned when the pool cannot make room for a transaction: the
	// executable slots are all in use and the sender already holds the most of them, or the
	// queued slots are all in use by the sender itself. It has go-ethereum's text.
	ErrPoolFull = errors.New("txpool is full")
	// ErrAccountQueueFull is returned for a future-nonce transaction when its sender already
	// has Config.AccountQueue slots of future-nonce transactions at lower nonces.
	ErrAccountQueueFull = errors.New("account queue full")
)
