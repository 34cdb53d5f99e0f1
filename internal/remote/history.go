package remote

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/rlp"
)

// Keys of the History cache in its store (docs/format/fork.md).
const (
	resultPrefix = 'j' // + keccak256(method ‖ 0 ‖ params JSON) -> the result's JSON
	headerPrefix = 'h' // + 8-byte big-endian number              -> RLP(header)
)

// maxMemResults bounds the results History keeps in memory without a store; past it they
// start over.
const maxMemResults = 4096

// History answers calls about the upstream's past (blocks, transactions, receipts and logs up
// to the fork block, state before it) and caches the answers: the chain is pinned there, so an
// answer never changes. Only successful, non-null results are cached; a JSON-RPC error answer
// is returned as a *RPCError and not cached, nor is a failure (*UpstreamError). It is safe for
// concurrent use.
type History struct {
	client *Client
	store  ethdb.KeyValueStore
	obs    Observer

	mu      sync.Mutex // guards the maps
	results map[string]json.RawMessage
	headers map[uint64]*types.Header

	flight flight
}

// NewHistory returns a History reading from c and caching in store (nil: in memory only).
func NewHistory(c *Client, store ethdb.KeyValueStore) *History {
	return &History{client: c, store: store, obs: c.cfg.Observer, results: make(map[string]json.RawMessage), headers: make(map[uint64]*types.Header)}
}

// Client returns the client History reads with.
func (h *History) Client() *Client { return h.client }

// Call returns the upstream's answer to method(params...), cached. params are encoded with
// encoding/json; calls with equal encodings share a cache entry. The result is shared:
// callers must not modify it.
func (h *History) Call(ctx context.Context, method string, params ...any) (json.RawMessage, error) {
	if params == nil {
		params = []any{}
	}
	p, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("history: encode params of %s: %w", method, err)
	}
	key := resultKey(method, p)
	if raw, ok := h.cached(key); ok {
		return raw, nil
	}
	var raw json.RawMessage
	err = h.flight.do(string(key), func() error {
		if _, ok := h.cached(key); ok {
			return nil
		}
		if h.obs != nil {
			h.obs.CacheRead("history", false)
		}
		r, err := h.client.Call(ctx, method, params...)
		if err != nil {
			return err
		}
		raw = r
		if !isNull(r) {
			h.keep(key, r)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if raw == nil { // another caller fetched it
		raw, _ = h.cached(key)
		if raw == nil {
			raw = json.RawMessage("null")
		}
	}
	return raw, nil
}

func resultKey(method string, params []byte) []byte {
	sum := crypto.Keccak256(append(append([]byte(method), 0), params...))
	return append([]byte{resultPrefix}, sum...)
}

func (h *History) cached(key []byte) (json.RawMessage, bool) {
	h.mu.Lock()
	raw, ok := h.results[string(key)]
	h.mu.Unlock()
	if !ok && h.store != nil {
		if v, err := h.store.Get(key); err == nil {
			raw, ok = v, true
		}
	}
	if ok && h.obs != nil {
		h.obs.CacheRead("history", true)
	}
	return raw, ok
}

func (h *History) keep(key []byte, raw json.RawMessage) {
	if h.store != nil {
		h.store.Put(key, raw) // best effort: a failed write is a later miss
		return
	}
	h.mu.Lock()
	if len(h.results) >= maxMemResults {
		h.results = make(map[string]json.RawMessage)
	}
	h.results[string(key)] = raw
	h.mu.Unlock()
}

// Headers makes sure the upstream's headers first..last (inclusive) are cached, fetching the
// missing ones in one go. The fork caches the 256 below its block at creation, so BLOCKHASH
// (which reaches back 256 blocks) never waits for the upstream.
func (h *History) Headers(ctx context.Context, first, last uint64) error {
	var missing []uint64
	for n := first; n <= last && n >= first; n++ {
		if h.Header(n) == nil {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	headers, err := h.client.HeadersByNumber(ctx, missing)
	if err != nil {
		return err
	}
	var batch ethdb.Batch
	if h.store != nil {
		batch = h.store.NewBatch()
	}
	h.mu.Lock()
	for _, hdr := range headers {
		h.headers[hdr.Number.Uint64()] = hdr
		if batch != nil {
			blob, err := rlp.EncodeToBytes(hdr)
			if err != nil {
				h.mu.Unlock()
				return err
			}
			batch.Put(headerKey(hdr.Number.Uint64()), blob)
		}
	}
	h.mu.Unlock()
	if batch != nil {
		if err := batch.Write(); err != nil {
			return fmt.Errorf("upstream cache: write headers: %w", err)
		}
	}
	return nil
}

// Header returns the cached upstream header at number, nil when it is not cached.
func (h *History) Header(number uint64) *types.Header {
	h.mu.Lock()
	hdr, ok := h.headers[number]
	h.mu.Unlock()
	if ok || h.store == nil {
		return hdr
	}
	blob, err := h.store.Get(headerKey(number))
	if err != nil {
		return nil
	}
	hdr = new(types.Header)
	if rlp.DecodeBytes(blob, hdr) != nil {
		return nil
	}
	h.mu.Lock()
	h.headers[number] = hdr
	h.mu.Unlock()
	return hdr
}

func headerKey(number uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{headerPrefix}, number)
}
