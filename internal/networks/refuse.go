package networks

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/params"
)

// NotRunError is the refusal of a block at which a fork flashrpc does not run is active:
// executing it with older rules would diverge from the chain without a word.
type NotRunError struct {
	// Fork is the fork, with its activation.
	Fork Fork
	// Number and Time are the block's.
	Number, Time uint64
	// Reason says why the fork's rules are not run; empty: flashrpc does not run them.
	Reason string
}

// Error implements error: the fork, its activation, the block and the reason, as in "fork
// lagoon (activation 1749150000) is active at block 123 (time 1749150012): flashrpc does not
// run its rules; refusing to execute".
func (e *NotRunError) Error() string {
	activation := "activation time unknown"
	switch {
	case e.Fork.Time != nil:
		activation = fmt.Sprintf("activation %d", *e.Fork.Time)
	case e.Fork.Block != nil:
		activation = fmt.Sprintf("activation block %d", *e.Fork.Block)
	}
	reason := e.Reason
	if reason == "" {
		reason = "flashrpc does not run its rules"
	}
	return fmt.Sprintf("fork %s (%s) is active at block %d (time %d): %s; refusing to execute", e.Fork.Name, activation, e.Number, e.Time, reason)
}

// CheckRules returns a *NotRunError when a fork flashrpc does not run is active at the block
// with number and time on a chain configured by cfg, nil otherwise. It checks every fork cfg
// schedules (a fork field flashrpc does not run, such as lagoonTime, or Karst without the
// Osaka rules flashrpc runs it with) and, when cfg is a known OP Stack network's schedule
// (same chain id and OP fork times through Jovian, as its genesis file has them), that
// network's forks without a configuration field (Base's Beryl, Cobalt, Denim) and the forks the
// network runs by then that cfg lacks (a genesis file older than Karst or Azul). Fork, follow
// and import call it before executing a block.
func CheckRules(cfg *params.ChainConfig, number, time uint64) error {
	if err := checkForks(configForks(cfg), number, time); err != nil {
		return err
	}
	if err := checkKarst(cfg, number, time); err != nil {
		return err
	}
	if cfg.ChainID == nil || !cfg.ChainID.IsUint64() {
		return nil
	}
	n, ok := Lookup(cfg.ChainID.Uint64())
	if !ok || n.Kind != OPStack || !sameOPSchedule(cfg, n.Config) {
		return nil
	}
	if err := checkForks(n.Later, number, time); err != nil {
		return err
	}
	return checkMissing(cfg, n, number, time)
}

// checkMissing refuses a block at which the network n runs a time-scheduled fork that cfg, a
// configuration of n (a genesis file's), does not schedule by then: an older file without
// Karst's or Azul's time would run the block with older rules. The forks compared are the
// ones n lists (Network.Forks); a fork of Later that flashrpc runs is run as Osaka (Azul).
func checkMissing(cfg *params.ChainConfig, n Network, number, time uint64) error {
	have := map[string]bool{}
	for _, f := range configForks(cfg) {
		have[f.Name] = f.activeAt(number, time)
	}
	later := map[string]bool{}
	for _, f := range n.Later {
		later[f.Name] = true
	}
	for _, f := range n.Forks() {
		if f.Time == nil || !f.Runs || !f.activeAt(number, time) {
			continue
		}
		if present := have[f.Name] || (later[f.Name] && have["osaka"]); !present {
			return &NotRunError{Fork: f, Number: number, Time: time,
				Reason: fmt.Sprintf("%s runs it, but the chain configuration does not schedule it by then", n.ID)}
		}
	}
	return nil
}

// CheckRules returns a *NotRunError when a fork of the network that flashrpc does not run
// is active at the block with number and time, nil otherwise: [CheckRules] on the network's
// own schedule, Later included. A fork of the network checks the block it continues with it.
func (n Network) CheckRules(number, time uint64) error {
	if err := checkForks(configForks(n.Config), number, time); err != nil {
		return err
	}
	if err := checkKarst(n.Config, number, time); err != nil {
		return err
	}
	return checkForks(n.Later, number, time)
}

// checkForks returns a *NotRunError for the first fork of forks that is active at the
// block and not run.
func checkForks(forks []Fork, number, time uint64) error {
	for _, f := range forks {
		if !f.Runs && f.activeAt(number, time) {
			return &NotRunError{Fork: f, Number: number, Time: time}
		}
	}
	return nil
}

// checkKarst refuses a block at which an OP Stack configuration runs Karst or Osaka without
// the other (flashrpc runs Karst as Osaka on L2 from Karst's time, [WithKarst]): op-geth
// alone would run Karst with Jovian's EVM, and internal/oprollup's Karst precompiles are
// installed where Osaka is on.
func checkKarst(cfg *params.ChainConfig, number, time uint64) error {
	if !cfg.IsOptimism() || cfg.KarstTime == nil {
		return nil
	}
	if cfg.OsakaTime != nil && *cfg.OsakaTime == *cfg.KarstTime {
		return nil
	}
	if cfg.IsOptimismKarst(time) || cfg.IsOsaka(new(big.Int).SetUint64(number), time) {
		f := Fork{Name: "karst", Time: clone(cfg.KarstTime), Runs: true}
		return &NotRunError{Fork: f, Number: number, Time: time,
			Reason: "the chain configuration does not run Osaka from the same time (osakaTime must equal karstTime: flashrpc runs Karst as Osaka on L2)"}
	}
	return nil
}

// sameOPSchedule reports whether a and b schedule the OP forks Regolith through Jovian at
// the same times: a configuration of the network b is (its genesis, a replica's), not a dev
// chain that took its chain id.
func sameOPSchedule(a, b *params.ChainConfig) bool {
	same := func(x, y *uint64) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return a.IsOptimism() && same(a.RegolithTime, b.RegolithTime) && same(a.CanyonTime, b.CanyonTime) &&
		same(a.EcotoneTime, b.EcotoneTime) && same(a.FjordTime, b.FjordTime) && same(a.GraniteTime, b.GraniteTime) &&
		same(a.HoloceneTime, b.HoloceneTime) && same(a.IsthmusTime, b.IsthmusTime) && same(a.JovianTime, b.JovianTime)
}
