package chaindata

import (
	"github.com/flashrpc/flashrpc/internal/api/core"
)

// API holds the read methods of one endpoint. It is safe for concurrent use.
type API struct {
	*core.Core
	clientVersion string
}

// New returns the read methods of the endpoint c; clientVersion is web3_clientVersion's
// answer.
func New(c *core.Core, clientVersion string) *API {
	return &API{Core: c, clientVersion: clientVersion}
}
