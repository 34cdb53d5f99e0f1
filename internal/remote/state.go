package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/holiman/uint256"
)

// Keys of the State cache in its store (docs/format/fork.md).
const (
	accountPrefix = 'a' // + address           -> RLP(storedAccount)
	slotPrefix    = 's' // + address + slot    -> 32-byte value
	codePrefix    = 'c' // + code hash         -> code
)

// maxMemEntries bounds the in-memory maps in front of a store; past it they start over (the
// store still has everything). Without a store the maps are the cache and are never cleared.
const maxMemEntries = 1 << 20

// SlotKey names a storage slot of an account.
type SlotKey struct {
	Addr common.Address
	Slot common.Hash
}

// StateConfig configures a State.
type StateConfig struct {
	// Client reads the upstream.
	Client *Client
	// Block is the block whose state is read (the fork block).
	Block uint64
	// BlockHash, when set, is Block's hash, and reads name the block by it (EIP-1898) rather
	// than by number, so that an upstream reorganising after the caller learnt of the block
	// cannot answer with the state of another block at that height (a replica's states).
	BlockHash common.Hash
	// Store keeps what was read across restarts; nil keeps it in memory only
	// (--no-storage-caching). Its keys are the State's own (a table of the chain database).
	Store ethdb.KeyValueStore
}

// State is the upstream's state at one block, read on demand and cached: accounts (balance,
// nonce, code) and storage slots. Only answers are cached, never failures: a read the upstream
// could not answer is an *UpstreamError, and the next read asks again. It is safe for
// concurrent use; concurrent reads of one key share one request.
type State struct {
	client *Client
	block  hexutil.Uint64
	at     any // the block parameter of every read: block, or {"blockHash": BlockHash}
	store  ethdb.KeyValueStore
	obs    Observer

	mu       sync.RWMutex                           // guards the maps
	accounts map[common.Address]*types.StateAccount // nil: no such account upstream
	slots    map[SlotKey]common.Hash
	code     map[common.Hash][]byte

	flight flight
}

// NewState returns the upstream state at cfg.Block.
func NewState(cfg StateConfig) *State {
	var at any = hexutil.Uint64(cfg.Block)
	if cfg.BlockHash != (common.Hash{}) {
		at = map[string]any{"blockHash": cfg.BlockHash}
	}
	return &State{
		client:   cfg.Client,
		block:    hexutil.Uint64(cfg.Block),
		at:       at,
		store:    cfg.Store,
		obs:      cfg.Client.cfg.Observer,
		accounts: make(map[common.Address]*types.StateAccount),
		slots:    make(map[SlotKey]common.Hash),
		code:     make(map[common.Hash][]byte),
	}
}

// Block returns the block whose state this is.
func (s *State) Block() uint64 { return uint64(s.block) }

// storedAccount is an account in the store.
type storedAccount struct {
	Exists   bool
	Nonce    uint64
	Balance  *big.Int
	CodeHash common.Hash
}

// Account returns the upstream's account at addr, nil when it does not exist there, reading
// the upstream when it is not cached. Its Root is the empty root: upstream storage is read slot
// by slot (Storage), never through a trie. The result is the caller's to modify.
func (s *State) Account(ctx context.Context, addr common.Address) (*types.StateAccount, error) {
	if a, ok := s.peekAccount(addr, true); ok {
		return copyAccount(a), nil
	}
	err := s.flight.do(addr, func() error {
		if _, ok := s.peekAccount(addr, false); ok {
			return nil
		}
		return s.Fetch(ctx, []common.Address{addr}, nil)
	})
	if err != nil {
		return nil, err
	}
	a, _ := s.peekAccount(addr, false)
	return copyAccount(a), nil
}

// PeekAccount returns the account at addr if it is cached, without asking the upstream.
func (s *State) PeekAccount(addr common.Address) (*types.StateAccount, bool) {
	a, ok := s.peekAccount(addr, true)
	return copyAccount(a), ok
}

// Storage returns the value of a slot at the upstream, reading it when it is not cached.
func (s *State) Storage(ctx context.Context, addr common.Address, slot common.Hash) (common.Hash, error) {
	k := SlotKey{addr, slot}
	if v, ok := s.peekSlot(k, true); ok {
		return v, nil
	}
	err := s.flight.do(k, func() error {
		if _, ok := s.peekSlot(k, false); ok {
			return nil
		}
		return s.Fetch(ctx, nil, []SlotKey{k})
	})
	if err != nil {
		return common.Hash{}, err
	}
	v, _ := s.peekSlot(k, false)
	return v, nil
}

