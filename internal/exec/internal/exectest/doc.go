// Package exectest holds the fixtures the tests of internal/exec and its sub-packages share:
// an in-memory chain with test accounts and contracts ([NewChain], [Genesis]), go-ethereum's
// own node on the same genesis as a differential oracle ([NewGethOracle], [GethOutcome],
// [CheckDivergence]) and a runner of the execution-apis conformance fixtures
// ([RunConformance]).
//
// It imports go-ethereum and internal/chain (the dev chain's configuration and system
// contracts), never internal/exec: the tests of package exec itself import it. Nothing in it
// is safe to use outside tests; every function that starts something stops it through
// t.Cleanup.
package exectest
