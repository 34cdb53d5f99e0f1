package execute

import (
	"sync/atomic"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/exec/simulate"
	"github.com/flashrpc/flashrpc/internal/recent"
)

// Config is the execution front's part of an endpoint's configuration (api.Config); the gas
// cap and the EVM timeout are the Core's.
type Config struct {
	// SimLimits bound eth_simulateV1 requests (api.Config.SimLimits).
	SimLimits simulate.Limits
	// TraceMaxLogBytes bounds the struct logs one transaction's trace collects; zero means no
	// bound (api.Config.TraceMaxLogBytes).
	TraceMaxLogBytes int
}

// API holds the execution methods of one endpoint. It is safe for concurrent use.
type API struct {
	*core.Core
	cfg      Config
	simBases *recent.List[any, *simulate.Base] // prepared eth_simulateV1 bases (simbase.go)
	simEpoch atomic.Uint64                     // the chain's state epoch simBases were prepared at
	// jumpDests are the JUMPDEST analyses shared by all eth_simulateV1 requests.
	jumpDests *simulate.JumpDests
}

// New returns the execution methods of the endpoint c.
func New(c *core.Core, cfg Config) *API {
	return &API{Core: c, cfg: cfg, simBases: newSimBases(), jumpDests: simulate.NewJumpDests()}
}
