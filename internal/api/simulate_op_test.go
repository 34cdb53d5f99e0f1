package api

import (
	"encoding/json"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/params"
)

// TestSimulateWithdrawalsRoot: a simulated OP Stack block's withdrawalsRoot is the
// L2ToL1MessagePasser's storage root after the block, on `latest` (a prepared base, which
// keeps the passer's root for the blocks that leave it alone): the base's when no call goes
// near the passer, a new one when a call initiates a withdrawal or a state override writes
// its storage. The withdrawal's root is the one the same transaction, sent and sealed, gives.
func TestSimulateWithdrawalsRoot(t *testing.T) {
	n := newOPSurfaceNode(t, 1, Config{})
	base := n.seal(t).Header()
	if base.WithdrawalsHash == nil {
		t.Fatal("the dev chain's block has no withdrawals root (Isthmus inactive)")
	}
	passer := params.OptimismL2ToL1MessagePasser
	// initiateWithdrawal(address(0x1234), 100000, "")
	withdraw := hexutil.MustDecode("0xc2b3e5ac" +
		"0000000000000000000000000000000000000000000000000000000000001234" +
		"00000000000000000000000000000000000000000000000000000000000186a0" +
		"0000000000000000000000000000000000000000000000000000000000000060" +
		"0000000000000000000000000000000000000000000000000000000000000000")
	from := n.addr(0)
	root := func(name string, block map[string]any) common.Hash {
		t.Helper()
		var res []struct {
			WithdrawalsRoot common.Hash `json:"withdrawalsRoot"`
			Calls           []struct {
				Status hexutil.Uint64 `json:"status"`
			} `json:"calls"`
		}
		raw := n.mustCall(t, n.pre, nil, "eth_simulateV1", map[string]any{"blockStateCalls": []any{block}}, "latest")
		if err := json.Unmarshal(raw, &res); err != nil || len(res) != 1 {
			t.Fatalf("%s: %s: %v", name, raw, err)
		}
		for i, c := range res[0].Calls {
			if c.Status != 1 {
				t.Fatalf("%s: call %d failed: %s", name, i, raw)
			}
		}
		return res[0].WithdrawalsRoot
	}
	if got := root("untouched", map[string]any{"calls": []any{map[string]any{"from": from, "to": storeAddr, "data": hexutil.Bytes(storeData(7))}}}); got != *base.WithdrawalsHash {
		t.Errorf("block that leaves the passer alone: withdrawalsRoot %s, want the base's %s", got, base.WithdrawalsHash)
	}
	if got := root("override", map[string]any{"stateOverrides": map[string]any{passer.Hex(): map[string]any{"stateDiff": map[string]any{common.Hash{1}.Hex(): common.Hash{0xff}.Hex()}}}}); got == *base.WithdrawalsHash {
		t.Errorf("block whose override writes the passer's storage: withdrawalsRoot %s, the base's", got)
	}
	simulated := root("withdrawal", map[string]any{"calls": []any{map[string]any{"from": from, "to": passer, "data": hexutil.Bytes(withdraw)}}})
	if simulated == *base.WithdrawalsHash {
		t.Fatalf("block with a withdrawal: withdrawalsRoot %s, the base's", simulated)
	}
	n.send(t, 0, passer, withdraw)
	n.preconfirm(t)
	sealed := n.seal(t)
	if receipts := n.chain.Receipts(sealed.Hash()); len(receipts) != 2 || receipts[1].Status != 1 {
		t.Fatalf("the withdrawal was not sealed: %d receipts", len(receipts))
	}
	if got := *sealed.Header().WithdrawalsHash; got != simulated {
		t.Errorf("sealed withdrawal: withdrawalsRoot %s, the simulation said %s", got, simulated)
	}
}
