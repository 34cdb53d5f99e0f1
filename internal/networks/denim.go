package networks

// Denim, Base's fork of 200 ms blocks (internal/oprollup runs its rules), has no field in a
// chain configuration: a chain that runs it is opened with its activation time beside the
// configuration (chain.Config.Denim). This is where that time comes from for a known
// network; a dev chain with Denim names its own.

// denimFork is Denim's name in a network's schedule.
const denimFork = "denim"

// DenimTime returns when the network activates Denim, nil when it has no Denim, and whether
// flashrpc runs it for this network. Base's Denim is listed but not run: Beryl and Cobalt,
// which Base activated before it, are not run either, so a block of Base from Denim on is
// refused anyway ([CheckRules]).
func (n Network) DenimTime() (time *uint64, runs bool) {
	for _, f := range n.Later {
		if f.Name == denimFork {
			return clone(f.Time), f.Runs
		}
	}
	return nil, false
}
