package networks

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/params"
)

// LocalRules is [Network.RulesAsOf] for a chain a person asked for by name (`flashrpc dev
// --network NAME`, a fork or replica of a local chain with --network): when flashrpc cannot
// run the network's rules as of now, the error names every fork of the network active at now
// that it does not run, and what to run instead.
func (n Network) LocalRules(chainID, now uint64) (*params.ChainConfig, error) {
	cfg, err := n.RulesAsOf(chainID, now)
	var notRun *NotRunError
	if err == nil || !errors.As(err, &notRun) {
		return cfg, err
	}
	var lacks []string
	for _, f := range n.Forks() {
		if !f.Runs && f.LocalEffect == "" && f.activeAt(math.MaxUint64, now) {
			s := f.Name
			if f.Time != nil {
				s += " (" + time.Unix(int64(*f.Time), 0).UTC().Format(time.DateOnly) + ")"
			}
			lacks = append(lacks, s)
		}
	}
	instead := "`flashrpc networks` lists the forks flashrpc runs on each network"
	return nil, fmt.Errorf("--network %s: flashrpc does not run %s's rules as of now: it lacks %s (%w); %s", n.ID, n.Name, strings.Join(lacks, ", "), err, instead)
}

// UnknownNameError is the refusal of a --network name that is no network's: it lists the
// names of the networks that pre-confirm and points at `flashrpc networks` for the rest.
func UnknownNameError(name string) error {
	var some []string
	for _, n := range All() {
		if n.PreconfInterval > 0 || strings.HasPrefix(n.ID, "base-") || n.ChainID == 1 {
			some = append(some, n.ID)
		}
	}
	return fmt.Errorf("--network %s: no such network (known: %s, …; `flashrpc networks` lists them all)", name, strings.Join(some, ", "))
}

// Agrees returns nil when cfg, a chain's configuration (a genesis file's), has n's rules: the
// same kind, and every time-scheduled fork of n scheduled in cfg at its time or from genesis (a
// chain started with n's rules as of a time, [Network.RulesAsOf]), and no other time-scheduled
// fork (block-scheduled ones are all at genesis on such a chain). It returns an error
// naming the first fork where they differ otherwise.
func (n Network) Agrees(cfg *params.ChainConfig) error {
	kind := Ethereum
	if cfg.IsOptimism() {
		kind = OPStack
	}
	if kind != n.Kind {
		return fmt.Errorf("the chain is %s, but --network %s is %s", kindName(kind), n.ID, kindName(n.Kind))
	}
	timed := func(c *params.ChainConfig) (order []string, by map[string]Fork) {
		by = map[string]Fork{}
		for _, f := range configForks(c) {
			if f.Time != nil {
				order, by[f.Name] = append(order, f.Name), f
			}
		}
		return order, by
	}
	haveOrder, have := timed(cfg)
	wantOrder, want := timed(n.Config)
	for _, name := range wantOrder {
		w := want[name]
		h, ok := have[name]
		switch {
		case !ok:
			return fmt.Errorf("--network %s schedules %s, the chain does not", n.ID, name)
		case *h.Time != 0 && *h.Time != *w.Time:
			return fmt.Errorf("--network %s schedules %s at %d, the chain %s", n.ID, name, *w.Time, describeActivation(h))
		}
	}
	for _, name := range haveOrder {
		if _, ok := want[name]; !ok {
			return fmt.Errorf("the chain schedules %s (%s), --network %s does not", name, describeActivation(have[name]), n.ID)
		}
	}
	return nil
}

func describeActivation(f Fork) string {
	switch {
	case f.Time != nil:
		return fmt.Sprintf("at time %d", *f.Time)
	case f.Block != nil:
		return fmt.Sprintf("at block %d", *f.Block)
	}
	return "without an activation"
}
