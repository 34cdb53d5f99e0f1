package devapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// TestTxpool: txpool_status, txpool_content, txpool_contentFrom and txpool_inspect show the
// transactions not pre-confirmed yet as go-ethereum shapes them: hex counts, executable
// ("pending") and gapped ("queued") transactions by checksummed sender and decimal nonce; a
// pre-confirmation empties them.
func TestTxpool(t *testing.T) {
	n := newDevNode(t, false)
	from := n.addr(3)
	to := common.HexToAddress("0x00000000000000000000000000000000000000c5")
	var h common.Hash
	for _, nonce := range []string{"0x0", "0x1", "0x3"} { // 3 waits for 2
		mustCall(t, n.std, &h, "eth_sendTransaction", map[string]any{"from": from, "to": to, "value": "0x7", "nonce": nonce, "gasPrice": "0x77359400"})
	}
	var status map[string]hexutil.Uint
	mustCall(t, n.pre, &status, "txpool_status")
	if status["pending"] != 2 || status["queued"] != 1 {
		t.Fatalf("txpool_status %v, want 2 pending and 1 queued", status)
	}
	var content map[string]map[string]map[string]struct {
		Hash      common.Hash
		Nonce     hexutil.Uint64
		From      common.Address
		BlockHash *common.Hash
	}
	mustCall(t, n.std, &content, "txpool_content")
	pending, queued := content["pending"][from.Hex()], content["queued"][from.Hex()]
	if len(pending) != 2 || pending["0"].Nonce != 0 || pending["1"].Nonce != 1 || pending["1"].From != from || pending["1"].BlockHash != nil {
		t.Fatalf("txpool_content pending %+v", pending)
	}
	if len(queued) != 1 || queued["3"].Nonce != 3 || queued["3"].Hash != h {
		t.Fatalf("txpool_content queued %+v", queued)
	}
	var from1 map[string]map[string]json.RawMessage
	mustCall(t, n.std, &from1, "txpool_contentFrom", from)
	if len(from1["pending"]) != 2 || len(from1["queued"]) != 1 {
		t.Fatalf("txpool_contentFrom %v", from1)
	}
	var inspect map[string]map[string]map[string]string
	mustCall(t, n.pre, &inspect, "txpool_inspect")
	want := to.Hex() + ": 7 wei + 21000 gas × 2000000000 wei"
	if got := inspect["queued"][from.Hex()]["3"]; got != want {
		t.Fatalf("txpool_inspect queued: %q, want %q", got, want)
	}
	n.preconfirm(t)
	mustCall(t, n.pre, &status, "txpool_status")
	if status["pending"] != 0 || status["queued"] != 1 {
		t.Fatalf("txpool_status after pre-confirming: %v, want 0 pending and 1 queued", status)
	}
	var raw json.RawMessage
	mustCall(t, n.pre, &raw, "txpool_content")
	if !strings.Contains(string(raw), `"pending":{}`) {
		t.Fatalf("txpool_content after pre-confirming: %s, want no pending", raw)
	}
}
