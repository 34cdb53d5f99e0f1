package ethjson

// This file is the differential test of the JSON encoders against go-ethereum itself. It runs
// an in-process geth node (the same assembly ethclient/simulated uses: node + eth service +
// simulated beacon, built here directly so the test can read the chain's Go objects), sends
// transactions of every type, seals blocks, and compares geth's raw RPC output with the
// encoders applied to the blocks, transactions and receipts read from geth's BlockChain. The
// comparison is byte for byte after compaction.

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/crypto/kzg4844"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/catalyst"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/holiman/uint256"

	"github.com/flashrpc/flashrpc/internal/chain"
)

// jsonLogContract is init code deploying a runtime that copies its calldata to memory, emits
// it in a LOG2 with topics 0xaa and 0xbb, then emits an empty LOG0 (no topics, no data).
var jsonLogContract = common.FromHex("0x6014" + "80" + "600b" + "6000" + "39" + "6000" + "f3" +
	"36600060003760bb60aa366000a260006000a000")

// jsonGethNode is an in-process geth node with direct access to its chain.
type jsonGethNode struct {
	eth    *eth.Ethereum
	beacon *catalyst.SimulatedBeacon
	client *rpc.Client
	config *params.ChainConfig
}

func jsonStartGethNode(t *testing.T, alloc types.GenesisAlloc) *jsonGethNode {
	t.Helper()
	stack, err := node.New(&node.Config{P2P: p2p.Config{NoDiscovery: true}, AllowUnprotectedTxs: true})
	if err != nil {
		t.Fatalf("new node: %v", err)
	}
	t.Cleanup(func() { _ = stack.Close() })
	genesisAlloc := chain.SystemContractAllocs()
	maps.Copy(genesisAlloc, alloc)
	ethConf := ethconfig.Defaults
	ethConf.Genesis = &core.Genesis{
		Config:   params.AllDevChainProtocolChanges,
		GasLimit: ethconfig.Defaults.Miner.GasCeil,
		Alloc:    genesisAlloc,
	}
	ethConf.SyncMode = ethconfig.FullSync
	ethConf.TxPool.NoLocals = true
	// SimulatedBeacon.Commit waits for the miner's next payload update (miner.Payload.WaitFull
	// waits on a condition without checking what was built already): with the default 2 s
	// between rebuilds, a loaded machine could see the last update before the wait and hang
	// until the test's deadline. Rebuilding often keeps updates coming while the payload is
	// open; commit (below) fails after a minute instead of hanging.
	ethConf.Miner.Recommit = 20 * time.Millisecond
	backend, err := eth.New(stack, &ethConf)
	if err != nil {
		t.Fatalf("new eth service: %v", err)
	}
	stack.RegisterAPIs([]rpc.API{{Namespace: "eth", Service: filters.NewFilterAPI(filters.NewFilterSystem(backend.APIBackend, filters.Config{}))}})
	if err := stack.Start(); err != nil {
		t.Fatalf("start node: %v", err)
	}
	beacon, err := catalyst.NewSimulatedBeacon(0, common.Address{}, backend)
	if err != nil {
		t.Fatalf("new simulated beacon: %v", err)
	}
	t.Cleanup(func() { _ = beacon.Stop() })
	if err := beacon.Fork(backend.BlockChain().GetCanonicalHash(0)); err != nil {
		t.Fatalf("fork to genesis: %v", err)
	}
	client := stack.Attach()
	t.Cleanup(client.Close)
	return &jsonGethNode{eth: backend, beacon: beacon, client: client, config: backend.BlockChain().Config()}
}

// commit seals the pool's transactions into a block with the simulated beacon.
func (n *jsonGethNode) commit(t *testing.T) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		n.beacon.Commit()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("go-ethereum's simulated beacon did not seal a block within a minute (its payload wait missed the miner's update)")
	}
}

