// Package health answers GET /health on both endpoints, in every mode: a JSON [Status]
// {head, upstreamHead, lag, pendingIndex, feed} with 200 when the node is fit to serve and
// 503, with the same JSON and the reasons in "problems", when it is not. Load balancers
// (HAProxy's `option httpchk GET /health`) take a node whose check fails out of rotation.
//
// A [Checker] runs [Probe]s, which fill in what they know of the Status, then [Rule]s,
// which each return why the Status is not fit, or nothing. A mode picks its probes and
// rules: dev and serve report the sealed head ([Head]) and the block in progress
// ([Pending]); dev adds [SealingTimer] (the sequencer has not sealed for several block times);
// follow mode adds [Upstream] and [Feed] probes and the [MaxLag] and [FeedConnected] rules.
// Fields no probe fills stay null: upstreamHead, lag and feed outside follow mode,
// pendingIndex without a block in progress.
//
// It imports chain and preconf to read them. A Checker is safe for concurrent use; probes
// and rules must be too, and must be quick (a check runs on every GET /health).
package health
