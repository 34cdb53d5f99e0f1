package exec

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	devchain "github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/networks"
)

// Test accounts and contracts shared by the tests of this package.
var (
	richKey, _ = crypto.HexToECDSA("b71c71a67e1177ad4e901695e1b4b9ee17ae16c6668d313eac2f96dbcda3f291")
	richAddr   = crypto.PubkeyToAddress(richKey.PublicKey)
	poorAddr   = common.HexToAddress("0x00000000000000000000000000000000000b0b01") // balance 0
	smallAddr  = common.HexToAddress("0x00000000000000000000000000000000000b0b02") // balance smallBalance
	emptyAddr  = common.HexToAddress("0x00000000000000000000000000000000000e0e01") // no account

	revertAddr   = common.HexToAddress("0x000000000000000000000000000000000000c001") // reverts Error("nope")
	panicAddr    = common.HexToAddress("0x000000000000000000000000000000000000c002") // reverts Panic(1)
	logAddr      = common.HexToAddress("0x000000000000000000000000000000000000c003") // LOG1 + slot 0 += 1, returns 42
	loopAddr     = common.HexToAddress("0x000000000000000000000000000000000000c004") // loops calldata[0:32] times
	spinAddr     = common.HexToAddress("0x000000000000000000000000000000000000c005") // loops forever
	envAddr      = common.HexToAddress("0x000000000000000000000000000000000000c006") // returns block context
	invalidAddr  = common.HexToAddress("0x000000000000000000000000000000000000c007") // INVALID opcode
	proxyAddr    = common.HexToAddress("0x000000000000000000000000000000000000c008") // CALLs logAddr with all gas, reverts on failure
	bareRevAddr  = common.HexToAddress("0x000000000000000000000000000000000000c009") // REVERT(0, 0)
	smallBalance = big.NewInt(1_000_000_000_000_000)                                 // 0.001 ether

	logTopic = common.HexToHash("0x00000000000000000000000000000000000000000000000000000000000e0e0e")
)

// revertCode returns code that reverts with data.
func revertCode(data []byte) []byte {
	n := byte(len(data))
	code := []byte{0x60, n, 0x60, 11, 0x60, 0x00, 0x39, 0x60, n, 0x60, 0x00, 0xfd}
	code[3] = byte(len(code))
	return append(code, data...)
}

// abiError is the ABI encoding of Error(reason) for a reason shorter than 32 bytes.
func abiError(reason string) []byte {
	out := common.FromHex("0x08c379a0")
	out = append(out, common.LeftPadBytes([]byte{0x20}, 32)...)
	out = append(out, common.LeftPadBytes([]byte{byte(len(reason))}, 32)...)
	return append(out, common.RightPadBytes([]byte(reason), 32)...)
}

// abiPanic is the ABI encoding of Panic(code).
func abiPanic(code byte) []byte {
	return append(common.FromHex("0x4e487b71"), common.LeftPadBytes([]byte{code}, 32)...)
}

func logCode() []byte {
	code := []byte{0x60, 0x2a, 0x60, 0x00, 0x52, 0x7f} // MSTORE(0, 42); PUSH32 topic
	code = append(code, logTopic.Bytes()...)
	code = append(code,
		0x60, 0x20, 0x60, 0x00, 0xa1, // LOG1(0, 32, topic)
		0x60, 0x01, 0x60, 0x00, 0x54, 0x01, 0x60, 0x00, 0x55, // SSTORE(0, SLOAD(0)+1)
		0x60, 0x20, 0x60, 0x00, 0xf3, // RETURN(0, 32)
	)
	return code
}

var (
	loopCode = common.FromHex("0x600035" + "5b" + "80156010" + "57" + "60019003" + "600356" + "5b00")
	spinCode = common.FromHex("0x5b600056")
	// NUMBER, TIMESTAMP, BASEFEE, COINBASE, PREVRANDAO, GASLIMIT, BLOBBASEFEE as 7 words.
	envCode     = common.FromHex("0x43600052" + "42602052" + "48604052" + "41606052" + "44608052" + "4560a052" + "4a60c052" + "60e06000f3")
	invalidCode = []byte{0xfe}
	bareRevCode = common.FromHex("0x60006000fd")
)

func proxyCode() []byte {
	code := common.FromHex("0x6000600060006000600073")
	code = append(code, logAddr.Bytes()...)
	return append(code, common.FromHex("0x5af1602857600080fd5b00")...)
}

// testConfig has every fork through Osaka active at genesis: the dev chain's configuration.
func testConfig() *params.ChainConfig { return networks.DevEthereum(1337) }

// testAlloc returns the genesis accounts (without the system contracts).
func testAlloc() types.GenesisAlloc {
	ether := new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)
	return types.GenesisAlloc{
		richAddr:    {Balance: new(big.Int).Mul(ether, big.NewInt(1000))},
		poorAddr:    {Balance: new(big.Int)},
		smallAddr:   {Balance: smallBalance},
		revertAddr:  {Code: revertCode(abiError("nope"))},
		panicAddr:   {Code: revertCode(abiPanic(1))},
		logAddr:     {Code: logCode(), Storage: map[common.Hash]common.Hash{{31: 1}: {31: 7}}},
		loopAddr:    {Code: loopCode},
		spinAddr:    {Code: spinCode},
		envAddr:     {Code: envCode},
		invalidAddr: {Code: invalidCode},
		proxyAddr:   {Code: proxyCode()},
		bareRevAddr: {Code: bareRevCode},
	}
}

// testGenesis is the genesis of the test chain; the differential test gives geth's simulated
// backend the same one.
func testGenesis() *core.Genesis {
	alloc := devchain.SystemContractAllocs()
	for addr, acc := range testAlloc() {
		alloc[addr] = acc
	}
	return &core.Genesis{Config: testConfig(), GasLimit: 60_000_000, Alloc: alloc}
}

// testChain is an in-memory chain of a few empty blocks on top of testGenesis.
type testChain struct {
	bc *core.BlockChain
}

func newTestChain(t testing.TB, blocks int) *testChain {
	t.Helper()
	genesis := testGenesis()
	engine := beacon.New(ethash.NewFaker())
	_, chain, _ := core.GenerateChainWithGenesis(genesis, engine, blocks, func(i int, g *core.BlockGen) {
		g.SetCoinbase(common.Address{0xfe, byte(i)})
		// op-geth's chain maker gives each block a zero parent beacon root but makes the
		// EIP-4788 system call only here (go-ethereum v1.17.10's made it itself).
		g.SetParentBeaconRoot(common.Hash{})
	})
	bc, err := core.NewBlockChain(rawdb.NewMemoryDatabase(), genesis, engine, core.DefaultConfig().WithArchive(true))
	if err != nil {
		t.Fatalf("new blockchain: %v", err)
	}
	t.Cleanup(bc.Stop)
	if n, err := bc.InsertChain(chain); err != nil {
		t.Fatalf("insert block %d: %v", n, err)
	}
	return &testChain{bc: bc}
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