// call runs an RPC method and returns geth's raw result.
func (n *jsonGethNode) call(t *testing.T, method string, args ...any) []byte {
	t.Helper()
	var raw json.RawMessage
	if err := n.client.Call(&raw, method, args...); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return raw
}

func (n *jsonGethNode) send(t *testing.T, tx *types.Transaction) {
	t.Helper()
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatalf("encode tx: %v", err)
	}
	n.call(t, "eth_sendRawTransaction", hexutil.Bytes(raw))
}

// jsonGethTxs returns a batch of transactions of every type for the node at the given block
// number: legacy with and without EIP-155, access list, dynamic fee (call, transfer,
// creation), blob and set-code. nonces are advanced per sender.
func jsonGethTxs(t *testing.T, cfg *params.ChainConfig, round int, contract common.Address, nonces map[*ecdsa.PrivateKey]uint64, keyA, keyB, keyC *ecdsa.PrivateKey) []*types.Transaction {
	t.Helper()
	signer := types.LatestSigner(cfg)
	chainID := uint256.MustFromBig(cfg.ChainID)
	gwei := big.NewInt(params.GWei)
	feeCap := new(big.Int).Mul(gwei, big.NewInt(50))
	sign := func(key *ecdsa.PrivateKey, s types.Signer, data types.TxData) *types.Transaction {
		tx, err := types.SignNewTx(key, s, data)
		if err != nil {
			t.Fatalf("sign %T: %v", data, err)
		}
		nonces[key]++
		return tx
	}
	authority := crypto.PubkeyToAddress(keyC.PublicKey)
	eoa := common.HexToAddress("0x00000000000000000000000000000000000000e0")
	var txs []*types.Transaction
	if round == 0 {
		txs = append(txs, sign(keyA, signer, &types.LegacyTx{Nonce: nonces[keyA], GasPrice: feeCap, Gas: 200_000, Data: jsonLogContract}))
	}
	txs = append(txs,
		sign(keyA, types.HomesteadSigner{}, &types.LegacyTx{Nonce: nonces[keyA], GasPrice: feeCap, Gas: 100_000, To: &contract, Value: big.NewInt(1), Data: []byte("unprotected")}),
		sign(keyA, signer, &types.LegacyTx{Nonce: nonces[keyA], GasPrice: feeCap, Gas: 100_000, To: &eoa, Value: big.NewInt(2)}),
		sign(keyA, signer, &types.AccessListTx{ChainID: cfg.ChainID, Nonce: nonces[keyA], GasPrice: feeCap, Gas: 100_000, To: &contract, Data: []byte("2930"),
			AccessList: types.AccessList{{Address: contract, StorageKeys: []common.Hash{{}, {0x01}}}, {Address: eoa}}}),
		sign(keyA, signer, &types.DynamicFeeTx{ChainID: cfg.ChainID, Nonce: nonces[keyA], GasTipCap: gwei, GasFeeCap: feeCap, Gas: 100_000, To: &contract, Data: []byte("1559")}),
		sign(keyA, signer, &types.DynamicFeeTx{ChainID: cfg.ChainID, Nonce: nonces[keyA], GasTipCap: feeCap, GasFeeCap: feeCap, Gas: 21_000, To: &eoa, Value: big.NewInt(3)}),
		sign(keyA, signer, &types.DynamicFeeTx{ChainID: cfg.ChainID, Nonce: nonces[keyA], GasTipCap: gwei, GasFeeCap: feeCap, Gas: 200_000, Data: jsonLogContract}),
	)
	if round == 0 {
		auth, err := types.SignSetCode(keyC, types.SetCodeAuthorization{ChainID: *chainID, Address: contract, Nonce: nonces[keyC]})
		if err != nil {
			t.Fatalf("sign authorization: %v", err)
		}
		nonces[keyC]++
		txs = append(txs, sign(keyA, signer, &types.SetCodeTx{ChainID: chainID, Nonce: nonces[keyA], GasTipCap: uint256.NewInt(params.GWei), GasFeeCap: uint256.MustFromBig(feeCap), Gas: 200_000,
			To: authority, Data: []byte("7702"), AuthList: []types.SetCodeAuthorization{auth}}))
	} else {
		txs = append(txs, sign(keyA, signer, &types.DynamicFeeTx{ChainID: cfg.ChainID, Nonce: nonces[keyA], GasTipCap: gwei, GasFeeCap: feeCap, Gas: 100_000, To: &authority, Data: []byte("delegated")}))
	}
	var blob kzg4844.Blob
	blob[1] = byte(round)
	commitment, err := kzg4844.BlobToCommitment(&blob)
	if err != nil {
		t.Fatalf("blob commitment: %v", err)
	}
	proofs, err := kzg4844.ComputeCellProofs(&blob)
	if err != nil {
		t.Fatalf("cell proofs: %v", err)
	}
	sidecar := types.NewBlobTxSidecar(types.BlobSidecarVersion1, []kzg4844.Blob{blob}, []kzg4844.Commitment{commitment}, proofs)
	txs = append(txs, sign(keyB, signer, &types.BlobTx{ChainID: chainID, Nonce: nonces[keyB], GasTipCap: uint256.NewInt(params.GWei), GasFeeCap: uint256.MustFromBig(feeCap), Gas: 100_000,
		To: contract, Data: []byte("4844"), BlobFeeCap: uint256.NewInt(100 * params.GWei), BlobHashes: sidecar.BlobHashes(), Sidecar: sidecar,
		AccessList: types.AccessList{{Address: contract, StorageKeys: []common.Hash{{0x02}}}}}))
	return txs
}

