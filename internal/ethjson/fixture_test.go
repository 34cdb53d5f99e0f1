package ethjson

// This file builds real go-ethereum blocks, transactions and receipts for the JSON encoder
// tests: one block per fork configuration from Frontier to Prague (plus the newest optional
// header fields), with every transaction type geth knows, signed with fixed keys.

import (
	"crypto/ecdsa"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/holiman/uint256"

	"github.com/flashrpc/flashrpc/internal/networks"
	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// jsonTestKey and jsonAuthKey are fixed secp256k1 keys: the sender of every test transaction
// and the signer of the set-code authorizations.
var (
	jsonTestKey = jsonMustKey("b71c71a67e1177ad4e901695e1b4b9ee17ae16c6668d313eac2f96dbcda3f291")
	jsonAuthKey = jsonMustKey("8a1f9a8f95be41cd7ccb6168179afb4504aefe388d1e14474d32c45c72ce7b7a")
)

func jsonMustKey(hexKey string) *ecdsa.PrivateKey {
	k, err := crypto.HexToECDSA(hexKey)
	if err != nil {
		panic(err)
	}
	return k
}

// jsonFork is a block built under one fork configuration.
type jsonFork struct {
	name     string
	config   *params.ChainConfig
	block    *types.Block
	receipts types.Receipts
}

// jsonChainConfig returns a config with every fork up to and including upTo active from
// genesis. Forks are named by their position in the list below.
func jsonChainConfig(upTo string) *params.ChainConfig {
	zero := big.NewInt(0)
	t0 := uint64(0)
	cfg := &params.ChainConfig{ChainID: big.NewInt(1337)}
	steps := []struct {
		name  string
		apply func()
	}{
		{"frontier", func() {}},
		{"homestead", func() { cfg.HomesteadBlock = zero }},
		{"byzantium", func() {
			cfg.EIP150Block, cfg.EIP155Block, cfg.EIP158Block, cfg.ByzantiumBlock = zero, zero, zero, zero
		}},
		{"berlin", func() {
			cfg.ConstantinopleBlock, cfg.PetersburgBlock, cfg.IstanbulBlock, cfg.BerlinBlock = zero, zero, zero, zero
		}},
		{"london", func() { cfg.LondonBlock = zero }},
		{"shanghai", func() { cfg.TerminalTotalDifficulty, cfg.ShanghaiTime = zero, &t0 }},
		{"cancun", func() {
			cfg.CancunTime = &t0
			cfg.BlobScheduleConfig = &params.BlobScheduleConfig{Cancun: params.DefaultCancunBlobConfig, Prague: params.DefaultPragueBlobConfig}
		}},
		{"prague", func() { cfg.PragueTime = &t0 }},
	}
	for _, s := range steps {
		s.apply()
		if s.name == upTo {
			return cfg
		}
	}
	panic("unknown fork " + upTo)
}

// jsonForks builds one block per fork. Each block holds every transaction type its fork
// admits, with receipts whose derived fields are filled as the chain database returns them.
func jsonForks(t testing.TB) []jsonFork {
	t.Helper()
	var forks []jsonFork
	for _, name := range []string{"frontier", "byzantium", "berlin", "london", "shanghai", "cancun", "prague", "amsterdam"} {
		cfgName := name
		if name == "amsterdam" {
			cfgName = "prague"
		}
		forks = append(forks, buildJSONFork(t, name, jsonChainConfig(cfgName)))
	}
	// An OP Stack block (every fork through Jovian): deposits first, then the other types.
	return append(forks, buildJSONFork(t, "op-jovian", networks.DevOPStack(1337)))
}

func buildJSONFork(t testing.TB, name string, cfg *params.ChainConfig) jsonFork {
	t.Helper()
	number := big.NewInt(1234)
	const blockTime = 1_700_000_000
	header := &types.Header{
		ParentHash: common.HexToHash("0x01"),
		Coinbase:   common.HexToAddress("0xC0FFEE0000000000000000000000000000000001"),
		Root:       common.HexToHash("0x02"),
		Difficulty: big.NewInt(0),
		Number:     number,
		GasLimit:   30_000_000,
		Time:       blockTime,
		Extra:      []byte("flashrpc"),
	}
	london := cfg.IsLondon(number)
	if !cfg.IsShanghai(number, blockTime) {
		header.Difficulty = big.NewInt(131072)
		header.MixDigest = common.HexToHash("0x03")
		header.Nonce = types.EncodeNonce(0x0102030405060708)
	}
	if london {
		header.BaseFee = big.NewInt(1_000_000_007)
	}
	if cfg.IsCancun(number, blockTime) {
		used, excess := uint64(2*params.BlobTxBlobGasPerBlob), uint64(0)
		header.BlobGasUsed, header.ExcessBlobGas = &used, &excess
		beacon := common.HexToHash("0x04")
		header.ParentBeaconRoot = &beacon
	}
	if cfg.IsPrague(number, blockTime) {
		header.RequestsHash = &types.EmptyRequestsHash
	}
	if cfg.IsOptimism() {
		header.Extra = oprollup.ExtraData(cfg, blockTime)
		header.Coinbase = oprollup.SequencerFeeVault
		*header.BlobGasUsed = 123_456 // the DA footprint
	}
	if name == "amsterdam" {
		bal, slot := common.HexToHash("0x05"), uint64(0)
		header.BlockAccessListHash, header.SlotNumber = &bal, &slot
	}

	txs := jsonTxs(t, cfg, number, blockTime)
	if cfg.IsOptimism() {
		txs = append(jsonDeposits(), txs...)
	}
	signer := types.MakeSigner(cfg, number, blockTime)
	receipts := make(types.Receipts, len(txs))
	var cumulative uint64
	var logIndex uint
	for i, tx := range txs {
		r := &types.Receipt{
			Type:              tx.Type(),
			TxHash:            tx.Hash(),
			GasUsed:           21000 + uint64(i),
			BlockNumber:       number,
			TransactionIndex:  uint(i),
			EffectiveGasPrice: tx.GasPrice(),
		}
		cumulative += r.GasUsed
		r.CumulativeGasUsed = cumulative
		if cfg.IsByzantium(number) {
			r.Status = uint64(i % 2) // failures and successes
		} else {
			r.PostState = common.HexToHash("0x0a").Bytes()
		}
		if london && tx.Type() >= types.DynamicFeeTxType {
			r.EffectiveGasPrice = refEffectiveGasPrice(tx, header.BaseFee)
		}
		if tx.To() == nil {
			from, _ := types.Sender(signer, tx)
			r.ContractAddress = crypto.CreateAddress(from, tx.Nonce())
		}
		if tx.Type() == types.BlobTxType {
			r.BlobGasUsed = tx.BlobGas()
			r.BlobGasPrice = big.NewInt(1)
		}
		switch i % 3 {
		case 0: // no logs: Logs stays nil, as receipts without logs come back
		case 1:
			r.Logs = []*types.Log{{Address: common.HexToAddress("0xAA"), Topics: []common.Hash{}, Data: nil}}
		case 2:
			r.Logs = []*types.Log{
				{Address: common.HexToAddress("0xBB"), Topics: []common.Hash{{1}, {2}, {3}, {4}}, Data: []byte{0xde, 0xad}},
				{Address: common.HexToAddress("0xCC"), Topics: nil, Data: []byte{}, Removed: true},
			}
		}
		for _, l := range r.Logs {
			l.BlockNumber, l.TxHash, l.TxIndex, l.BlockTimestamp, l.Index = number.Uint64(), tx.Hash(), uint(i), blockTime, logIndex
			logIndex++
		}
		if tx.IsDepositTx() {
			nonce := uint64(10 + i)
			r.DepositNonce = &nonce
			if i != 3 { // one deposit without a receipt version, as before Canyon
				version := types.CanyonDepositReceiptVersion
				r.DepositReceiptVersion = &version
			}
		}
		r.Bloom = types.CreateBloom(r)
		receipts[i] = r
	}
	body := &types.Body{Transactions: txs}
	if !cfg.IsShanghai(number, blockTime) {
		uncle := &types.Header{Number: big.NewInt(1233), Difficulty: big.NewInt(1), Extra: []byte("uncle")}
		body.Uncles = []*types.Header{uncle}
	} else if cfg.IsOptimism() {
		// Isthmus: no withdrawals; the root is L2ToL1MessagePasser's storage root.
		body.Withdrawals = types.Withdrawals{}
		root := common.HexToHash("0x06")
		header.WithdrawalsHash = &root
	} else {
		body.Withdrawals = types.Withdrawals{
			{Index: 0, Validator: 7, Address: common.HexToAddress("0xdd"), Amount: 0},
			{Index: 1 << 40, Validator: 0, Address: common.HexToAddress("0xEE"), Amount: 32_000_000_000},
		}
	}
	block := types.NewBlock(header, body, receipts, trie.NewStackTrie(nil), cfg)
	if cfg.IsOptimism() {
		// What the chain database gives back: op-geth derives the receipts' fields, the L1
		// fee fields included.
		if err := receipts.DeriveFields(cfg, block.Hash(), number.Uint64(), blockTime, header.BaseFee, nil, txs); err != nil {
			t.Fatalf("derive OP receipts: %v", err)
		}
	}
	for _, r := range receipts {
		r.BlockHash = block.Hash()
		for _, l := range r.Logs {
			l.BlockHash = block.Hash()
		}
	}
	return jsonFork{name: name, config: cfg, block: block, receipts: receipts}
}

// jsonTxs returns signed transactions of every type cfg admits at the given block.
func jsonTxs(t testing.TB, cfg *params.ChainConfig, number *big.Int, blockTime uint64) types.Transactions {
	t.Helper()
	signer := types.MakeSigner(cfg, number, blockTime)
	to := common.HexToAddress("0x7DCD17433742F4C0CA53122AB541D0BA67FC27DF")
	keys := []common.Hash{{}, common.HexToHash("0x35f96bc70aa62a539fa99d9153b0f8aaa4594abf70cc8a8d9018e04e39a17982")}
	accessList := types.AccessList{
		{Address: to, StorageKeys: keys},
		{Address: common.HexToAddress("0x01"), StorageKeys: nil}, // null storageKeys
		{Address: common.HexToAddress("0x02"), StorageKeys: []common.Hash{}},
	}
	chainID := uint256.MustFromBig(cfg.ChainID)
	var nonce uint64
	next := func() uint64 { nonce++; return nonce - 1 }
	sign := func(s types.Signer, data types.TxData) *types.Transaction {
		tx, err := types.SignNewTx(jsonTestKey, s, data)
		if err != nil {
			t.Fatalf("sign %T: %v", data, err)
		}
		return tx
	}
	txs := types.Transactions{
		// Unprotected legacy transactions (no chainId in JSON): a call and a creation.
		sign(types.HomesteadSigner{}, &types.LegacyTx{Nonce: next(), GasPrice: big.NewInt(1_000_000_000), Gas: 21000, To: &to, Value: big.NewInt(1), Data: []byte{0x01, 0x02}}),
		sign(types.HomesteadSigner{}, &types.LegacyTx{Nonce: next(), GasPrice: big.NewInt(0), Gas: 100_000, Value: big.NewInt(0), Data: []byte{0x60, 0x00}}),
	}
	if cfg.IsEIP155(number) {
		txs = append(txs,
			sign(signer, &types.LegacyTx{Nonce: next(), GasPrice: big.NewInt(3), Gas: 21000, To: &to, Value: new(big.Int).Lsh(big.NewInt(1), 70)}),
		)
	}
	if cfg.IsBerlin(number) {
		txs = append(txs,
			sign(signer, &types.AccessListTx{ChainID: cfg.ChainID, Nonce: next(), GasPrice: big.NewInt(2_000_000_000), Gas: 50_000, To: &to, AccessList: accessList}),
			sign(signer, &types.AccessListTx{ChainID: cfg.ChainID, Nonce: next(), GasPrice: big.NewInt(1), Gas: 50_000, To: &to}), // nil access list
		)
	}
	if cfg.IsLondon(number) {
		txs = append(txs,
			// tip + base fee below the cap: the effective price is tip + base fee.
			sign(signer, &types.DynamicFeeTx{ChainID: cfg.ChainID, Nonce: next(), GasTipCap: big.NewInt(2), GasFeeCap: big.NewInt(5_000_000_000), Gas: 21000, To: &to, Value: big.NewInt(7)}),
			// tip + base fee above the cap: the effective price is the cap.
			sign(signer, &types.DynamicFeeTx{ChainID: cfg.ChainID, Nonce: next(), GasTipCap: big.NewInt(3_000_000_000), GasFeeCap: big.NewInt(3_500_000_000), Gas: 80_000, Data: []byte{0x60, 0x00}, AccessList: accessList[:1]}),
		)
	}
	if cfg.IsCancun(number, blockTime) && !cfg.IsOptimism() { // no blobs on OP Stack chains
		txs = append(txs,
			sign(signer, &types.BlobTx{ChainID: chainID, Nonce: next(), GasTipCap: uint256.NewInt(1), GasFeeCap: uint256.NewInt(9_000_000_000), Gas: 100_000, To: to, Value: uint256.NewInt(3),
				Data: []byte("blob"), BlobFeeCap: uint256.NewInt(131072), AccessList: accessList[:1],
				BlobHashes: []common.Hash{common.HexToHash("0x015a4cab4911426699ed34483de6640cf55a568afc5c5edffdcbd8bcd4452f68"), common.HexToHash("0x01ff")}}),
		)
	}
	if cfg.IsPrague(number, blockTime) {
		auth1, err := types.SignSetCode(jsonAuthKey, types.SetCodeAuthorization{ChainID: *chainID, Address: to, Nonce: 0})
		if err != nil {
			t.Fatalf("sign authorization: %v", err)
		}
		auth2, err := types.SignSetCode(jsonAuthKey, types.SetCodeAuthorization{ChainID: uint256.Int{}, Address: common.Address{}, Nonce: 1 << 40})
		if err != nil {
			t.Fatalf("sign authorization: %v", err)
		}
		txs = append(txs,
			sign(signer, &types.SetCodeTx{ChainID: chainID, Nonce: next(), GasTipCap: uint256.NewInt(0), GasFeeCap: uint256.NewInt(2_000_000_000), Gas: 100_000, To: to, Value: new(uint256.Int),
				AuthList: []types.SetCodeAuthorization{auth1, auth2}}),
		)
	}
	return txs
}

// jsonDeposits returns the deposits an OP Stack block opens with: the L1-attributes deposit
// (with a non-zero operator fee, so receipts carry its fields), a user deposit that mints and
// transfers, a creation without mint and a system deposit.
func jsonDeposits() types.Transactions {
	info := &oprollup.L1Info{
		Number: 21_000_000, Time: 1_700_000_000 - 24, BaseFee: big.NewInt(2_000_000_000), BlobBaseFee: big.NewInt(3),
		Hash: common.HexToHash("0x11"), SequenceNumber: 2, BaseFeeScalar: oprollup.BaseFeeScalar, BlobBaseFeeScalar: oprollup.BlobBaseFeeScalar,
		OperatorFeeScalar: 5, OperatorFeeConstant: 1000, DAFootprintGasScalar: oprollup.DAFootprintGasScalar,
	}
	to := common.HexToAddress("0x7DCD17433742F4C0CA53122AB541D0BA67FC27DF")
	user := &oprollup.Deposit{From: common.HexToAddress("0x2222"), To: &to, Mint: big.NewInt(1e18), Value: big.NewInt(5e17), Gas: 100_000, Data: []byte{1}}
	creation := &oprollup.Deposit{From: common.HexToAddress("0x3333"), Gas: 200_000, Data: []byte{0x60, 0x00}}
	system := types.NewTx(&types.DepositTx{SourceHash: common.HexToHash("0x44"), From: oprollup.DepositorAccount, To: &to, Value: new(big.Int), Gas: 50_000, IsSystemTransaction: true})
	return types.Transactions{info.DepositTx(), user.Tx(oprollup.DevDepositSourceHash(1234, 0)), creation.Tx(oprollup.DevDepositSourceHash(1234, 1)), system}
}
