package networks

import "github.com/ethereum/go-ethereum/params"

// RuleCheck is [CheckRules] for one chain configuration, derived once: the forks it would
// refuse, each with what makes it active, so that checking a block is a few comparisons and
// no allocation. Deriving it reads the configuration by reflection (about 20 µs and a hundred
// allocations); a replica or an import checks every block, and derives it once.
//
// A RuleCheck is immutable and safe for concurrent use. It reads the configuration as it was
// when derived: a configuration changed afterwards needs a new one.
type RuleCheck struct {
	// notRun are the forks the configuration schedules that flashrpc does not run, in the
	// configuration's field order.
	notRun []Fork
	// karst is what activates Karst and Osaka when the configuration schedules them apart,
	// nil otherwise.
	karst *karstRule
	// later are the forks without a configuration field that flashrpc does not run, of the
	// known network the configuration is a copy of (none for any other configuration).
	later []Fork
	// missing are that network's time-scheduled forks flashrpc runs, with what the
	// configuration schedules in their place (checkMissing).
	missing []missingFork
}

// missingFork is a fork a known network runs that a configuration of it may lack: the block is
// refused while fork is active and neither have (the configuration's fork of that name) nor,
// for a fork without a configuration field, osaka (the configuration's Osaka, which runs it)
// is.
type missingFork struct {
	fork       Fork
	have       *Fork // nil: the configuration does not schedule it
	osaka      *Fork // nil: not a fork of Later, or the configuration has no Osaka
	reasonText string
}

// NewRuleCheck derives the check of blocks on a chain configured by cfg ([CheckRules]).
func NewRuleCheck(cfg *params.ChainConfig) *RuleCheck {
	rc := new(RuleCheck)
	forks := configForks(cfg)
	for _, f := range forks {
		if !f.Runs {
			rc.notRun = append(rc.notRun, f)
		}
	}
	rc.karst = newKarstRule(cfg)
	if cfg.ChainID == nil || !cfg.ChainID.IsUint64() {
		return rc
	}
	n, ok := Lookup(cfg.ChainID.Uint64())
	if !ok || n.Kind != OPStack || !sameOPSchedule(cfg, n.Config) {
		return rc
	}
	for _, f := range n.Later {
		if !f.Runs {
			rc.later = append(rc.later, f)
		}
	}
	rc.missing = missingForks(forks, n)
	return rc
}

// missingForks lists the time-scheduled forks the network n runs (Network.Forks) with the
// forks of a configuration of it (forks, configForks's) that stand for them.
func missingForks(forks []Fork, n Network) []missingFork {
	byName := map[string]*Fork{}
	for i := range forks {
		byName[forks[i].Name] = &forks[i]
	}
	later := map[string]bool{}
	for _, f := range n.Later {
		later[f.Name] = true
	}
	var out []missingFork
	for _, f := range n.Forks() {
		if f.Time == nil || !f.Runs {
			continue
		}
		m := missingFork{fork: f, have: byName[f.Name], reasonText: string(n.ID) + " runs it, but the chain configuration does not schedule it by then"}
		if later[f.Name] {
			m.osaka = byName["osaka"]
		}
		out = append(out, m)
	}
	return out
}

// Check returns a *NotRunError when a fork flashrpc does not run is active at the block with
// number and time, nil otherwise, as [CheckRules] on the configuration does.
func (rc *RuleCheck) Check(number, time uint64) error {
	if err := checkForks(rc.notRun, number, time); err != nil {
		return err
	}
	if rc.karst != nil && rc.karst.active(number, time) {
		return rc.karst.refusal(number, time)
	}
	if err := checkForks(rc.later, number, time); err != nil {
		return err
	}
	for _, m := range rc.missing {
		if m.fork.activeAt(number, time) && !activeFork(m.have, number, time) && !activeFork(m.osaka, number, time) {
			return &NotRunError{Fork: m.fork, Number: number, Time: time, Reason: m.reasonText}
		}
	}
	return nil
}

// activeFork reports whether f is scheduled (not nil) and active at the block.
func activeFork(f *Fork, number, time uint64) bool {
	return f != nil && f.activeAt(number, time)
}