// PeekStorage returns the value of a slot if it is cached, without asking the upstream.
func (s *State) PeekStorage(addr common.Address, slot common.Hash) (common.Hash, bool) {
	return s.peekSlot(SlotKey{addr, slot}, true)
}

// Code returns the code with this hash, which came with an account read; nil when none did.
func (s *State) Code(hash common.Hash) []byte {
	s.mu.RLock()
	code, ok := s.code[hash]
	s.mu.RUnlock()
	if ok || s.store == nil {
		return code
	}
	code, err := s.store.Get(append([]byte{codePrefix}, hash[:]...))
	if err != nil {
		return nil
	}
	s.mu.Lock()
	s.code[hash] = code
	s.mu.Unlock()
	return code
}

func (s *State) peekAccount(addr common.Address, count bool) (*types.StateAccount, bool) {
	s.mu.RLock()
	a, ok := s.accounts[addr]
	s.mu.RUnlock()
	if !ok && s.store != nil {
		if blob, err := s.store.Get(append([]byte{accountPrefix}, addr[:]...)); err == nil {
			var sa storedAccount
			if rlp.DecodeBytes(blob, &sa) == nil {
				a, ok = sa.account(), true
				s.remember(func() { s.accounts[addr] = a })
			}
		}
	}
	if count && s.obs != nil {
		s.obs.CacheRead("account", ok)
	}
	return a, ok
}

func (s *State) peekSlot(k SlotKey, count bool) (common.Hash, bool) {
	s.mu.RLock()
	v, ok := s.slots[k]
	s.mu.RUnlock()
	if !ok && s.store != nil {
		if blob, err := s.store.Get(slotKey(k)); err == nil && len(blob) == common.HashLength {
			v, ok = common.BytesToHash(blob), true
			s.remember(func() { s.slots[k] = v })
		}
	}
	if count && s.obs != nil {
		s.obs.CacheRead("storage", ok)
	}
	return v, ok
}

// remember runs add with the maps locked, clearing them first when a store backs them and
// they are full.
func (s *State) remember(add func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.store != nil && len(s.accounts)+len(s.slots)+len(s.code) >= maxMemEntries {
		s.accounts = make(map[common.Address]*types.StateAccount)
		s.slots = make(map[SlotKey]common.Hash)
		s.code = make(map[common.Hash][]byte)
	}
	add()
}

func slotKey(k SlotKey) []byte {
	key := make([]byte, 0, 1+common.AddressLength+common.HashLength)
	key = append(key, slotPrefix)
	key = append(key, k.Addr[:]...)
	return append(key, k.Slot[:]...)
}

func (sa *storedAccount) account() *types.StateAccount {
	if !sa.Exists {
		return nil
	}
	return &types.StateAccount{Nonce: sa.Nonce, Balance: uint256.MustFromBig(sa.Balance), Root: types.EmptyRootHash, CodeHash: sa.CodeHash.Bytes()}
}

func copyAccount(a *types.StateAccount) *types.StateAccount {
	if a == nil {
		return nil
	}
	return a.Copy()
}

// Fetch reads every account and slot of the lists that is not cached yet, in JSON-RPC batches
// sent together (an account is eth_getBalance, eth_getTransactionCount and eth_getCode; a slot
// eth_getStorageAt, all at the State's block), and caches the answers. On an error nothing of
// the failed batch is cached.
func (s *State) Fetch(ctx context.Context, accounts []common.Address, slots []SlotKey) error {
	var (
		calls     []Call
		needAccts []common.Address
		needSlots []SlotKey
		seenA     = make(map[common.Address]bool, len(accounts))
		seenS     = make(map[SlotKey]bool, len(slots))
	)
	for _, a := range accounts {
		if seenA[a] {
			continue
		}
		seenA[a] = true
		if _, ok := s.peekAccount(a, false); ok {
			continue
		}
		needAccts = append(needAccts, a)
		calls = append(calls,
			Call{Method: "eth_getBalance", Params: []any{a, s.at}},
			Call{Method: "eth_getTransactionCount", Params: []any{a, s.at}},
			Call{Method: "eth_getCode", Params: []any{a, s.at}})
	}
	for _, k := range slots {
		if seenS[k] {
			continue
		}
		seenS[k] = true
		if _, ok := s.peekSlot(k, false); ok {
			continue
		}
		needSlots = append(needSlots, k)
		calls = append(calls, Call{Method: "eth_getStorageAt", Params: []any{k.Addr, k.Slot, s.at}})
	}
	if len(calls) == 0 {
		return nil
	}
	if s.obs != nil {
		for range needAccts {
			s.obs.CacheRead("account", false)
		}
		for range needSlots {
			s.obs.CacheRead("storage", false)
		}
	}
	res, err := s.client.Batch(ctx, calls)
	if err != nil {
		return err
	}
	stored := make([]storedAccount, len(needAccts))
	codes := make([][]byte, len(needAccts))
	for i, addr := range needAccts {
		sa, code, err := decodeAccount(res[3*i], res[3*i+1], res[3*i+2])
		if err != nil {
			return s.client.fail("eth_getBalance", fmt.Sprintf("account %s: %v", addr, err), err)
		}
		stored[i], codes[i] = sa, code
	}
	values := make([]common.Hash, len(needSlots))
	for i, k := range needSlots {
		v, err := decodeWord(res[3*len(needAccts)+i])
		if err != nil {
			return s.client.fail("eth_getStorageAt", fmt.Sprintf("slot %s of %s: %v", k.Slot, k.Addr, err), err)
		}
		values[i] = v
	}
	return s.keep(needAccts, stored, codes, needSlots, values)
}

