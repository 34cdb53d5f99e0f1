package txpool

import (
	"errors"
	"fmt"
)

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

// ErrTxGasCap refuses a transaction that asks for more gas than any block may give it: over
// the EIP-7825 cap of 2^24 (Osaka; Azul on an OP Stack chain) or over the block gas limit
// (decisions.md "Building blocks as Base does"). Such a transaction never enters the pool.
var ErrTxGasCap = errors.New("exceeds maximum per-transaction gas limit")

// gasCapError is ErrTxGasCap with the figures; it also matches go-ethereum's error for the
// same case (core.ErrGasLimitTooHigh for the cap, txpool.ErrGasLimit for the block limit).
type gasCapError struct {
	gas, limit uint64
	what       string // which limit: the EIP-7825 cap or the block gas limit
	geth       error
}

func (e *gasCapError) Error() string {
	return fmt.Sprintf("%s: transaction gas %d, %s %d", ErrTxGasCap, e.gas, e.what, e.limit)
}

func (e *gasCapError) Unwrap() []error { return []error{ErrTxGasCap, e.geth} }
