package networks

import (
	"github.com/ethereum/go-ethereum/params"
)

// Fork is one fork of a network's schedule: its name, its activation (a block number or a
// time, exactly one set) and whether flashrpc runs its rules.
type Fork struct {
	// Name is the fork's name, lowercase as in go-ethereum's JSON chain configuration without
	// its Block or Time suffix ("london", "cancun", "jovian", "karst"), or Base's ("azul").
	Name string `json:"name"`
	// Block is the activation block of a block-scheduled fork, nil for a time-scheduled one.
	Block *uint64 `json:"block,omitempty"`
	// Time is the activation time (Unix seconds) of a time-scheduled fork, nil for a
	// block-scheduled one.
	Time *uint64 `json:"time,omitempty"`
	// Runs says whether flashrpc runs the fork's rules. A block at which a fork it does not
	// run is active is refused ([CheckRules]).
	Runs bool `json:"runs"`
	// LocalEffect, on a fork flashrpc does not run, says what a local chain named after the
	// network (`flashrpc dev --network NAME`) lacks without it: such a chain runs without the
	// fork and warns with this text, where the live chain's blocks are refused. Empty: a
	// local chain with the fork active is refused too.
	LocalEffect string `json:"-"`
}

// activeAt reports whether f is active at the block with number and time.
func (f Fork) activeAt(number, time uint64) bool {
	switch {
	case f.Block != nil:
		return *f.Block <= number
	case f.Time != nil:
		return *f.Time <= time
	}
	return false
}

// runs lists the forks of go-ethereum's chain configuration whose rules flashrpc runs (with
// op-geth's code, and internal/oprollup's where op-geth lacks it), by name. Every other fork
// field, including any a later go-ethereum adds, counts as not run: a chain that schedules
// one is refused from its activation on.
var runs = map[string]bool{
	// Ethereum's forks through Osaka and the blob-parameter-only forks after it.
	"homestead": true, "daoFork": true, "eip150": true, "eip155": true, "eip158": true,
	"byzantium": true, "constantinople": true, "petersburg": true, "istanbul": true,
	"muirGlacier": true, "berlin": true, "london": true, "arrowGlacier": true,
	"grayGlacier": true, "mergeNetsplit": true, "shanghai": true, "cancun": true,
	"prague": true, "osaka": true, "bpo1": true, "bpo2": true, "bpo3": true, "bpo4": true,
	"bpo5": true,
	// The OP Stack's forks through Karst (Karst as Osaka on L2 with oprollup's additions).
	"bedrock": true, "regolith": true, "canyon": true, "ecotone": true, "fjord": true,
	"granite": true, "holocene": true, "isthmus": true, "jovian": true, "karst": true,
	// Not run: amsterdam, verkle (go-ethereum's unfinished forks); lagoon (OP's interop and
	// post-exec transactions: op-geth's is interop only, flashrpc runs neither).
}

// opFields are the chain configuration's OP Stack fork fields, listed for OP Stack networks
// (their Ethereum forks come with them: Shanghai with Canyon, …).
var opFields = map[string]bool{
	"bedrock": true, "regolith": true, "canyon": true, "ecotone": true, "fjord": true,
	"granite": true, "holocene": true, "isthmus": true, "jovian": true, "karst": true,
	"lagoon": true,
}

// configForks returns every fork cfg schedules (a non-nil ...Block or ...Time field), in
// the configuration's field order, named as [Fork.Name] says, with whether flashrpc runs it.
func configForks(cfg *params.ChainConfig) []Fork {
	var out []Fork
	for _, f := range forkFields(cfg) {
		switch {
		case f.block != nil && *f.block != nil:
			n := (*f.block).Uint64()
			out = append(out, Fork{Name: f.name, Block: &n, Runs: runs[f.name]})
		case f.time != nil && *f.time != nil:
			out = append(out, Fork{Name: f.name, Time: clone(*f.time), Runs: runs[f.name]})
		}
	}
	return out
}

// Forks returns the network's fork schedule as `flashrpc networks` lists it: an Ethereum
// chain's Ethereum forks; an OP Stack chain's OP forks (the Ethereum forks they bring are
// left out) and its forks without a configuration field (Later). The slice is the caller's.
func (n Network) Forks() []Fork {
	var out []Fork
	for _, f := range configForks(n.Config) {
		if n.Kind != OPStack || opFields[f.Name] {
			out = append(out, f)
		}
	}
	return append(out, n.Later...)
}
