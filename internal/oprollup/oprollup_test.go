package oprollup

import (
	"bytes"
	"encoding/json"
	"math/big"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/networks"
)

// jovianVector is op-geth's Jovian L1-attributes payload (core/types/receipt_opstack_test.go,
// TestDeriveOptimismJovianTxReceipts): scalars 2 and 3, sequence number, time, number, hash
// and batcher 1234, base fee 1 gwei, blob base fee 1e7, operator fee 1439103868 and
// 1256417826609331460, DA footprint scalar 400.
var jovianVector = common.Hex2Bytes("3db6be2b000000020000000300000000000004d200000000000004d200000000000004d2000000000000000000000000000000000000000000000000000000003b9aca00000000000000000000000000000000000000000000000000000000000098968000000000000000000000000000000000000000000000000000000000000004d200000000000000000000000000000000000000000000000000000000000004d255c6fb7c116fb15b44847d040190")

func TestL1InfoJovianEncoding(t *testing.T) {
	info := &L1Info{
		Number: 1234, Time: 1234, SequenceNumber: 1234,
		BaseFee: big.NewInt(1e9), BlobBaseFee: big.NewInt(1e7),
		Hash: common.BigToHash(big.NewInt(1234)), BatcherHash: common.BigToHash(big.NewInt(1234)),
		BaseFeeScalar: 2, BlobBaseFeeScalar: 3,
		OperatorFeeScalar: 1439103868, OperatorFeeConstant: 1256417826609331460, DAFootprintGasScalar: 400,
	}
	if got := info.MarshalJovian(); !bytes.Equal(got, jovianVector) {
		t.Fatalf("MarshalJovian:\n got %x\nwant %x", got, jovianVector)
	}
	back, err := UnmarshalL1Info(jovianVector)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, info) {
		t.Fatalf("UnmarshalL1Info = %+v, want %+v", back, info)
	}
	for _, bad := range [][]byte{nil, jovianVector[:177], append([]byte{0, 0, 0, 0}, jovianVector[4:]...)} {
		if _, err := UnmarshalL1Info(bad); err == nil {
			t.Errorf("UnmarshalL1Info(%x…) accepted bad data", bad[:min(8, len(bad))])
		}
	}
}

// TestMatchesOpNode checks the L1-attributes deposit and the user-deposit source hash against
// what op-node's own code (derive.L1InfoDeposit, derive.UserDepositSource) gave for the same
// inputs when tools/opgenesis generated the genesis data.
func TestMatchesOpNode(t *testing.T) {
	f, err := loadGenesisData()
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		L1Info struct {
			Number, Time, SequenceNumber     uint64
			BaseFee, BlobBaseFee             *hexutil.Big
			Hash                             common.Hash
			Batcher                          common.Address
			BaseFeeScalar, BlobBaseFeeScalar uint32
			OperatorFeeScalar                uint32
			OperatorFeeConstant              uint64
			DAFootprintGasScalar             uint16
			Raw                              hexutil.Bytes
		} `json:"l1Info"`
		UserSource struct {
			L1BlockHash common.Hash
			LogIndex    uint64
			SourceHash  common.Hash
		} `json:"userDepositSource"`
	}
	if err := json.Unmarshal(f.Vectors, &v); err != nil || len(v.L1Info.Raw) == 0 {
		t.Fatalf("vectors: %v", err)
	}
	w := v.L1Info
	info := &L1Info{
		Number: w.Number, Time: w.Time, SequenceNumber: w.SequenceNumber, BaseFee: w.BaseFee.ToInt(), BlobBaseFee: w.BlobBaseFee.ToInt(),
		Hash: w.Hash, BatcherHash: common.BytesToHash(w.Batcher[:]), BaseFeeScalar: w.BaseFeeScalar, BlobBaseFeeScalar: w.BlobBaseFeeScalar,
		OperatorFeeScalar: w.OperatorFeeScalar, OperatorFeeConstant: w.OperatorFeeConstant, DAFootprintGasScalar: w.DAFootprintGasScalar,
	}
	if got, _ := info.DepositTx().MarshalBinary(); !bytes.Equal(got, w.Raw) {
		t.Errorf("L1-attributes deposit differs from op-node's:\n got %x\nwant %x", got, []byte(w.Raw))
	}
	if w.Batcher != BaseBatcher {
		t.Errorf("vector batcher %s, BaseBatcher %s", w.Batcher, BaseBatcher)
	}
	u := v.UserSource
	if got := UserDepositSourceHash(u.L1BlockHash, u.LogIndex); got != u.SourceHash {
		t.Errorf("user deposit source hash %s, op-node's %s", got, u.SourceHash)
	}
}

