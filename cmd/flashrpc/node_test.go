package main

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"io"
	"log/slog"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/devaccounts"
	"github.com/flashrpc/flashrpc/internal/node"
)

// testNode is a dev node on loopback ports 0 in manual mode (dev_preconfirm / dev_seal), with
// clients for both endpoints.
type testNode struct {
	*node.Dev
	std, pre       *ethclient.Client
	stdRaw, preRaw *gethrpc.Client
	stdURL, preURL string
}

func testOptions(dataDir string) *devOptions {
	_, o := devFlags(io.Discard)
	o.DataDir = dataDir
	o.HTTPPort, o.PreconfPort, o.feed.Port = 0, 0, 0
	o.blockTime, o.preconfInterval = 0, 0
	return o
}

// testChainTypes are the dev chain types a test runs on when it runs on both.
var testChainTypes = []string{chainTypeOP, chainTypeL1}

// testOptionsOf returns testOptions for a new chain of this type.
func testOptionsOf(dataDir, chainType string) *devOptions {
	o := testOptions(dataDir)
	o.chainType = chainType
	return o
}

// depositCount counts the deposits a block opens with: an OP Stack block's L1-attributes
// deposit and user deposits, none on a plain Ethereum chain.
func depositCount(txs types.Transactions) int {
	n := 0
	for n < len(txs) && txs[n].IsDepositTx() {
		n++
	}
	return n
}

// startDev starts a dev node of the options, as runDev does.
func startDev(o *devOptions, logger *slog.Logger) (*node.Dev, error) {
	return node.StartDev(o.config(logger))
}

func startTestNode(t *testing.T, o *devOptions) *testNode {
	t.Helper()
	return startTestNodeWithLogger(t, o, slog.New(slog.DiscardHandler))
}

// startTestNodeWithLogger starts a test node whose log lines go to logger.
func startTestNodeWithLogger(t *testing.T, o *devOptions, logger *slog.Logger) *testNode {
	t.Helper()
	n, err := startDev(o, logger)
	if err != nil {
		t.Fatal(err)
	}
	n.Endpoints().Serve()
	tn := &testNode{Dev: n, stdURL: n.Endpoints()[0].URL(), preURL: n.Endpoints()[1].URL()}
	if tn.stdRaw, err = gethrpc.Dial(tn.stdURL); err != nil {
		t.Fatal(err)
	}
	if tn.preRaw, err = gethrpc.Dial(tn.preURL); err != nil {
		t.Fatal(err)
	}
	tn.std, tn.pre = ethclient.NewClient(tn.stdRaw), ethclient.NewClient(tn.preRaw)
	t.Cleanup(tn.stop)
	return tn
}

// stop shuts the node down cleanly; a second call does nothing.
func (tn *testNode) stop() {
	if tn.Dev == nil {
		return
	}
	tn.std.Close()
	tn.pre.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	tn.Endpoints().Shutdown(ctx)
	tn.Close()
	tn.Dev = nil
}

func (tn *testNode) preconfirm(t *testing.T) {
	t.Helper()
	var res map[string]any
	if err := tn.preRaw.Call(&res, "dev_preconfirm"); err != nil {
		t.Fatalf("dev_preconfirm: %v", err)
	}
}

func (tn *testNode) seal(t *testing.T) {
	t.Helper()
	var res map[string]any
	if err := tn.stdRaw.Call(&res, "dev_seal"); err != nil {
		t.Fatalf("dev_seal: %v", err)
	}
}

// logEmitter is hand-assembled init code whose runtime emits LOG1(logTopic) with the word 42
// as data on every call:
//
//	runtime: PUSH1 42 PUSH1 0 MSTORE PUSH32 <topic> PUSH1 32 PUSH1 0 LOG1 STOP   (44 bytes)
//	init:    PUSH1 44 PUSH1 12 PUSH1 0 CODECOPY PUSH1 44 PUSH1 0 RETURN          (12 bytes)
var (
	logTopic   = common.HexToHash("0x00000000000000000000000000000000000000000000000000000000000f1a54")
	logRuntime = common.FromHex("602a600052" + "7f" + hex.EncodeToString(logTopic[:]) + "60206000a100")
	logInit    = append(common.FromHex("602c600c600039602c6000f3"), logRuntime...)
)

func signTx(t *testing.T, key *ecdsa.PrivateKey, chainID *big.Int, nonce uint64, to *common.Address, value *big.Int, gas uint64, data []byte) *types.Transaction {
	t.Helper()
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{
		ChainID: chainID, Nonce: nonce, To: to, Value: value, Gas: gas, Data: data,
		GasFeeCap: big.NewInt(10 * params.GWei), GasTipCap: big.NewInt(params.GWei),
	})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

func addressOf(key *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(key.PublicKey) }

// testOptionsAccounts returns the dev accounts' keys, as the node derives them by default.
func testOptionsAccounts(t *testing.T) []*ecdsa.PrivateKey {
	t.Helper()
	accs, err := devaccounts.Derive(devaccounts.TestMnemonic, 10)
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]*ecdsa.PrivateKey, len(accs))
	for i, a := range accs {
		keys[i] = a.Key
	}
	return keys
}
