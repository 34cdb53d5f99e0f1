package fork

import (
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

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
//   - when N is not, and the fork runs a network's rules as of now in which Denim is still to
//     come (its activation after now and after N), the fork runs Denim from that time: its
//     blocks cross it when their time reaches it.
//   - a network's Denim scheduled after N is off on a fork of the live network, as every
//     fork scheduled after N is (networks.ForkRules): the local blocks keep N's rules.
//
// A remote-state replica executes nothing: its Denim time only says from when the upstream's
// blocks may share a timestamp and carry a millisecond time. It runs Denim when N is a Denim
// block, and from the activation when Denim is still to come after N as above (the upstream,
// which runs the same rules, crosses it then); a Denim active at N on a non-Denim block N is
// not the upstream's, and the replica does not run it.

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
