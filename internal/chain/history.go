package chain

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
)

// Historic state under the path scheme. The states of the last 128 blocks are layers in
// memory above the one on disk (go-ethereum's pathdb) and read as under hash; fewer after a
// dev chain's cheated block, whose write makes its state the one on disk (persist.go). Older ones are
// read through the state history: go-ethereum 1.17 indexes it (archive mode with the path
// scheme) and its historical reader answers account, storage and code reads at any block whose
// history is kept, the last Config.StateHistory blocks. Their tries are not kept, so such a
// state has no Merkle proof (ErrStateUnavailable) and cannot be committed; reads and calls on
// it work.

// pathTrieLayers is how many recent blocks keep their tries under the path scheme: the
// memory layers above the disk state (go-ethereum's pathdb keeps 128 and the disk's).
const pathTrieLayers = 128

// HistoryUnavailableError is the error for a state the path scheme no longer keeps, or does
// not serve yet: go-ethereum indexes the state history in the background, from when the head
// is recent (within 6 hours of now; it checks every minute). It wraps ErrStateUnavailable.
type HistoryUnavailableError struct {
	Number   uint64 // the block whose state was asked for
	Keep     uint64 // Config.StateHistory: blocks whose state history is kept, 0 for all
	Indexing bool   // the history is not indexed yet
	Cause    error  // go-ethereum's reason
}

func (e *HistoryUnavailableError) Error() string {
	switch {
	case e.Indexing:
		return fmt.Sprintf("historical state for block %d is not available yet: the state history is being indexed (from within a minute of the head being recent); try again shortly, or read a more recent block (the last %d are in memory, or fewer since a dev chain's cheated block, whose state is written to disk)", e.Number, pathTrieLayers)
	case e.Keep == 0:
		return fmt.Sprintf("historical state for block %d is not available (%v): the node keeps the state history of every block since it was created with --state.scheme path --history.state 0; use --state.scheme hash for an archive", e.Number, e.Cause)
	}
	return fmt.Sprintf("historical state for block %d is not available: the node keeps the state of the last %d blocks (--state.scheme path --history.state %d); use --state.scheme hash for an archive", e.Number, e.Keep, e.Keep)
}

// Unwrap makes the error an ErrStateUnavailable.
func (e *HistoryUnavailableError) Unwrap() error { return ErrStateUnavailable }

// Scheme returns the chain's state scheme, SchemeHash or SchemePath.
func (c *Chain) Scheme() string { return c.scheme }

// StateHistory returns how many recent blocks keep their state history under the path scheme
// (0: all); it means nothing under hash.
func (c *Chain) StateHistory() uint64 { return c.stateHistory }

// historicStateAt opens the state after header through the path scheme's state history, for a
// block below its memory layers. Its reader is not shared (statereader.go): the shared ones are
// for the few recent roots most requests read.
func (c *Chain) historicStateAt(header *types.Header) (*state.StateDB, error) {
	// The state history reader's own error says why (HistoricDB.Reader's does not).
	if _, err := c.bc.TrieDB().HistoricStateReader(header.Root); err != nil {
		number := header.Number.Uint64()
		// A block below the memory layers and the kept history is gone, indexed or not.
		pruned := c.stateHistory > 0 && number+pathTrieLayers+c.stateHistory < c.Head().Number.Uint64()
		return nil, &HistoryUnavailableError{Number: number, Keep: c.stateHistory, Indexing: !pruned && strings.Contains(err.Error(), "indexed"), Cause: err}
	}
	db := state.NewHistoricDatabase(c.bc.TrieDB(), c.bc.CodeDB())
	reader, err := db.Reader(header.Root)
	if err != nil {
		return nil, &HistoryUnavailableError{Number: header.Number.Uint64(), Keep: c.stateHistory, Cause: err}
	}
	return state.NewWithReader(header.Root, db, reader)
}

// pathRewindable refuses, under the path scheme, a rewind to a block whose state can no longer
// be restored through the state history: go-ethereum's BlockChain would go on rewinding to the
// newest block whose state it has, the genesis at worst, and delete every block above it.
func (c *Chain) pathRewindable(number uint64) error {
	h := c.HeaderByNumber(number)
	if h == nil || c.bc.HasState(h.Root) {
		return nil // setHead's own checks answer
	}
	if ok, err := c.bc.TrieDB().Recoverable(h.Root); ok && err == nil {
		return nil
	}
	return fmt.Errorf("rewind to block %d: %w", number, &HistoryUnavailableError{Number: number, Keep: c.stateHistory, Cause: errors.New("its state history is not kept")})
}