func TestJSONMatchesGethNode(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts an in-process geth node")
	}
	keyA, keyB, keyC := jsonTestKey, jsonAuthKey, jsonMustKey("0202020202020202020202020202020202020202020202020202020202020202")
	funds := new(big.Int).Mul(big.NewInt(params.Ether), big.NewInt(1000))
	n := jsonStartGethNode(t, types.GenesisAlloc{
		crypto.PubkeyToAddress(keyA.PublicKey): {Balance: funds},
		crypto.PubkeyToAddress(keyB.PublicKey): {Balance: funds},
	})
	contract := crypto.CreateAddress(crypto.PubkeyToAddress(keyA.PublicKey), 0)
	nonces := map[*ecdsa.PrivateKey]uint64{}
	for round := range 2 {
		txs := jsonGethTxs(t, n.config, round, contract, nonces, keyA, keyB, keyC)
		for _, tx := range txs {
			n.send(t, tx)
		}
		// Pool transactions: all location fields null, gasPrice = maxFeePerGas.
		for _, tx := range txs {
			poolTx := n.eth.TxPool().Get(tx.Hash())
			if poolTx == nil {
				t.Fatalf("round %d: tx %s (type %d) not in the pool", round, tx.Hash(), tx.Type())
			}
			want := n.call(t, "eth_getTransactionByHash", tx.Hash())
			jsonCheck(t, fmt.Sprintf("pool tx type %d", tx.Type()), AppendTransaction(nil, poolTx, TxLocation{}, n.config), want)
		}
		n.commit(t)
		head := n.eth.BlockChain().CurrentBlock()
		if b := n.eth.BlockChain().GetBlockByHash(head.Hash()); len(b.Transactions()) != len(txs) {
			t.Fatalf("round %d: block has %d transactions, sent %d", round, len(b.Transactions()), len(txs))
		}
	}
	headNum := n.eth.BlockChain().CurrentBlock().Number.Uint64()
	var seenTypes [5]int
	var logCount int
	for num := uint64(0); num <= headNum; num++ {
		logCount += jsonCheckGethBlock(t, n, num, &seenTypes)
	}
	for typ, c := range seenTypes {
		if c == 0 {
			t.Errorf("no transaction of type %d compared", typ)
		}
	}
	if logCount == 0 {
		t.Error("no logs compared")
	}
	// eth_getLogs over the whole chain.
	var all []*types.Log
	for num := uint64(0); num <= headNum; num++ {
		for _, r := range n.eth.BlockChain().GetReceiptsByHash(n.eth.BlockChain().GetCanonicalHash(num)) {
			all = append(all, r.Logs...)
		}
	}
	want := n.call(t, "eth_getLogs", map[string]any{"fromBlock": "0x0", "toBlock": hexutil.EncodeUint64(headNum)})
	jsonCheck(t, "eth_getLogs", AppendLogs(nil, all), want)
}

