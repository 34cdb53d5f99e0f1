package node

import (
	"context"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/fork"
)

// chainSpec is what a chain is opened from: the chain's configuration and, for a fork being
// created or resumed with new settings, the fork's. A nil fork opens a plain chain, or
// resumes the fork the data directory holds (fork.Open).
type chainSpec struct {
	chain chain.Config
	fork  *fork.Config
}

// open opens the chain of s; ctx bounds what a fork asks its upstream while opening.
func (s chainSpec) open(ctx context.Context) (*chain.Chain, error) {
	return fork.Open(ctx, s.chain, s.fork)
}
