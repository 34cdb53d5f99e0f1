package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/node"
)

// stateFlags are --state.scheme and --history.state (geth's names), for the commands whose
// chain has its own state: dev and follow with local state.
type stateFlags struct {
	scheme  string
	history uint64
	given   bool // --history.state was given
}

func (f *stateFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.scheme, "state.scheme", "", "how the chain's state is stored: \"hash\", an archive (every block's state, readable and provable; the datadir grows with every block), or \"path\", go-ethereum's path scheme (one state on disk and the state history of the last --history.state blocks: the datadir stays bounded; after kill -9 the last blocks are executed again on start) (default: the datadir's, hash for a new one; a datadir keeps the scheme it was created with)")
	fs.Uint64Var(&f.history, "history.state", chain.DefaultStateHistory, "with --state.scheme path: how many recent blocks keep their state history, so that their state can be read and the chain rewound to them (0 = every block)")
}

// check refuses what cannot work; shared names what makes the chain's state not its own
// ("--fork-url", "--state remote"), "" when it is.
func (f *stateFlags) check(fs *flag.FlagSet, shared string) error {
	fs.Visit(func(fl *flag.Flag) { f.given = f.given || fl.Name == "history.state" })
	switch {
	case f.scheme != "" && f.scheme != chain.SchemeHash && f.scheme != chain.SchemePath:
		return fmt.Errorf("--state.scheme %q: want hash or path", f.scheme)
	case f.scheme == chain.SchemePath && shared != "":
		return fmt.Errorf("--state.scheme path does not apply with %s: that chain's state is partly the upstream's and is kept in the hash scheme", shared)
	case f.given && f.scheme == chain.SchemeHash:
		return errors.New("--history.state applies to --state.scheme path only: hash keeps every block's state")
	}
	return nil
}

// apply sets the node configuration's scheme and history.
func (f *stateFlags) apply(cfg *node.Server) {
	cfg.StateScheme = f.scheme
	h := f.history
	cfg.StateHistory = &h
}
