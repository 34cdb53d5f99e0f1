package follow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
)

// The upstream client is deliberately small: JSON-RPC 2.0 over HTTP, single calls and
// batches, no retries of its own (the sync loop retries at its own pace). Fork mode's
// internal/remote (batching, retries, caching) was not on main when follow mode was written;
// once it is, these reads should move onto it.

// maxUpstreamResponse bounds one upstream answer: a batch of full blocks stays far below it.
const maxUpstreamResponse = 256 << 20

// upstreamTimeout bounds one call or batch.
const upstreamTimeout = 10 * time.Second

// RPCError is an error answer of the upstream, kept with its code and data so that a
// forwarded call can relay it to the client as it came.
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

// upstream is a JSON-RPC client of one HTTP endpoint. It is safe for concurrent use.
type upstream struct {
	url  string
	http *http.Client
	ids  atomic.Uint64
	raw  atomic.Int32 // rawUnknown, rawYes, rawNo: whether debug_getRawBlock is served
}

func newUpstream(url string) *upstream {
	return &upstream{url: url, http: &http.Client{Timeout: upstreamTimeout}}
}

type request struct {
	JSONRPC string `json:"jsonrpc"`
	ID      uint64 `json:"id"`
	Method  string `json:"method"`
	Params  []any  `json:"params"`
}