func TestSourceHashes(t *testing.T) {
	// op-node's TestL1InfoDepositSource (op-node/rollup/derive/deposit_source_test.go).
	got := L1InfoSourceHash(common.HexToHash("0xc00e5d67c2755389aded7d8b151cbd5bcdf7ed275ad5e028b664880fc7581c77"), 4)
	if want := common.HexToHash("0x0586c503340591999b8b38bc9834bb16aec7d5bc00eb5587ab139c9ddab81977"); got != want {
		t.Errorf("L1InfoSourceHash = %s, want %s", got, want)
	}
	// The user-deposit domain is 0: keccak256(u256(0) ‖ keccak256(l1Hash ‖ u256(logIndex))).
	l1 := common.HexToHash("0x01")
	inner := crypto.Keccak256(l1[:], common.BigToHash(big.NewInt(7)).Bytes())
	want := crypto.Keccak256Hash(make([]byte, 32), inner)
	if got := UserDepositSourceHash(l1, 7); got != want {
		t.Errorf("UserDepositSourceHash = %s, want %s", got, want)
	}
	seen := map[common.Hash]bool{}
	for n := uint64(1); n <= 3; n++ {
		for i := uint64(0); i < 3; i++ {
			h := DevDepositSourceHash(n, i)
			if seen[h] {
				t.Fatalf("DevDepositSourceHash(%d, %d) repeats", n, i)
			}
			seen[h] = true
		}
	}
}

func TestL1InfoDepositTx(t *testing.T) {
	d := &DevL1{GenesisTime: 1000}
	info := d.Info(nil, 1000+5*L1BlockTime+3)
	tx := info.DepositTx()
	if !tx.IsDepositTx() || tx.To() == nil || *tx.To() != L1Block || tx.Gas() != 1_000_000 || tx.Mint() != nil || tx.Value().Sign() != 0 || tx.IsSystemTx() {
		t.Fatalf("L1-attributes deposit: to %v gas %d mint %v value %v system %v", tx.To(), tx.Gas(), tx.Mint(), tx.Value(), tx.IsSystemTx())
	}
	if from, _ := types.Sender(types.LatestSignerForChainID(big.NewInt(1)), tx); from != DepositorAccount {
		t.Fatalf("sender %s, want the depositor account", from)
	}
	if tx.SourceHash() != L1InfoSourceHash(info.Hash, info.SequenceNumber) {
		t.Fatal("source hash does not follow the L1 origin and sequence number")
	}
	back, err := BlockL1Info(types.Transactions{tx})
	if err != nil || !reflect.DeepEqual(back, info) {
		t.Fatalf("BlockL1Info = %+v, %v; want %+v", back, err, info)
	}
	if back.BaseFeeScalar != BaseFeeScalar || back.BlobBaseFeeScalar != BlobBaseFeeScalar || back.DAFootprintGasScalar != DAFootprintGasScalar ||
		back.BaseFee.Cmp(DefaultL1BaseFee) != 0 || back.BlobBaseFee.Cmp(DefaultL1BlobBaseFee) != 0 {
		t.Fatalf("dev L1 attributes %+v do not carry Base's scalars and the default fees", back)
	}
}