// keep caches fetched accounts and slots: in the store first (code before the account that
// names it, in one batch), then in memory.
func (s *State) keep(addrs []common.Address, accts []storedAccount, codes [][]byte, slots []SlotKey, values []common.Hash) error {
	if s.store != nil {
		batch := s.store.NewBatch()
		for i, addr := range addrs {
			if len(codes[i]) > 0 {
				batch.Put(append([]byte{codePrefix}, accts[i].CodeHash[:]...), codes[i])
			}
			blob, err := rlp.EncodeToBytes(&accts[i])
			if err != nil {
				return err
			}
			batch.Put(append([]byte{accountPrefix}, addr[:]...), blob)
		}
		for i, k := range slots {
			batch.Put(slotKey(k), values[i][:])
		}
		if err := batch.Write(); err != nil {
			return fmt.Errorf("upstream cache: write: %w", err)
		}
	}
	s.remember(func() {
		for i, addr := range addrs {
			if len(codes[i]) > 0 {
				s.code[accts[i].CodeHash] = codes[i]
			}
			s.accounts[addr] = accts[i].account()
		}
		for i, k := range slots {
			s.slots[k] = values[i]
		}
	})
	return nil
}

// decodeAccount decodes the answers of eth_getBalance, eth_getTransactionCount and
// eth_getCode. An account with no balance, nonce or code does not exist (EIP-161).
func decodeAccount(balance, nonce, code json.RawMessage) (storedAccount, []byte, error) {
	var (
		b hexutil.Big
		n hexutil.Uint64
		c hexutil.Bytes
	)
	if err := json.Unmarshal(balance, &b); err != nil {
		return storedAccount{}, nil, fmt.Errorf("balance %s: %w", snippet(balance), err)
	}
	if err := json.Unmarshal(nonce, &n); err != nil {
		return storedAccount{}, nil, fmt.Errorf("nonce %s: %w", snippet(nonce), err)
	}
	if err := json.Unmarshal(code, &c); err != nil {
		return storedAccount{}, nil, fmt.Errorf("code %s: %w", snippet(code), err)
	}
	bal := (*big.Int)(&b)
	if bal.Sign() < 0 || bal.BitLen() > 256 {
		return storedAccount{}, nil, fmt.Errorf("balance %s out of range", bal)
	}
	sa := storedAccount{Nonce: uint64(n), Balance: bal, CodeHash: types.EmptyCodeHash}
	if len(c) > 0 {
		sa.CodeHash = crypto.Keccak256Hash(c)
	}
	sa.Exists = sa.Nonce != 0 || bal.Sign() != 0 || len(c) > 0
	return sa, c, nil
}

// decodeWord decodes a storage value: a hex string of up to 32 bytes, zero-padded or not
// ("0x0" as some nodes answer).
func decodeWord(raw json.RawMessage) (common.Hash, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return common.Hash{}, fmt.Errorf("not a string: %s", snippet(raw))
	}
	digits, ok := strings.CutPrefix(s, "0x")
	if !ok || len(digits) > 64 {
		return common.Hash{}, fmt.Errorf("not a 32-byte word: %q", s)
	}
	if len(digits)%2 == 1 {
		digits = "0" + digits
	}
	b, err := hexutil.Decode("0x" + digits)
	if err != nil && digits != "" {
		return common.Hash{}, fmt.Errorf("not a 32-byte word: %q", s)
	}
	return common.BytesToHash(b), nil
}