type response struct {
	ID     uint64          `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *RPCError       `json:"error"`
}

// call sends one request and decodes its result into out (a *json.RawMessage keeps it raw).
func (u *upstream) call(ctx context.Context, out any, method string, params ...any) error {
	if params == nil {
		params = []any{}
	}
	req := request{JSONRPC: "2.0", ID: u.ids.Add(1), Method: method, Params: params}
	var resp response
	if err := u.post(ctx, req, &resp); err != nil {
		return fmt.Errorf("upstream %s: %w", method, err)
	}
	if resp.Error != nil {
		return resp.Error
	}
	if err := json.Unmarshal(resp.Result, out); err != nil {
		return fmt.Errorf("upstream %s: decode result: %w", method, err)
	}
	return nil
}

// batchCall is one call of a batch: its result is left raw in Result, or its error in Err.
type batchCall struct {
	Method string
	Params []any
	Result json.RawMessage
	Err    error
}

// batch sends calls as one JSON-RPC batch. The returned error is the transport's; each call's
// own error is in its Err.
func (u *upstream) batch(ctx context.Context, calls []*batchCall) error {
	if len(calls) == 0 {
		return nil
	}
	reqs := make([]request, len(calls))
	byID := make(map[uint64]*batchCall, len(calls))
	for i, c := range calls {
		id := u.ids.Add(1)
		reqs[i] = request{JSONRPC: "2.0", ID: id, Method: c.Method, Params: c.Params}
		byID[id] = c
		c.Err = errors.New("no answer in the upstream's batch response")
	}
	var resps []response
	if err := u.post(ctx, reqs, &resps); err != nil {
		return fmt.Errorf("upstream batch of %d: %w", len(calls), err)
	}
	for _, r := range resps {
		c, ok := byID[r.ID]
		if !ok {
			continue
		}
		if r.Error != nil {
			c.Err = r.Error
		} else {
			c.Result, c.Err = r.Result, nil
		}
	}
	return nil
}

func (u *upstream) post(ctx context.Context, body, out any) error {
	enc, err := json.Marshal(body)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, upstreamTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.url, bytes.NewReader(enc))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := u.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxUpstreamResponse+1))
	if err != nil {
		return err
	}
	if len(data) > maxUpstreamResponse {
		return fmt.Errorf("answer over %d bytes", maxUpstreamResponse)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %s: %.200s", resp.Status, data)
	}
	return json.Unmarshal(data, out)
}

// blockNumber returns the upstream's head number.
func (u *upstream) blockNumber(ctx context.Context) (uint64, error) {
	var n hexutil.Uint64
	if err := u.call(ctx, &n, "eth_blockNumber"); err != nil {
		return 0, err
	}
	return uint64(n), nil
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
		u.raw.Store(rawNo) // not served: JSON from now on
	}
	return u.jsonBlocksByNumber(ctx, first, last)
}

// rawBlocksByNumber is blocksByNumber with debug_getRawBlock. An upstream that refuses the
// method for the first block is an error with raw still unknown.
func (u *upstream) rawBlocksByNumber(ctx context.Context, first, last uint64) ([]*types.Block, error) {
	calls := make([]*batchCall, 0, last-first+1)
	for n := first; n <= last; n++ {
		calls = append(calls, &batchCall{Method: "debug_getRawBlock", Params: []any{hexutil.Uint64(n)}})
	}
	if err := u.batch(ctx, calls); err != nil {
		return nil, err
	}
	blocks := make([]*types.Block, 0, len(calls))
	for i, c := range calls {
		n := first + uint64(i)
		if c.Err != nil {
			if len(blocks) > 0 || u.raw.Load() == rawYes {
				// Past the upstream's head (geth answers an error for a missing block).
				return blocks, nil
			}
			return nil, fmt.Errorf("upstream raw block %d: %w", n, c.Err)
		}
		var enc hexutil.Bytes
		if err := json.Unmarshal(c.Result, &enc); err != nil || len(enc) == 0 {
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
	calls := make([]*batchCall, 0, last-first+1)
	for n := first; n <= last; n++ {
		calls = append(calls, &batchCall{Method: "eth_getBlockByNumber", Params: []any{hexutil.Uint64(n), true}})
	}
	if err := u.batch(ctx, calls); err != nil {
		return nil, err
	}
	blocks := make([]*types.Block, 0, len(calls))
	for i, c := range calls {
		n := first + uint64(i)
		if c.Err != nil {
			if len(blocks) > 0 {
				return blocks, nil
			}
			return nil, fmt.Errorf("upstream block %d: %w", n, c.Err)
		}
		if isNull(c.Result) {
			return blocks, nil
		}
		b, err := decodeBlock(c.Result)
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

// blockByHash fetches a whole block by hash; nil when the upstream does not know it.
func (u *upstream) blockByHash(ctx context.Context, hash common.Hash) (*types.Block, error) {
	var raw json.RawMessage
	if err := u.call(ctx, &raw, "eth_getBlockByHash", hash, true); err != nil {
		return nil, err
	}
	if isNull(raw) {
		return nil, nil
	}
	b, err := decodeBlock(raw)
	if err != nil {
		return nil, fmt.Errorf("upstream block %s: %w", hash.TerminalString(), err)
	}
	if b.Hash() != hash {
		return nil, fmt.Errorf("upstream block %s: answered block %s", hash.TerminalString(), b.Hash().TerminalString())
	}
	return b, nil
}

// headerHashes returns the hashes of the upstream's blocks first..last (zero hash for a block
// it does not have).
func (u *upstream) headerHashes(ctx context.Context, first, last uint64) ([]common.Hash, error) {
	calls := make([]*batchCall, 0, last-first+1)
	for n := first; n <= last; n++ {
		calls = append(calls, &batchCall{Method: "eth_getBlockByNumber", Params: []any{hexutil.Uint64(n), false}})
	}
	if err := u.batch(ctx, calls); err != nil {
		return nil, err
	}
	hashes := make([]common.Hash, len(calls))
	for i, c := range calls {
		if c.Err != nil {
			return nil, fmt.Errorf("upstream block %d: %w", first+uint64(i), c.Err)
		}
		if isNull(c.Result) {
			continue
		}
		var h struct {
			Hash common.Hash `json:"hash"`
		}
		if err := json.Unmarshal(c.Result, &h); err != nil {
			return nil, fmt.Errorf("upstream block %d: %w", first+uint64(i), err)
		}
		hashes[i] = h.Hash
	}
	return hashes, nil
}

// marker returns the number and hash of the upstream's block under tag ("safe",
// "finalized"); ok false when it has none.
func (u *upstream) marker(ctx context.Context, tag string) (n uint64, hash common.Hash, ok bool, err error) {
	var raw json.RawMessage
	if err := u.call(ctx, &raw, "eth_getBlockByNumber", tag, false); err != nil {
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
	var raw json.RawMessage
	if err := u.call(ctx, &raw, method, params...); err != nil {
		return nil, err
	}
	return raw, nil
}

func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// String describes the upstream for logs.
func (u *upstream) String() string { return strconv.Quote(u.url) }
