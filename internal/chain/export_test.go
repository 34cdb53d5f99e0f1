package chain

import "github.com/ethereum/go-ethereum/ethdb"

// Database exposes the chain database to the external tests that compare what go-ethereum
// writes with what the chain writes itself.
func (c *Chain) Database() ethdb.Database { return c.db }
