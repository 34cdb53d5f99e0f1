package follow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/flashrpc/flashrpc/internal/remote"
)

// The upstream's reads a replica needs, on the fork mode's JSON-RPC client (internal/remote:
// batches, size limits, error kinds). The client retries nothing here: the sync loop asks
// again at its own pace, and a forwarded transaction is answered, not retried.

// upstreamTimeout bounds one call or batch.
const upstreamTimeout = 10 * time.Second

// RPCError is an error answer of the upstream, kept with its code and data so that a
// forwarded call can relay it to the client as it came (its message without the code that
// remote.RPCError adds).
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error returns the upstream's message.
func (e *RPCError) Error() string { return e.Message }

// ErrorCode returns the upstream's code (the rpc package sends it as is).
func (e *RPCError) ErrorCode() int { return e.Code }

// ErrorData returns the upstream's data member, nil when it had none.
func (e *RPCError) ErrorData() any {
	if len(e.Data) == 0 {
		return nil
	}
	return e.Data
}

// upstream reads one node of the chain. It is safe for concurrent use.
type upstream struct {
	c   *remote.Client
	raw atomic.Int32 // rawUnknown, rawYes, rawNo: whether debug_getRawBlock is served
}

func newUpstream(url string) *upstream {
	return &upstream{c: remote.NewClient(remote.Config{URL: url, Retries: 0, Timeout: upstreamTimeout})}
}

// url returns the upstream's URL.
func (u *upstream) url() string { return u.c.URL() }

// blockNumber returns the upstream's head number.
func (u *upstream) blockNumber(ctx context.Context) (uint64, error) {
	return u.c.BlockNumber(ctx)
}

// Whether the upstream serves debug_getRawBlock (rawBlocks): unknown until asked.
const (
	rawUnknown int32 = iota
	rawYes
	rawNo
)

// blocksByNumber fetches whole blocks from first to last in one batch: in their consensus
// encoding (debug_getRawBlock, exact and cheap to decode) when the upstream serves it, else
// as JSON with full transactions. It stops at the first block the upstream does not have (a
// shorter slice) or cannot give.
func (u *upstream) blocksByNumber(ctx context.Context, first, last uint64) ([]*types.Block, error) {
	if u.raw.Load() != rawNo {
		blocks, err := u.rawBlocksByNumber(ctx, first, last)
		if err == nil || u.raw.Load() == rawYes {
			return blocks, err
		}
		if remote.IsUpstream(err) {
			return nil, err // no answer at all: nothing learnt about the method
		}
		u.raw.Store(rawNo) // not served: JSON from now on
	}
	return u.jsonBlocksByNumber(ctx, first, last)
}

// byNumber sends method(n, extra...) for each n in first..last as one batch.
func (u *upstream) byNumber(ctx context.Context, method string, first, last uint64, extra ...any) ([]remote.Result, error) {
	calls := make([]remote.Call, 0, last-first+1)
	for n := first; n <= last; n++ {
		calls = append(calls, remote.Call{Method: method, Params: append([]any{hexutil.Uint64(n)}, extra...)})
	}
	return u.c.BatchResults(ctx, calls)
}

// rawBlocksByNumber is blocksByNumber with debug_getRawBlock. An upstream that refuses the
// method for the first block is an error with raw still unknown.
func (u *upstream) rawBlocksByNumber(ctx context.Context, first, last uint64) ([]*types.Block, error) {
	res, err := u.byNumber(ctx, "debug_getRawBlock", first, last)
	if err != nil {
		return nil, err
	}
	blocks := make([]*types.Block, 0, len(res))
	for i, r := range res {
		n := first + uint64(i)
		if r.Err != nil {
			if len(blocks) > 0 || u.raw.Load() == rawYes {
				// Past the upstream's head (geth answers an error for a missing block).
				return blocks, nil
			}
			return nil, fmt.Errorf("upstream raw block %d: %w", n, r.Err)
		}
		var enc hexutil.Bytes
		if err := json.Unmarshal(r.Raw, &enc); err != nil || len(enc) == 0 {
			return blocks, nil // null: the upstream does not have it
		}
		b := new(types.Block)
		if err := rlp.DecodeBytes(enc, b); err != nil {
			return blocks, fmt.Errorf("upstream raw block %d: %w", n, err)
		}
		if b.NumberU64() != n {
			return blocks, fmt.Errorf("upstream raw block %d: answered block %d", n, b.NumberU64())
		}
		u.raw.Store(rawYes)
		blocks = append(blocks, b)
	}
	return blocks, nil
}