// jsonCheckGethBlock compares every encoding of block num with geth's RPC output and returns the
// number of logs compared.
func jsonCheckGethBlock(t *testing.T, n *jsonGethNode, num uint64, seenTypes *[5]int) int {
	t.Helper()
	chain := n.eth.BlockChain()
	block := chain.GetBlockByNumber(num)
	receipts := chain.GetReceiptsByHash(block.Hash())
	hexNum := hexutil.EncodeUint64(num)
	what := func(s string) string { return fmt.Sprintf("block %d: %s", num, s) }

	jsonCheck(t, what("eth_getHeaderByNumber"), AppendHeader(nil, block.Header()), n.call(t, "eth_getHeaderByNumber", hexNum))
	for _, fullTx := range []bool{false, true} {
		got := AppendBlock(nil, block, fullTx, n.config, BlockOptions{})
		jsonCheck(t, what(fmt.Sprintf("eth_getBlockByNumber fullTx=%v", fullTx)), got, n.call(t, "eth_getBlockByNumber", hexNum, fullTx))
		jsonCheck(t, what(fmt.Sprintf("eth_getBlockByHash fullTx=%v", fullTx)), got, n.call(t, "eth_getBlockByHash", block.Hash(), fullTx))
	}

	signer := types.MakeSigner(n.config, block.Number(), block.Time())
	hash := block.Hash()
	blockReceipts := []byte{'['}
	var logs int
	for i, tx := range block.Transactions() {
		seenTypes[tx.Type()]++
		loc := TxLocation{Located: true, BlockHash: &hash, BlockNumber: num, BlockTime: block.Time(), Index: uint64(i), BaseFee: block.BaseFee()}
		got := AppendTransaction(nil, tx, loc, n.config)
		jsonCheck(t, what(fmt.Sprintf("eth_getTransactionByHash %d", i)), got, n.call(t, "eth_getTransactionByHash", tx.Hash()))
		jsonCheck(t, what(fmt.Sprintf("eth_getTransactionByBlockNumberAndIndex %d", i)), got, n.call(t, "eth_getTransactionByBlockNumberAndIndex", hexNum, hexutil.Uint(i)))

		receipt := AppendReceipt(nil, receipts[i], tx, hash, num, signer, i, n.config)
		jsonCheck(t, what(fmt.Sprintf("eth_getTransactionReceipt %d", i)), receipt, n.call(t, "eth_getTransactionReceipt", tx.Hash()))
		if i > 0 {
			blockReceipts = append(blockReceipts, ',')
		}
		blockReceipts = append(blockReceipts, receipt...)
		logs += len(receipts[i].Logs)
	}
	blockReceipts = append(blockReceipts, ']')
	jsonCheck(t, what("eth_getBlockReceipts"), blockReceipts, n.call(t, "eth_getBlockReceipts", hexNum))
	var blockLogs []*types.Log
	for _, r := range receipts {
		blockLogs = append(blockLogs, r.Logs...)
	}
	jsonCheck(t, what("eth_getLogs"), AppendLogs(nil, blockLogs), n.call(t, "eth_getLogs", map[string]any{"blockHash": hash}))
	if bytes.Contains(AppendBlock(nil, block, false, n.config, BlockOptions{}), []byte("totalDifficulty")) {
		t.Error(what("block has totalDifficulty"))
	}
	return logs
}