func TestDevL1Origin(t *testing.T) {
	d := &DevL1{GenesisTime: 100, BaseFee: big.NewInt(7), BlobBaseFee: big.NewInt(9)}
	tests := []struct {
		name      string
		parentAt  uint64 // 0: genesis parent (no L1 attributes)
		at        uint64
		number    uint64
		originAt  uint64
		sequenceN uint64
	}{
		{"first block", 0, 101, 0, 100, 0},
		{"same origin", 101, 103, 0, 100, 1},
		{"next origin", 111, 112, 1, 112, 0},
		{"later origin", 112, 150, 4, 148, 0},
		{"before genesis time", 0, 50, 0, 100, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var parent types.Transactions
			if tt.parentAt != 0 {
				parent = types.Transactions{d.Info(nil, tt.parentAt).DepositTx()}
			}
			info := d.Info(parent, tt.at)
			if info.Number != tt.number || info.Time != tt.originAt || info.SequenceNumber != tt.sequenceN {
				t.Fatalf("origin %d at %d, sequence %d; want %d at %d, sequence %d", info.Number, info.Time, info.SequenceNumber, tt.number, tt.originAt, tt.sequenceN)
			}
			if info.Time > max(tt.at, d.GenesisTime) {
				t.Fatalf("L1 origin at %d is after the L2 block at %d", info.Time, tt.at)
			}
			if info.BaseFee.Int64() != 7 || info.BlobBaseFee.Int64() != 9 {
				t.Fatalf("fees %v / %v, want the configured 7 / 9", info.BaseFee, info.BlobBaseFee)
			}
		})
	}
	_, _, h1 := d.Origin(100)
	_, _, h2 := d.Origin(112)
	if h1 == h2 {
		t.Fatal("two dev L1 blocks share a hash")
	}
}

// TestExtraData checks that the extraData of the dev chain's blocks is what op-geth accepts
// and decodes back to the EIP-1559 parameters and minimum base fee (the dev chain's fork
// schedule itself is networks' TestDevOPStack).
func TestExtraData(t *testing.T) {
	cfg := networks.DevOPStack(8453)
	extra := ExtraData(cfg, 0)
	if err := eip1559.ValidateOptimismExtraData(cfg, 0, extra); err != nil {
		t.Fatalf("extraData %x: %v", extra, err)
	}
	d, e, m := eip1559.DecodeOptimismExtraData(cfg, 0, extra)
	if d != EIP1559Denominator || e != EIP1559Elasticity || m == nil || *m != MinBaseFee {
		t.Fatalf("extraData decodes to %d, %d, %v", d, e, m)
	}
}

