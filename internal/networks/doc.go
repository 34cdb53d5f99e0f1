// Package networks holds every chain configuration flashrpc runs: which rules a chain
// follows and which fork it runs from which block or time. It is the one place a fork
// schedule is written, and where a new fork (Karst, Denim, …) is added.
//
//   - forks.go writes the schedules flashrpc builds itself: the Ethereum dev chain's
//     ([DevEthereum], --chain-type l1), the OP Stack dev chain's, with Base's fee settings
//     ([DevOPStack], --chain-type op), and current Ethereum's ([CurrentEthereum], the rules of
//     an Ethereum chain it does not know). Each is made from one schedule of Ethereum forks
//     and one of OP forks, so the chains cannot disagree on a fork they share
//     (TestSchedulesAgree).
//   - base.go carries Base mainnet's and Base Sepolia's fork times as data: op-geth's
//     superchain registry does not have them. Base's forks after Jovian that a chain
//     configuration has no field for (Beryl, Cobalt, Denim) are listed with whether
//     flashrpc runs them ([Network.Later]); Azul is the configuration's Osaka.
//   - networks.go knows the chains by chain id ([Lookup]) and by name ([LookupName],
//     --network): go-ethereum's built-in Ethereum networks (params), Base, and the OP Stack
//     chains of op-geth's embedded superchain registry, whose schedules are the registry's
//     with Karst turned on as flashrpc runs it (Osaka from karst_time, [WithKarst]), each
//     with its block time, pre-confirmation interval and feed format. [Kind] names the two
//     kinds of chain (the values of --chain-type). [ForkRules] turns a network's schedule into
//     the configuration of a fork that continues one of its blocks: forks scheduled after that
//     block stay off, so the fork keeps the block's rules. [ForUpstream] picks the network a fork
//     or replica runs from its upstream's chain id and --network.
//   - schedule.go lists a network's forks with whether flashrpc runs each ([Fork],
//     [Network.Forks]); forkfields.go is the one walk over a configuration's fork fields
//     (...Block, ...Time) that the listing, [ForkRules] and [Network.RulesAsOf] share; listing.go writes every network ([All]) as `flashrpc networks` prints
//     it, a table ([WriteTable]) or JSON ([Network.MarshalJSON]).
//   - asof.go gives a new local chain a network's rules as of a time ([Network.RulesAsOf],
//     `flashrpc dev --network NAME`), leaving out the forks not run that a local chain may go
//     without (Base's Beryl and Cobalt, [Fork.LocalEffect], [Network.LocalOmits]); local.go does it for a network named on the command line,
//     the refusal naming every fork it lacks and what to run instead ([Network.LocalRules]),
//     refuses an unknown name ([UnknownNameError]) and tells whether a genesis has a network's
//     rules ([Network.Agrees], follow --network).
//   - denim.go gives a network's Denim activation ([Network.DenimTime]) and a local chain's
//     ([Network.LocalDenim]): Denim, Base's 200 ms blocks ([DenimBlockTime]), has no
//     configuration field, so a chain that runs it keeps the time beside its configuration.
//     Base's Denim is run.
//   - live.go tells a local chain that took a live network's chain id (`flashrpc dev --network
//     base-mainnet --chain-id 8453`) from the network, by its genesis hash ([IsLocalChain]): a
//     fork or replica of it runs the rules --network names, as for a chain id no network has.
//   - refuse.go refuses to execute a block at which a fork flashrpc does not run is active
//     ([CheckRules], [Network.CheckRules], [NotRunError]): a fork field such as lagoonTime,
//     Base's Beryl and Cobalt, Karst without Osaka. Fork, follow and import call it;
//     rulecheck.go derives it once per configuration ([NewRuleCheck], [RuleCheck]), so a
//     replica's or an import's check of each block reads no configuration.
//
// The rules op-geth does not run itself (Azul's and Karst's precompiles, deposits, the
// L1-attributes transaction) are internal/oprollup's; which fork is on when is decided here.
//
// Concurrency: the package holds immutable data; every function is safe for concurrent use
// and returns configurations the caller owns, except [Network.Config] and [Network.Later], which
// are shared. The registry's networks are loaded once, on first use.
//
// Imports: go-ethereum's params and common, op-geth's superchain registry, and flashblocks for
// the one name of a feed's wire format (flashblocks.Format, [Network.Feed]); every other
// flashrpc package but flashblocks may import it.
package networks
