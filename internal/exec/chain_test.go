package exec

import (
	"testing"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/exec/internal/exectest"
)

// The test chain's accounts and contracts (exectest), under the names the tests use.
var (
	richAddr     = exectest.RichAddr
	poorAddr     = exectest.PoorAddr
	smallAddr    = exectest.SmallAddr
	emptyAddr    = exectest.EmptyAddr
	revertAddr   = exectest.RevertAddr
	panicAddr    = exectest.PanicAddr
	logAddr      = exectest.LogAddr
	loopAddr     = exectest.LoopAddr
	spinAddr     = exectest.SpinAddr
	envAddr      = exectest.EnvAddr
	invalidAddr  = exectest.InvalidAddr
	proxyAddr    = exectest.ProxyAddr
	bareRevAddr  = exectest.BareRevAddr
	smallBalance = exectest.SmallBalance
	logTopic     = exectest.LogTopic

	richKey     = exectest.RichKey
	revertCode  = exectest.RevertCode
	abiError    = exectest.ABIError
	abiPanic    = exectest.ABIPanic
	logCode     = exectest.LogCode
	loopCode    = exectest.LoopCode
	spinCode    = exectest.SpinCode
	envCode     = exectest.EnvCode
	invalidCode = exectest.InvalidCode
	bareRevCode = exectest.BareRevCode
	proxyCode   = exectest.ProxyCode
	testConfig  = exectest.Config
	testGenesis = exectest.Genesis
)

// testChain is an in-memory chain of a few empty blocks on top of exectest.Genesis.
type testChain struct {
	bc *core.BlockChain
}

func newTestChain(t testing.TB, blocks int) *testChain {
	t.Helper()
	return &testChain{bc: exectest.NewChain(t, blocks)}
}

// env returns an Env at the head with a fresh state copy and geth's default limits.
func (c *testChain) env(t testing.TB) Env {
	t.Helper()
	return c.envAt(t, c.bc.CurrentBlock())
}

func (c *testChain) envAt(t testing.TB, header *types.Header) Env {
	t.Helper()
	st, err := c.bc.StateAt(header.Root)
	if err != nil {
		t.Fatalf("state at %d: %v", header.Number, err)
	}
	return Env{
		Config:     c.bc.Config(),
		Chain:      c.bc,
		Header:     header,
		State:      st,
		GasCap:     DefaultGasCap,
		EVMTimeout: DefaultEVMTimeout,
	}
}
