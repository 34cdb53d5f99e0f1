package sequencer

import (
	"context"
	"time"

	"github.com/flashrpc/flashrpc/internal/preconf"
)

// PreconfirmTimed is Preconfirm as the timer loop builds on its deadline: it stops adding
// transactions at cut. For the benchmarks of the external test package.
func (s *Sequencer) PreconfirmTimed(ctx context.Context, cut time.Time) (*preconf.Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.preconfirmLocked(ctx, &timedBuild{cut: cut})
}
