package follow

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// fakeHead answers eth_blockNumber with head and eth_getBlockByHash with null (single calls
// and batches), counting the requests: an upstream that has never seen the block asked for.
func fakeHead(t *testing.T, head string, requests *atomic.Int64) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		var batch []map[string]json.RawMessage
		if err := json.NewDecoder(r.Body).Decode(&batch); err != nil {
			http.Error(w, "this test upstream takes batches only", http.StatusBadRequest)
			return
		}
		out := make([]map[string]any, len(batch))
		for i, req := range batch {
			var result any // null
			if string(req["method"]) == `"eth_blockNumber"` {
				result = head
			}
			out[i] = map[string]any{"jsonrpc": "2.0", "id": req["id"], "result": result}
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestForeignParentRefusedAtOnce gives a replica an index 0 whose parent its upstream does not
// know although it is past that height (a feed of another chain): it is refused after two
// questions to the upstream (the second rules out the block being imported between the two
// calls of the first), not after waiting ParentWait for a parent that cannot come.
func TestForeignParentRefusedAtOnce(t *testing.T) {
	g := opGenesis(t)
	p0, _ := flashblockPair(t, g, 1)
	p0.Base.ParentHash = common.Hash{0xf0, 0x7e}
	var requests atomic.Int64
	up := fakeHead(t, "0x5", &requests)
	c, err := chain.Open(*g())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	f, err := New(Config{Upstream: up.URL}, c, preconf.New(c))
	if err != nil {
		t.Fatal(err)
	}
	err = f.open(context.Background(), p0, nil)
	if !errors.Is(err, errNotUpstreams) {
		t.Fatalf("index 0 of another chain: %v, want %v", err, errNotUpstreams)
	}
	if n := requests.Load(); n != 2 {
		t.Fatalf("%d requests to the upstream, want 2", n)
	}
	if f.pre.Last() != nil {
		t.Fatal("a block in progress from another chain's feed")
	}
}
