package main

import (
	"bytes"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
)

// forgingProxy forwards JSON-RPC to upstream and, while forge holds a block number, answers
// that block with another state root and a header hash recomputed to match: a block that
// hashes right but does not verify. With noRaw it answers debug_getRawBlock as a node that
// does not serve it, so the replica reads JSON blocks.
func forgingProxy(t *testing.T, upstream string, forge *atomic.Int64, noRaw bool) *httptest.Server {
	t.Helper()
	target, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target) },
		ModifyResponse: func(resp *http.Response) error {
			if resp.StatusCode == http.StatusSwitchingProtocols {
				return nil // the newHeads subscription's WebSocket passes as it is
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return err
			}
			body = forgeBlock(t, body, forge.Load(), noRaw)
			resp.Body = io.NopCloser(bytes.NewReader(body))
			resp.ContentLength = int64(len(body))
			resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
			return nil
		},
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return srv
}

// forgeBlock rewrites block n (none when n < 0) wherever it is a result in a JSON-RPC answer
// or batch, as JSON or as a raw block; with noRaw a raw block becomes a "method not found".
func forgeBlock(t *testing.T, body []byte, n int64, noRaw bool) []byte {
	var batch []map[string]json.RawMessage
	single := false
	if err := json.Unmarshal(body, &batch); err != nil {
		var one map[string]json.RawMessage
		if json.Unmarshal(body, &one) != nil {
			return body
		}
		batch, single = []map[string]json.RawMessage{one}, true
	}
	for _, resp := range batch {
		var enc hexutil.Bytes
		var raw types.Block
		if json.Unmarshal(resp["result"], &enc) == nil && rlp.DecodeBytes(enc, &raw) == nil {
			switch {
			case noRaw:
				delete(resp, "result")
				resp["error"] = json.RawMessage(`{"code":-32601,"message":"the method debug_getRawBlock does not exist/is not available"}`)
			case int64(raw.NumberU64()) == n:
				h := raw.Header()
				h.Root[0] ^= 1
				forged, err := rlp.EncodeToBytes(types.NewBlockWithHeader(h).WithBody(*raw.Body()))
				if err != nil {
					t.Error(err)
				}
				resp["result"], _ = json.Marshal(hexutil.Bytes(forged))
			}
			continue
		}
		var block map[string]json.RawMessage
		if json.Unmarshal(resp["result"], &block) != nil || block["stateRoot"] == nil {
			continue
		}
		var number hexutil.Uint64
		if json.Unmarshal(block["number"], &number) != nil || int64(number) != n {
			continue
		}
		var h types.Header
		if err := json.Unmarshal(resp["result"], &h); err != nil {
			t.Error(err)
			continue
		}
		h.Root[0] ^= 1
		block["stateRoot"], _ = json.Marshal(h.Root)
		block["hash"], _ = json.Marshal(h.Hash())
		resp["result"], _ = json.Marshal(block)
	}
	var out []byte
	if single {
		out, _ = json.Marshal(batch[0])
	} else {
		out, _ = json.Marshal(batch)
	}
	return out
}

// TestFollowRefusesUnverifiedBlock has the upstream serve a block whose header hashes right
// but whose state root its transactions do not give: the replica never serves it (nor
// anything after it) and reports the lag on /health, and goes on once the upstream serves the
// real block.
func TestFollowRefusesUnverifiedBlock(t *testing.T) {
	for _, tc := range []struct {
		name  string
		noRaw bool
	}{{"raw blocks", false}, {"JSON blocks", true}} {
		t.Run(tc.name, func(t *testing.T) { testFollowRefusesUnverifiedBlock(t, tc.noRaw) })
	}
}

func testFollowRefusesUnverifiedBlock(t *testing.T, noRaw bool) {
	tn := startTestNode(t, testOptions(t.TempDir()))
	var forge atomic.Int64
	forge.Store(2)
	proxy := forgingProxy(t, tn.stdURL, &forge, noRaw)
	o := replicaOptions(tn, t.TempDir())
	o.upstream, o.feedURL = proxy.URL, ""
	r := startTestReplica(t, o)
	keys := testOptionsAccounts(t)
	for i := range 3 {
		if err := tn.pre.SendTransaction(t.Context(), signTx(t, keys[0], tn.Chain().Config().ChainID, uint64(i), &common.Address{0xc0}, big.NewInt(1), params.TxGas, nil)); err != nil {
			t.Fatal(err)
		}
		tn.preconfirm(t)
		tn.seal(t)
	}
	waitFor(t, "the replica at block 1, lagging on /health", func() bool {
		resp, err := http.Get(r.stdURL + "/health")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var body struct {
			Head uint64  `json:"head"`
			Lag  *uint64 `json:"lag"`
		}
		json.NewDecoder(resp.Body).Decode(&body)
		return body.Head == 1 && body.Lag != nil && *body.Lag == 2 && resp.StatusCode == http.StatusOK
	})
	if res := rawCall(t, r.stdRaw, "eth_getBlockByNumber", "0x2", false); string(res) != "null" {
		t.Fatalf("the replica serves the forged block: %s", res)
	}
	forge.Store(-1)
	waitFor(t, "the replica at the primary's head once the upstream is honest", func() bool { return r.head() == 3 })
	for n := uint64(1); n <= 3; n++ {
		sameJSON(t, tn.stdRaw, r.stdRaw, "eth_getBlockByNumber", hexutil.Uint64(n), true)
	}
}
