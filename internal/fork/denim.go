package fork

import (
	"fmt"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/networks"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/remote"
)

// A fork of a chain that runs Denim, Base's 200 ms blocks (internal/oprollup), runs Denim too.
// Its Denim time is stored with the chain (chain.StoreDenim) when the fork is created, and is
// decided by the fork block N and the rules the fork runs (forkDenim):
//
//   - when N is a Denim block (its transaction 1 is the BaseTime deposit), the fork runs
//     Denim: its first block continues N's millisecond time (Tms = Tms(N) + 200, the part
//     read from N's BaseTime deposit, which is what BaseTime's slot 0 holds at N), carries the
//     BaseTime deposit and keeps N's gas limit and EIP-1559 parameters. This holds whatever
//     rules the fork runs: N's state has BaseTime's part, and a block without the deposit
//     would leave it stale.
//   - when N is not, and the fork runs a network's rules as of now (a local upstream run
//     with --network, or a local chain with Base's chain id) in which Denim is active, the
//     fork crosses Denim at its first block: part 0, the gas limit divided by 10 and the
//     EIP-1559 denominator multiplied by 10 (oprollup.DenimGasParams), and BaseTime's
//     implementation installed before its transactions when N's state lacks it
//     (oprollup.EnsureBaseTime), as Base's node does at the first Denim block.
//   - a network's Denim scheduled after N is off on a fork of the live network, as every
//     fork scheduled after N is (networks.ForkRules): the local blocks keep N's rules.
//
// A remote-state replica executes nothing: its Denim time only says from when the upstream's
// blocks may share a timestamp and carry a millisecond time, so it runs Denim only when N is a
// Denim block.

// forkDenim returns the Denim time of a fork of block b whose rules come from network, nil
// when the fork does not run Denim. asOf is true when the fork runs the network's rules as of
// now (networks.Network.LocalRules), where Denim, when active by now, is active from genesis
// (networks.Network.LocalDenim).
func forkDenim(network networks.Network, asOf bool, now uint64, replica bool, b *types.Block) *uint64 {
	at, runs := network.DenimTime()
	if !runs {
		at = nil
	}
	if asOf {
		at = network.LocalDenim(now)
	}
	if _, denimBlock := oprollup.BlockTimeMs(b.Time(), b.Transactions()); denimBlock {
		if at != nil && *at <= b.Time() {
			return at
		}
		zero := uint64(0)
		return &zero
	}
	switch {
	case at == nil || !asOf:
		return nil // a live network's Denim after N stays off, as its other later forks
	case !oprollup.IsDenim(at, b.Time()):
		return at // crossed when the local blocks' time reaches it
	case replica:
		return nil // the upstream does not run the Denim its rules have
	}
	next := b.Time() + 1 // the first forked block is the first Denim block
	return &next
}

// denimSlot returns the time of the first forked block after parent (block N, with
// transactions parentTxs) on a fork whose Denim time is denim, given clock, the clock's time
// (at least parent's + 1): after a Denim block, Tms(N) + 200 (five blocks share a second); else
// clock. part is the block's millisecond part and on whether it is a Denim block.
func denimSlot(denim *uint64, parent *types.Header, parentTxs types.Transactions, clock uint64) (time uint64, part uint16, on bool) {
	time = clock
	if parentMs, ok := oprollup.BlockTimeMs(parent.Time, parentTxs); ok && denim != nil {
		time, part = oprollup.NextDenimTime(parentMs/1000, uint16(parentMs%1000))
	}
	return time, part, oprollup.IsDenim(denim, time)
}

// denimGas sets the gas limit and extraData of header, a Denim block after parent: on the
// first Denim block the parent's gas limit divided by 10 and its EIP-1559 denominator
// multiplied by 10 (oprollup.DenimGasParams), on a later one the parent's.
func denimGas(config *params.ChainConfig, denim *uint64, header, parent *types.Header) error {
	if !oprollup.IsFirstDenimBlock(denim, parent.Time, header.Time) {
		header.GasLimit, header.Extra = parent.GasLimit, parent.Extra
		return nil
	}
	limit, extra, err := oprollup.DenimGasParams(config, header.Time, parent.GasLimit, parent.Extra)
	if err != nil {
		return fmt.Errorf("first Denim block %d: %w", header.Number.Uint64(), err)
	}
	header.GasLimit, header.Extra = limit, extra
	return nil
}

// baseTimeReads and baseTimeSlots are what a first forked Denim block reads of BaseTime
// besides what every OP Stack block reads (opFirstBlockReads): the proxy, its implementation
// and admin slots and the part's slot 0, and the implementation's account.
func baseTimeReads() []common.Address {
	return []common.Address{oprollup.BaseTime, oprollup.BaseTimeImplementation}
}

func baseTimeSlots() []remote.SlotKey {
	return []remote.SlotKey{
		{Addr: oprollup.BaseTime, Slot: common.Hash{}},
		{Addr: oprollup.BaseTime, Slot: eip1967Implementation},
		{Addr: oprollup.BaseTime, Slot: eip1967Admin},
	}
}

// eip1967Admin is the slot where a proxy keeps its admin's address.
var eip1967Admin = common.HexToHash("0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103")

// denimString writes a Denim time for the log: "off", or the activation time.
func denimString(denim *uint64) string {
	if denim == nil {
		return "off"
	}
	return strconv.FormatUint(*denim, 10)
}