func TestPredeploys(t *testing.T) {
	alloc := Predeploys(1337)
	// The predeploys, and every preinstall of the monorepo's Preinstalls.sol at its address.
	for name, addr := range map[string]string{
		"L1Block (proxy)":              "0x4200000000000000000000000000000000000015",
		"GasPriceOracle (proxy)":       "0x420000000000000000000000000000000000000F",
		"SequencerFeeVault (proxy)":    "0x4200000000000000000000000000000000000011",
		"BaseFeeVault (proxy)":         "0x4200000000000000000000000000000000000019",
		"L1FeeVault (proxy)":           "0x420000000000000000000000000000000000001A",
		"OperatorFeeVault (proxy)":     "0x420000000000000000000000000000000000001B",
		"L2ToL1MessagePasser (proxy)":  "0x4200000000000000000000000000000000000016",
		"WETH":                         "0x4200000000000000000000000000000000000006",
		"Multicall3":                   "0xcA11bde05977b3631167028862bE2a173976CA11",
		"Create2Deployer":              "0x13b0D85CcB8bf860b6b79AF3029fCA081AE9beF2",
		"Permit2":                      "0x000000000022D473030F116dDEE9F6B43aC78BA3",
		"deterministic deploy proxy":   "0x4e59b44847b379578588920cA78FbF26c0B4956C",
		"CreateX":                      "0xba5Ed099633D3B313e4D5F7bdc1305d3c28ba5Ed",
		"EntryPoint v0.7":              "0x0000000071727De22E5E9d8BAf0edAc6f37da032",
		"EntryPoint v0.6":              "0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789",
		"Safe singleton factory":       "0x914d7Fec6aaC8cd542e72Bca78B30650d45643d7",
		"EIP-4788 beacon roots":        "0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02",
		"EIP-2935 history storage":     "0x0000F90827F1C53a10cb7A02335B175320002935",
		"Safe v1.3.0 singleton (L2)":   "0xfb1bffC9d739B8D520DaF37dF666da4C687191EA",
		"MultiSendCallOnly v1.3.0":     "0xA1dabEF33b3B82c7814B6D82A79e50F4AC44102B",
		"Safe v1.3.0 singleton":        "0x69f4D1788e39c87893C980c06EdF4b7f686e2938",
		"MultiSend v1.3.0":             "0x998739BFdAAdde7C933B942a68053933098f9EDa",
		"SenderCreator v0.7":           "0xEFC2c1444eBCC4Db75e7613d20C6a62fF67A167C",
		"SenderCreator v0.6":           "0x7fc98430eAEdbb6070B35B39D798725049088348",
		"L1Block implementation (v7)":  "0x3Ba4007f5C922FBb33C454B41ea7a1f11E83df2C",
		"GasPriceOracle implementaton": "0x4f1db3c6AbD250ba86E0928471A8F7DB3AFd88F1",
	} {
		acc, ok := alloc[common.HexToAddress(addr)]
		if !ok || len(acc.Code) == 0 {
			t.Errorf("%s %s has no code", name, addr)
		}
	}
	implSlot := common.HexToHash("0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc")
	for proxy, impl := range map[common.Address]string{
		L1Block:          "0x3Ba4007f5C922FBb33C454B41ea7a1f11E83df2C",
		GasPriceOracle:   "0x4f1db3c6AbD250ba86E0928471A8F7DB3AFd88F1",
		OperatorFeeVault: "0x4fa2Be8cd41504037F1838BcE3bCC93bC68Ff537",
	} {
		if got := common.BytesToAddress(alloc[proxy].Storage[implSlot].Bytes()); got != common.HexToAddress(impl) {
			t.Errorf("proxy %s points at %s, want the Jovian implementation %s", proxy, got, impl)
		}
	}
	if flags := alloc[GasPriceOracle].Storage[common.Hash{}]; flags != common.HexToHash("0x01010101") {
		t.Errorf("GasPriceOracle flags %s, want isEcotone, isFjord, isIsthmus and isJovian set", flags)
	}
	if hs := alloc[params.HistoryStorageAddress]; !bytes.Equal(hs.Code, params.HistoryStorageCode) {
		t.Error("the EIP-2935 contract is not op-geth's")
	}
	if acc, ok := alloc[DepositorAccount]; ok && acc.Nonce != 0 {
		t.Errorf("depositor nonce %d, want 0", acc.Nonce)
	}
	if _, ok := alloc[common.HexToAddress("0x4200000000000000000000000000000000000042")]; ok {
		t.Error("the GovernanceToken predeploy is in the genesis: Base has none")
	}
	src := Source()
	if src.Module != "github.com/ethereum-optimism/optimism@v1.19.6" || src.AllocsSHA256 == "" || len(src.Upgrades) == 0 {
		t.Errorf("genesis data source %+v", src)
	}
}

func TestPermit2ChainID(t *testing.T) {
	f, err := loadGenesisData()
	if err != nil {
		t.Fatal(err)
	}
	template := f.Alloc[Permit2].Code
	// The data keeps the alloc's template (chain id 777); recomputing it must give its bytes.
	if !bytes.Equal(permit2Code(template, 777), template) {
		t.Fatal("Permit2 immutables for chain 777 do not reproduce the template: wrong offsets")
	}
	code := Predeploys(8453)[Permit2].Code
	if got := new(big.Int).SetBytes(code[permit2ChainIDAt : permit2ChainIDAt+32]); got.Int64() != 8453 {
		t.Fatalf("Permit2 chain id %v, want 8453", got)
	}
	if got := common.BytesToHash(code[permit2SeparatorAt : permit2SeparatorAt+32]); got != permit2DomainSeparator(8453) {
		t.Fatalf("Permit2 domain separator %s", got)
	}
	if !bytes.Equal(f.Alloc[Permit2].Code, template) {
		t.Fatal("Predeploys modified the shared template")
	}
}
