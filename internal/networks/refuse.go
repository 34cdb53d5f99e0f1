package networks

import (
	"fmt"
	"slices"

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
// network runs by then that cfg lacks (a genesis file older than Karst or Azul). Fork mode
// calls it before executing a block; a caller that checks every block (follow, import)
// derives the check once ([NewRuleCheck]) instead of per call.
func CheckRules(cfg *params.ChainConfig, number, time uint64) error {
	return NewRuleCheck(cfg).Check(number, time)
}

// CheckRules returns a *NotRunError when a fork of the network that flashrpc does not run
// is active at the block with number and time, nil otherwise: [CheckRules] on the network's
// own schedule, Later included. A fork of the network checks the block it continues with it.
func (n Network) CheckRules(number, time uint64) error { return n.checkRules(number, time, nil) }

// checkRules is [Network.CheckRules] with the forks of n.Later for which skip, when not nil,
// reports true left out.
func (n Network) checkRules(number, time uint64, skip func(Fork) bool) error {
	if err := checkForks(configForks(n.Config), number, time); err != nil {
		return err
	}
	if err := checkKarst(n.Config, number, time); err != nil {
		return err
	}
	later := n.Later
	if skip != nil {
		later = slices.DeleteFunc(slices.Clone(later), skip)
	}
	return checkForks(later, number, time)
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
	if k := newKarstRule(cfg); k != nil && k.active(number, time) {
		return k.refusal(number, time)
	}
	return nil
}

// karstRule is, for an OP Stack configuration that schedules Karst and Osaka at different
// times (or Karst without Osaka), what activates each, copied from the configuration.
type karstRule struct {
	karst  uint64  // Karst's time
	osaka  *uint64 // Osaka's time; nil: not scheduled
	london *uint64 // London's block, without which Osaka is not active; nil: never
}

// newKarstRule returns cfg's karstRule, nil when cfg is not an OP Stack configuration or
// schedules Karst and Osaka together (or no Karst).
func newKarstRule(cfg *params.ChainConfig) *karstRule {
	if !cfg.IsOptimism() || cfg.KarstTime == nil || (cfg.OsakaTime != nil && *cfg.OsakaTime == *cfg.KarstTime) {
		return nil
	}
	k := &karstRule{karst: *cfg.KarstTime, osaka: clone(cfg.OsakaTime)}
	if cfg.LondonBlock != nil && cfg.LondonBlock.IsUint64() {
		london := cfg.LondonBlock.Uint64()
		k.london = &london
	}
	return k
}

// active reports whether Karst or Osaka is active at the block (as IsOptimismKarst and
// IsOsaka on the configuration).
func (k *karstRule) active(number, time uint64) bool {
	osaka := k.osaka != nil && *k.osaka <= time && k.london != nil && *k.london <= number
	return k.karst <= time || osaka
}

// refusal is the refusal of a block at which Karst or Osaka is active without the other.
func (k *karstRule) refusal(number, time uint64) *NotRunError {
	f := Fork{Name: "karst", Time: clone(&k.karst), Runs: true}
	return &NotRunError{Fork: f, Number: number, Time: time,
		Reason: "the chain configuration does not run Osaka from the same time (osakaTime must equal karstTime: flashrpc runs Karst as Osaka on L2)"}
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
