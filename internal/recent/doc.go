// Package recent keeps the few most recently used values of an expensive kind, by key: a
// list searched front to back, for the handful of entries (the head's state, the block in
// progress's) where a map and an eviction policy would be more machinery than work.
//
// It owns the list only, never its values: a [List] holds up to its capacity of values, most
// recently used first, and drops the least recently used one without closing or releasing
// it, so it suits values the garbage collector can reclaim (state readers of recent roots,
// prepared eth_simulateV1 bases: a handful each).
//
// Concurrency: a List is safe for concurrent use. One mutex guards it, held for a lookup and
// while Get's create function runs, so one value is made per key and callers of other keys
// wait for it; create must not call back into the same List.
//
// Imports: the standard library only.
package recent
