package events

import (
	"github.com/flashrpc/flashrpc/internal/logs"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// addPendingLogs adds the logs of the block in progress that crit selects, after the sealed
// ones. snap is the request's view's block in progress: it builds on exactly the view's head,
// the last block of the sealed part, so no log is counted sealed and pending, and none falls
// between the two, while its block seals.
func addPendingLogs(col *logCollector, snap *preconf.Snapshot, crit *logs.Criteria) error {
	return col.add(snap.Number(), crit.Filter(snap.Logs()), nil) // pending: no millisecond time
}
