package chaingen

import (
	"crypto/ecdsa"
	"encoding/binary"
	"math/rand"
	"runtime"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Event topics of the generated logs.
var (
	// TransferTopic is topic 0 of Transfer(address indexed from, address indexed to, uint256).
	TransferTopic = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
	// ApprovalTopic is topic 0 of Approval(address indexed owner, address indexed spender, uint256).
	ApprovalTopic = crypto.Keccak256Hash([]byte("Approval(address,address,uint256)"))
	// SwapTopic is topic 0 of the pools' Swap(address indexed sender, address indexed to, …).
	SwapTopic = crypto.Keccak256Hash([]byte("Swap(address,address,int256,int256,uint160,uint128,int24)"))
	// RareTopic is topic 0 of the rare event, emitted by RareContract about once every
	// Config.RareEvery blocks.
	RareTopic = crypto.Keccak256Hash([]byte("EmergencyPause(address,uint256)"))
	// RareContract emits RareTopic.
	RareContract = derived("rare", 0)
)

// Token returns the address of token contract i. Token 0 is the most used.
func Token(i int) common.Address { return derived("token", i) }

// Pool returns the address of swap pool i. Pool 0 is the most used.
func Pool(i int) common.Address { return derived("pool", i) }

// Spender returns the address of approval spender (router) i.
func Spender(i int) common.Address { return derived("spender", i) }

// Account returns the address of account i. Accounts below Config.Senders send transactions
// (their keys are AccountKey(i)); the others only receive. Account 0 is the most active.
func Account(i int, senders int) common.Address {
	if i < senders {
		return crypto.PubkeyToAddress(AccountKey(i).PublicKey)
	}
	return derived("account", i)
}

// AccountKey returns the private key of sending account i.
func AccountKey(i int) *ecdsa.PrivateKey {
	key, err := crypto.ToECDSA(crypto.Keccak256(binary.BigEndian.AppendUint64([]byte("flashrpc-chaingen key"), uint64(i))))
	if err != nil { // a hash that is not a valid scalar: about 2^-128
		panic(err)
	}
	return key
}

// derived returns a fixed address for member i of a kind of the population.
func derived(kind string, i int) common.Address {
	return common.BytesToAddress(crypto.Keccak256(binary.BigEndian.AppendUint64([]byte("flashrpc-chaingen "+kind), uint64(i))))
}

// population is everything the planner draws from.
type population struct {
	tokens    []common.Address
	pools     []pool
	spenders  []common.Address
	accounts  []common.Address // the first len(keys) send
	keys      []*ecdsa.PrivateKey
	token     *rand.Zipf // token index
	poolPick  *rand.Zipf
	spender   *rand.Zipf
	sender    *rand.Zipf // index into keys
	receiver  *rand.Zipf // index into accounts
	nonces    []uint64   // next nonce of each sender
	rng       *rand.Rand
	rareEvery int
}

type pool struct {
	addr         common.Address
	token0, tok1 int
}

// Zipf exponents: the share of the i-th most used member falls as 1/i^s.
const (
	tokenSkew    = 1.1
	poolSkew     = 1.1
	spenderSkew  = 1.3
	senderSkew   = 1.05
	receiverSkew = 1.02
)

func newPopulation(cfg *Config) *population {
	rng := rand.New(rand.NewSource(cfg.Seed))
	p := &population{
		tokens:    make([]common.Address, cfg.Tokens),
		pools:     make([]pool, cfg.Pools),
		spenders:  make([]common.Address, cfg.Spenders),
		accounts:  make([]common.Address, cfg.Accounts),
		keys:      make([]*ecdsa.PrivateKey, cfg.Senders),
		nonces:    make([]uint64, cfg.Senders),
		rng:       rng,
		rareEvery: cfg.RareEvery,
	}
	for i := range p.tokens {
		p.tokens[i] = Token(i)
	}
	for i := range p.spenders {
		p.spenders[i] = Spender(i)
	}
	p.token = rand.NewZipf(rng, tokenSkew, 1, uint64(cfg.Tokens-1))
	for i := range p.pools {
		// Pools pair popular tokens more often, as real ones do.
		a, b := int(p.token.Uint64()), int(p.token.Uint64())
		if a == b {
			b = (a + 1) % cfg.Tokens
		}
		p.pools[i] = pool{addr: Pool(i), token0: a, tok1: b}
	}
	p.poolPick = rand.NewZipf(rng, poolSkew, 1, uint64(cfg.Pools-1))
	p.spender = rand.NewZipf(rng, spenderSkew, 1, uint64(cfg.Spenders-1))
	p.sender = rand.NewZipf(rng, senderSkew, 1, uint64(cfg.Senders-1))
	p.receiver = rand.NewZipf(rng, receiverSkew, 1, uint64(cfg.Accounts-1))
	p.deriveAccounts(cfg.Senders)
	return p
}

// deriveAccounts computes the senders' keys and every account's address, on all CPUs: a
// public key costs about 50 µs.
func (p *population) deriveAccounts(senders int) {
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(p.accounts); i += workers {
				if i < senders {
					p.keys[i] = AccountKey(i)
					p.accounts[i] = crypto.PubkeyToAddress(p.keys[i].PublicKey)
				} else {
					p.accounts[i] = derived("account", i)
				}
			}
		})
	}
	wg.Wait()
}
