package exectest

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

// Accounts and contracts of the test chain's genesis.
var (
	RichKey, _ = crypto.HexToECDSA("b71c71a67e1177ad4e901695e1b4b9ee17ae16c6668d313eac2f96dbcda3f291")
	RichAddr   = crypto.PubkeyToAddress(RichKey.PublicKey)
	PoorAddr   = common.HexToAddress("0x00000000000000000000000000000000000b0b01") // balance 0
	SmallAddr  = common.HexToAddress("0x00000000000000000000000000000000000b0b02") // balance SmallBalance
	EmptyAddr  = common.HexToAddress("0x00000000000000000000000000000000000e0e01") // no account

	RevertAddr   = common.HexToAddress("0x000000000000000000000000000000000000c001") // reverts Error("nope")
	PanicAddr    = common.HexToAddress("0x000000000000000000000000000000000000c002") // reverts Panic(1)
	LogAddr      = common.HexToAddress("0x000000000000000000000000000000000000c003") // LOG1 + slot 0 += 1, returns 42
	LoopAddr     = common.HexToAddress("0x000000000000000000000000000000000000c004") // loops calldata[0:32] times
	SpinAddr     = common.HexToAddress("0x000000000000000000000000000000000000c005") // loops forever
	EnvAddr      = common.HexToAddress("0x000000000000000000000000000000000000c006") // returns block context
	InvalidAddr  = common.HexToAddress("0x000000000000000000000000000000000000c007") // INVALID opcode
	ProxyAddr    = common.HexToAddress("0x000000000000000000000000000000000000c008") // CALLs LogAddr with all gas, reverts on failure
	BareRevAddr  = common.HexToAddress("0x000000000000000000000000000000000000c009") // REVERT(0, 0)
	SmallBalance = big.NewInt(1_000_000_000_000_000)                                 // 0.001 ether

	// LogTopic is the topic of LogAddr's log.
	LogTopic = common.HexToHash("0x00000000000000000000000000000000000000000000000000000000000e0e0e")
)

// RevertCode returns code that reverts with data.
func RevertCode(data []byte) []byte {
	n := byte(len(data))
	code := []byte{0x60, n, 0x60, 11, 0x60, 0x00, 0x39, 0x60, n, 0x60, 0x00, 0xfd}
	code[3] = byte(len(code))
	return append(code, data...)
}

// ABIError is the ABI encoding of Error(reason) for a reason shorter than 32 bytes.
func ABIError(reason string) []byte {
	out := common.FromHex("0x08c379a0")
	out = append(out, common.LeftPadBytes([]byte{0x20}, 32)...)
	out = append(out, common.LeftPadBytes([]byte{byte(len(reason))}, 32)...)
	return append(out, common.RightPadBytes([]byte(reason), 32)...)
}

// ABIPanic is the ABI encoding of Panic(code).
func ABIPanic(code byte) []byte {
	return append(common.FromHex("0x4e487b71"), common.LeftPadBytes([]byte{code}, 32)...)
}

// LogCode is LogAddr's code: it logs LogTopic, increments slot 0 and returns 42.
func LogCode() []byte {
	code := []byte{0x60, 0x2a, 0x60, 0x00, 0x52, 0x7f} // MSTORE(0, 42); PUSH32 topic
	code = append(code, LogTopic.Bytes()...)
	code = append(code,
		0x60, 0x20, 0x60, 0x00, 0xa1, // LOG1(0, 32, topic)
		0x60, 0x01, 0x60, 0x00, 0x54, 0x01, 0x60, 0x00, 0x55, // SSTORE(0, SLOAD(0)+1)
		0x60, 0x20, 0x60, 0x00, 0xf3, // RETURN(0, 32)
	)
	return code
}

// The code of LoopAddr, SpinAddr, EnvAddr, InvalidAddr and BareRevAddr.
var (
	LoopCode = common.FromHex("0x600035" + "5b" + "80156010" + "57" + "60019003" + "600356" + "5b00")
	SpinCode = common.FromHex("0x5b600056")
	// EnvCode returns NUMBER, TIMESTAMP, BASEFEE, COINBASE, PREVRANDAO, GASLIMIT, BLOBBASEFEE
	// as 7 words.
	EnvCode     = common.FromHex("0x43600052" + "42602052" + "48604052" + "41606052" + "44608052" + "4560a052" + "4a60c052" + "60e06000f3")
	InvalidCode = []byte{0xfe}
	BareRevCode = common.FromHex("0x60006000fd")
)

// ProxyCode is ProxyAddr's code.
func ProxyCode() []byte {
	code := common.FromHex("0x6000600060006000600073")
	code = append(code, LogAddr.Bytes()...)
	return append(code, common.FromHex("0x5af1602857600080fd5b00")...)
}

// Config has every fork through Osaka active at genesis: the dev chain's configuration.
func Config() *params.ChainConfig { return networks.DevEthereum(1337) }

// Alloc returns the genesis accounts (without the system contracts).
func Alloc() types.GenesisAlloc {
	ether := new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)
	return types.GenesisAlloc{
		RichAddr:    {Balance: new(big.Int).Mul(ether, big.NewInt(1000))},
		PoorAddr:    {Balance: new(big.Int)},
		SmallAddr:   {Balance: SmallBalance},
		RevertAddr:  {Code: RevertCode(ABIError("nope"))},
		PanicAddr:   {Code: RevertCode(ABIPanic(1))},
		LogAddr:     {Code: LogCode(), Storage: map[common.Hash]common.Hash{{31: 1}: {31: 7}}},
		LoopAddr:    {Code: LoopCode},
		SpinAddr:    {Code: SpinCode},
		EnvAddr:     {Code: EnvCode},
		InvalidAddr: {Code: InvalidCode},
		ProxyAddr:   {Code: ProxyCode()},
		BareRevAddr: {Code: BareRevCode},
	}
}

// Genesis is the genesis of the test chain; the differential tests give geth's simulated
// backend the same one.
func Genesis() *core.Genesis {
	alloc := devchain.SystemContractAllocs()
	for addr, acc := range Alloc() {
		alloc[addr] = acc
	}
	return &core.Genesis{Config: Config(), GasLimit: 60_000_000, Alloc: alloc}
}

// NewChain returns an in-memory archive chain of blocks empty blocks on top of Genesis,
// stopped when the test ends.
func NewChain(t testing.TB, blocks int) *core.BlockChain {
	t.Helper()
	genesis := Genesis()
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
	return bc
}
