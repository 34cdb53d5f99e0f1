package oprollup

import (
	"fmt"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// DenimNext is what Denim makes of the block after a parent (NextDenimBlock).
type DenimNext struct {
	Time uint64 // the block's header timestamp
	Part uint16 // its millisecond part: the BaseTime deposit's
	On   bool   // whether it is a Denim block
	// GasLimit and Extra are a Denim block's gas limit and extraData: on the first Denim block
	// the parent's scaled (DenimGasParams), on a later one the parent's.
	GasLimit uint64
	Extra    []byte
}

// NextDenimBlock returns the block after parent, whose transactions are parentTxs, on an OP
// Stack chain whose Denim time is denim (nil: none), when the clock would time it at clock.
// After a Denim block its time is the parent's Tms + 200 (NextDenimTime), whatever the clock
// says; otherwise it is clock, with part 0. The sequencer and a fork's first block both build
// the next block with it.
func NextDenimBlock(config *params.ChainConfig, denim *uint64, parent *types.Header, parentTxs types.Transactions, clock uint64) (DenimNext, error) {
	next := DenimNext{Time: clock}
	if parentMs, ok := BlockTimeMs(parent.Time, parentTxs); ok && denim != nil {
		next.Time, next.Part = NextDenimTime(parentMs/1000, uint16(parentMs%1000))
	}
	if next.On = IsDenim(denim, next.Time); !next.On {
		return next, nil
	}
	next.GasLimit, next.Extra = parent.GasLimit, parent.Extra
	if IsFirstDenimBlock(denim, parent.Time, next.Time) {
		limit, extra, err := DenimGasParams(config, next.Time, parent.GasLimit, parent.Extra)
		if err != nil {
			return DenimNext{}, fmt.Errorf("first Denim block %d: %w", parent.Number.Uint64()+1, err)
		}
		next.GasLimit, next.Extra = limit, extra
	}
	return next, nil
}