// jsonBlocksByNumber is blocksByNumber with eth_getBlockByNumber.
func (u *upstream) jsonBlocksByNumber(ctx context.Context, first, last uint64) ([]*types.Block, error) {
	res, err := u.byNumber(ctx, "eth_getBlockByNumber", first, last, true)
	if err != nil {
		return nil, err
	}
	blocks := make([]*types.Block, 0, len(res))
	for i, r := range res {
		n := first + uint64(i)
		if r.Err != nil {
			if len(blocks) > 0 {
				return blocks, nil
			}
			return nil, fmt.Errorf("upstream block %d: %w", n, r.Err)
		}
		if isNull(r.Raw) {
			return blocks, nil
		}
		b, err := decodeBlock(r.Raw)
		if err != nil {
			return blocks, fmt.Errorf("upstream block %d: %w", n, err)
		}
		if b.NumberU64() != n {
			return blocks, fmt.Errorf("upstream block %d: answered block %d", n, b.NumberU64())
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

// headerHashes returns the hashes of the upstream's blocks first..last (zero hash for a block
// it does not have).
func (u *upstream) headerHashes(ctx context.Context, first, last uint64) ([]common.Hash, error) {
	res, err := u.byNumber(ctx, "eth_getBlockByNumber", first, last, false)
	if err != nil {
		return nil, err
	}
	hashes := make([]common.Hash, len(res))
	for i, r := range res {
		if r.Err != nil {
			return nil, fmt.Errorf("upstream block %d: %w", first+uint64(i), r.Err)
		}
		if isNull(r.Raw) {
			continue
		}
		var h struct {
			Hash common.Hash `json:"hash"`
		}
		if err := json.Unmarshal(r.Raw, &h); err != nil {
			return nil, fmt.Errorf("upstream block %d: %w", first+uint64(i), err)
		}
		hashes[i] = h.Hash
	}
	return hashes, nil
}

// lookup returns, in one batch, whether the upstream knows block hash and its head number.
// The head is asked first: an upstream that runs a batch in order (go-ethereum, flashrpc)
// then cannot report a head at or past a block it says it does not know because it imported
// the block between the two calls.
func (u *upstream) lookup(ctx context.Context, hash common.Hash) (known bool, head uint64, err error) {
	res, err := u.c.Batch(ctx, []remote.Call{
		{Method: "eth_blockNumber"},
		{Method: "eth_getBlockByHash", Params: []any{hash, false}},
	})
	if err != nil {
		return false, 0, err
	}
	var n hexutil.Uint64
	if err := json.Unmarshal(res[0], &n); err != nil {
		return false, 0, fmt.Errorf("upstream eth_blockNumber: %w", err)
	}
	return !isNull(res[1]), uint64(n), nil
}

// marker returns the number and hash of the upstream's block under tag ("safe",
// "finalized"); ok false when it has none.
func (u *upstream) marker(ctx context.Context, tag string) (n uint64, hash common.Hash, ok bool, err error) {
	raw, err := u.c.Call(ctx, "eth_getBlockByNumber", tag, false)
	if err != nil {
		return 0, common.Hash{}, false, err
	}
	if isNull(raw) {
		return 0, common.Hash{}, false, nil
	}
	var h struct {
		Number hexutil.Uint64 `json:"number"`
		Hash   common.Hash    `json:"hash"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return 0, common.Hash{}, false, fmt.Errorf("upstream %s block: %w", tag, err)
	}
	return uint64(h.Number), h.Hash, true, nil
}

// sendRaw forwards a signed transaction with method (eth_sendRawTransaction or its Sync
// variant, with extra parameters) and returns the upstream's result as it came. An upstream
// error answer is an *RPCError.
func (u *upstream) sendRaw(ctx context.Context, method string, params ...any) (json.RawMessage, error) {
	raw, err := u.c.Call(ctx, method, params...)
	if rerr, ok := errors.AsType[*remote.RPCError](err); ok {
		return nil, &RPCError{Code: rerr.Code, Message: rerr.Message, Data: rerr.Data}
	}
	return raw, err
}

func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// String describes the upstream for logs.
func (u *upstream) String() string { return strconv.Quote(u.url()) }
