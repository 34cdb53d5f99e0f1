package networks

import "time"

// Denim, Base's fork of 200 ms blocks (internal/oprollup runs its rules), has no field in a
// chain configuration: a chain that runs it is opened with its activation time beside the
// configuration (chain.Config.Denim). This is where that time comes from for a known
// network; a dev chain with Denim names its own.

// denimFork is Denim's name in a network's schedule.
const denimFork = "denim"

// DenimBlockTime is a Denim chain's block time: a sealed block every 200 ms, the millisecond
// time growing by 200 per block (internal/oprollup).
const DenimBlockTime = 200 * time.Millisecond

// DenimTime returns when the network activates Denim, nil when it has no Denim, and whether
// flashrpc runs it for this network. Base's Denim is run; a block of live Base from Denim on
// is refused all the same, for Beryl and Cobalt, which Base activated before it and flashrpc
// does not run ([CheckRules]).
func (n Network) DenimTime() (time *uint64, runs bool) {
	for _, f := range n.Later {
		if f.Name == denimFork {
			return clone(f.Time), f.Runs
		}
	}
	return nil, false
}

// LocalDenim returns when a local chain with the network's rules as of now ([Network.RulesAsOf])
// runs Denim: 0 (from genesis) when the network's activation has passed by now, its time when
// it is later, nil when the network has no Denim flashrpc runs.
func (n Network) LocalDenim(now uint64) *uint64 {
	t, runs := n.DenimTime()
	if t == nil || !runs {
		return nil
	}
	if *t <= now {
		return genesis()
	}
	return t
}
