package chain

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/ethdb"
)

// denimKey is the database key of the chain's Denim time (Config.Denim). A chain configuration
// has no field for Denim, so the chain keeps it beside go-ethereum's stored configuration: 8
// bytes big-endian when the chain runs Denim, an empty value when it does not. Open writes it
// the first time it opens the chain, from Config.Denim.
var denimKey = []byte("flashrpc-denim-time")

// ErrDenimConflict is Open's error for a Denim time (Config.Denim) that differs from the one
// the chain was created with.
var ErrDenimConflict = errors.New("conflicts with the chain's Denim time")

// resolveDenim returns the Denim time of the chain in db when it is opened with given: the
// stored one when given is nil, given when they agree, an error naming both when they do
// not. store says that db holds none yet (a new chain, or one written before the time was
// stored), so Open writes the result. newChain says that db has no block 0 yet: Open writes
// a new chain's time before it commits the genesis, so that a crash between the two cannot
// leave a genesis without its Denim time, and a time stored without a block 0 (a crash
// before the genesis) is not the chain's: given replaces it.
func resolveDenim(db ethdb.KeyValueReader, given *uint64, dir string, newChain bool) (denim *uint64, store bool, err error) {
	if newChain {
		return given, true, nil
	}
	has, err := db.Has(denimKey)
	if err == nil && !has {
		return given, true, nil
	}
	var raw []byte
	if err == nil {
		raw, err = db.Get(denimKey)
	}
	if err != nil {
		return nil, false, fmt.Errorf("read the Denim time of the chain in %s: %w", dir, err)
	}
	var stored *uint64
	switch len(raw) {
	case 0:
	case 8:
		t := binary.BigEndian.Uint64(raw)
		stored = &t
	default:
		return nil, false, fmt.Errorf("the chain in %s holds a malformed Denim time (%d bytes)", dir, len(raw))
	}
	switch {
	case given == nil:
		return stored, false, nil
	case stored == nil:
		return nil, false, fmt.Errorf("Denim from %d %w in %s: it does not run Denim", *given, ErrDenimConflict, dir)
	case *stored != *given:
		return nil, false, fmt.Errorf("Denim from %d %w in %s: it runs Denim from %d", *given, ErrDenimConflict, dir, *stored)
	}
	return stored, false, nil
}

// writeDenim stores denim as the chain's Denim time (nil: the chain does not run Denim).
func writeDenim(db ethdb.KeyValueWriter, denim *uint64) error {
	var raw []byte
	if denim != nil {
		raw = binary.BigEndian.AppendUint64(nil, *denim)
	} else {
		raw = []byte{}
	}
	if err := db.Put(denimKey, raw); err != nil {
		return fmt.Errorf("store the chain's Denim time: %w", err)
	}
	return nil
}

// StoreDenim stores denim as the Denim time of the chain a database is being created with,
// before Open opens it: a fork (Config.OpenUpstream) that writes the chain's block 0 itself
// decides its Denim time from the upstream it continues, and Open then reads it back.
func StoreDenim(db ethdb.KeyValueWriter, denim *uint64) error { return writeDenim(db, denim) }

// Denim returns when the chain runs Denim, Base's 200 ms blocks, nil when it does not: the
// time it was created with (Config.Denim), as stored in its database. The result is the
// caller's.
func (c *Chain) Denim() *uint64 {
	if c.denim == nil {
		return nil
	}
	t := *c.denim
	return &t
}
