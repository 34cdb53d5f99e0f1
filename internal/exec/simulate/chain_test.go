package simulate

import (
	"testing"

	"github.com/ethereum/go-ethereum/core"

	"github.com/flashrpc/flashrpc/internal/exec"
	"github.com/flashrpc/flashrpc/internal/exec/internal/exectest"
)

// The test chain's accounts and contracts (exectest), under the names the tests use.
var (
	richKey     = exectest.RichKey
	richAddr    = exectest.RichAddr
	poorAddr    = exectest.PoorAddr
	emptyAddr   = exectest.EmptyAddr
	revertAddr  = exectest.RevertAddr
	panicAddr   = exectest.PanicAddr
	logAddr     = exectest.LogAddr
	spinAddr    = exectest.SpinAddr
	envAddr     = exectest.EnvAddr
	invalidAddr = exectest.InvalidAddr
	proxyAddr   = exectest.ProxyAddr
	logCode     = exectest.LogCode
)

// testChain is an in-memory chain of a few empty blocks on top of exectest.Genesis.
type testChain struct {
	bc *core.BlockChain
}

func newTestChain(t testing.TB, blocks int) *testChain {
	t.Helper()
	return &testChain{bc: exectest.NewChain(t, blocks)}
}

// env returns an exec.Env at the head with a fresh state copy and geth's default limits.
func (c *testChain) env(t testing.TB) exec.Env {
	t.Helper()
	header := c.bc.CurrentBlock()
	st, err := c.bc.StateAt(header.Root)
	if err != nil {
		t.Fatalf("state at %d: %v", header.Number, err)
	}
	return exec.Env{
		Config:     c.bc.Config(),
		Chain:      c.bc,
		Header:     header,
		State:      st,
		GasCap:     exec.DefaultGasCap,
		EVMTimeout: exec.DefaultEVMTimeout,
	}
}
