package benchmix

import (
	"crypto/ecdsa"
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

//go:embed contracts/BenchMix.json
var artifactJSON []byte

type artifact struct {
	ABI      json.RawMessage `json:"abi"`
	Bytecode hexutil.Bytes   `json:"bytecode"`
}

var tokenABI, poolABI abi.ABI
var tokenCode, poolCode []byte

func init() {
	var a struct{ Token, Pool artifact }
	if err := json.Unmarshal(artifactJSON, &a); err != nil {
		panic(fmt.Sprintf("benchmix: contracts/BenchMix.json: %v", err))
	}
	var err error
	if tokenABI, err = abi.JSON(strings.NewReader(string(a.Token.ABI))); err != nil {
		panic(err)
	}
	if poolABI, err = abi.JSON(strings.NewReader(string(a.Pool.ABI))); err != nil {
		panic(err)
	}
	tokenCode, poolCode = a.Token.Bytecode, a.Pool.Bytecode
}

// Kind is one kind of transaction of the mix.
type Kind int

// The kinds, and the gas limit each is sent with: about 1.2 times what it uses (the limit,
// not the use, is what a flashblock's gas budget counts, as for eth_estimateGas-sized
// transactions).
const (
	ETHTransfer   Kind = iota // 21,000 gas
	TokenTransfer             // an ERC-20 transfer to a fresh or known holder, 35-52k gas used
	Swap                      // a pool swap: transferFrom, transfer, reserves, events, 68-113k gas used
)

// Gas limits of the kinds.
const (
	GasETHTransfer   = params.TxGas
	GasTokenTransfer = 62_000
	GasSwap          = 135_000
)

// pattern is the mix, repeated: 40 % ETH transfers, 35 % ERC-20 transfers, 25 % swaps.
var pattern = [20]Kind{
	ETHTransfer, TokenTransfer, Swap, ETHTransfer, TokenTransfer,
	ETHTransfer, TokenTransfer, Swap, ETHTransfer, TokenTransfer,
	ETHTransfer, TokenTransfer, Swap, ETHTransfer, TokenTransfer,
	ETHTransfer, TokenTransfer, Swap, ETHTransfer, Swap,
}

// KindOf returns the kind of the n-th transaction of the mix.
func KindOf(n uint64) Kind { return pattern[n%uint64(len(pattern))] }

// Receivers is how many distinct addresses receive the mix's ETH and token transfers.
const Receivers = 10_000

// Mix signs the transactions of the mix on one chain, after Setup.
type Mix struct {
	chainID        *big.Int
	signer         types.Signer
	tokenA, tokenB common.Address
	pool           common.Address
	feeCap, tip    *big.Int
}

// Addresses returns the two tokens and the pool.
func (m *Mix) Addresses() (tokenA, tokenB, pool common.Address) { return m.tokenA, m.tokenB, m.pool }

// New returns the mix of a chain whose contracts deployer deploys from nonce (Setup's first
// transactions), signing with feeCap and tip.
func New(chainID *big.Int, deployer common.Address, nonce uint64, feeCap, tip *big.Int) *Mix {
	return &Mix{
		chainID: chainID,
		signer:  types.LatestSignerForChainID(chainID),
		tokenA:  crypto.CreateAddress(deployer, nonce),
		tokenB:  crypto.CreateAddress(deployer, nonce+1),
		pool:    crypto.CreateAddress(deployer, nonce+2),
		feeCap:  feeCap,
		tip:     tip,
	}
}

// Receiver returns the i-th receiver of transfers.
func Receiver(i uint64) common.Address {
	var a common.Address
	copy(a[:], "benchmix")
	binary.BigEndian.PutUint64(a[12:], i%Receivers+1)
	return a
}

// reserve is what the pool is seeded with, per token; senders get as much each.
var reserve = new(big.Int).Mul(big.NewInt(1e9), big.NewInt(1e18))

// Setup returns the set-up transactions, deployer's first (from its nonce, as given to New):
// deploy the two tokens and the pool, mint the pool's reserves and sync it; then, for each
// sender from its own nonce, mint both tokens to it and approve the pool for both. Applied in
// order (a sender's in nonce order, after the deployer's), they leave the chain ready for Tx.
func (m *Mix) Setup(deployer *ecdsa.PrivateKey, nonce uint64, senders []*ecdsa.PrivateKey, senderNonces []uint64) ([]*types.Transaction, error) {
	var txs []*types.Transaction
	add := func(key *ecdsa.PrivateKey, nonce uint64, to *common.Address, gas uint64, data []byte) error {
		tx, err := m.sign(key, nonce, to, gas, nil, data)
		if err == nil {
			txs = append(txs, tx)
		}
		return err
	}
	pack := func(a abi.ABI, method string, args ...any) []byte {
		data, err := a.Pack(method, args...)
		if err != nil {
			panic(err) // the arguments are this file's own
		}
		return data
	}
	ctorA, _ := tokenABI.Pack("", "Bench A", "BA")
	ctorB, _ := tokenABI.Pack("", "Bench B", "BB")
	ctorPool, _ := poolABI.Pack("", m.tokenA, m.tokenB)
	steps := []struct {
		to   *common.Address
		gas  uint64
		data []byte
	}{
		{nil, 1_500_000, append(common.CopyBytes(tokenCode), ctorA...)},
		{nil, 1_500_000, append(common.CopyBytes(tokenCode), ctorB...)},
		{nil, 1_500_000, append(common.CopyBytes(poolCode), ctorPool...)},
		{&m.tokenA, 100_000, pack(tokenABI, "mint", m.pool, reserve)},
		{&m.tokenB, 100_000, pack(tokenABI, "mint", m.pool, reserve)},
		{&m.pool, 150_000, pack(poolABI, "sync")},
	}
	for i, s := range steps {
		if err := add(deployer, nonce+uint64(i), s.to, s.gas, s.data); err != nil {
			return nil, err
		}
	}
	maxApproval := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	for i, key := range senders {
		n := senderNonces[i]
		addr := crypto.PubkeyToAddress(key.PublicKey)
		for j, s := range []struct {
			to   *common.Address
			data []byte
		}{
			{&m.tokenA, pack(tokenABI, "mint", addr, reserve)},
			{&m.tokenB, pack(tokenABI, "mint", addr, reserve)},
			{&m.tokenA, pack(tokenABI, "approve", m.pool, maxApproval)},
			{&m.tokenB, pack(tokenABI, "approve", m.pool, maxApproval)},
		} {
			if err := add(key, n+uint64(j), s.to, 100_000, s.data); err != nil {
				return nil, err
			}
		}
	}
	return txs, nil
}

// SetupPerSender is how many set-up transactions each sender sends.
const SetupPerSender = 4

// SetupDeployer is how many set-up transactions the deployer sends.
const SetupDeployer = 6

// Tx signs the n-th transaction of the mix (its kind is KindOf(n)) from key with nonce.
func (m *Mix) Tx(key *ecdsa.PrivateKey, nonce, n uint64) (*types.Transaction, error) {
	switch KindOf(n) {
	case ETHTransfer:
		to := Receiver(n)
		return m.sign(key, nonce, &to, GasETHTransfer, big.NewInt(1), nil)
	case TokenTransfer:
		token := m.tokenA
		if n%2 == 1 {
			token = m.tokenB
		}
		data, err := tokenABI.Pack("transfer", Receiver(n), big.NewInt(int64(1000+n%1000)))
		if err != nil {
			return nil, err
		}
		return m.sign(key, nonce, &token, GasTokenTransfer, nil, data)
	default:
		data, err := poolABI.Pack("swap", big.NewInt(1e15+int64(n%1000)), n%2 == 0, big.NewInt(1))
		if err != nil {
			return nil, err
		}
		return m.sign(key, nonce, &m.pool, GasSwap, nil, data)
	}
}

func (m *Mix) sign(key *ecdsa.PrivateKey, nonce uint64, to *common.Address, gas uint64, value *big.Int, data []byte) (*types.Transaction, error) {
	return types.SignNewTx(key, m.signer, &types.DynamicFeeTx{
		ChainID: m.chainID, Nonce: nonce, To: to, Value: value, Gas: gas, Data: data,
		GasFeeCap: m.feeCap, GasTipCap: m.tip,
	})
}
