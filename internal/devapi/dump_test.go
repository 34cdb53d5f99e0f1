package devapi_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/flashrpc/flashrpc/internal/rpc"
)

// TestDumpLoadState: anvil_dumpState lists the sealed head's accounts (the dev accounts, a
// contract's code and storage) as gzipped JSON in anvil's shape; anvil_loadState of it into a
// fresh node makes the block in progress hold the same accounts (`pending` at once, `latest`
// once mined). A malformed dump is -32602 and changes nothing.
func TestDumpLoadState(t *testing.T) {
	src := newDevNode(t, false)
	c := common.HexToAddress("0x00000000000000000000000000000000000c0de5")
	var ok bool
	mustCall(t, src.pre, &ok, "anvil_setCode", c, "0x6001600055")
	mustCall(t, src.pre, &ok, "anvil_setStorageAt", c, "0x7", "0x2a")
	mustCall(t, src.pre, &ok, "anvil_setBalance", c, "0x1234")
	mustCall(t, src.pre, &ok, "anvil_setNonce", c, "0x3")
	src.seal(t)
	var dump hexutil.Bytes
	mustCall(t, src.pre, &dump, "anvil_dumpState")
	zr, err := gzip.NewReader(bytes.NewReader(dump))
	if err != nil {
		t.Fatalf("dump is not gzip: %v", err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("dump's gzip stream: %v", err)
	}
	var shape struct {
		Accounts map[common.Address]struct {
			Nonce   uint64
			Balance string
			Code    string
			Storage map[string]string
		}
	}
	if err := json.Unmarshal(plain, &shape); err != nil {
		t.Fatalf("dump JSON: %v", err)
	}
	acc, found := shape.Accounts[c]
	if !found || acc.Nonce != 3 || acc.Balance != "0x1234" || acc.Code != "0x6001600055" || acc.Storage["0x0000000000000000000000000000000000000000000000000000000000000007"] != "0x000000000000000000000000000000000000000000000000000000000000002a" {
		t.Fatalf("dumped account %+v (found %v)", acc, found)
	}
	if _, found := shape.Accounts[src.addr(9)]; !found {
		t.Fatalf("dump lacks dev account 9: %d accounts", len(shape.Accounts))
	}

	dst := newDevNode(t, false)
	before := stateOf(t, dst.preEth, c, true)
	wantError(t, dst.pre, rpc.CodeInvalidParams, []string{"argument 0 (state)"}, "anvil_loadState", "0x1f8b0000")
	wantError(t, dst.pre, rpc.CodeInvalidParams, []string{"argument 0 (state)", "balance"}, "anvil_loadState", hexutil.Encode([]byte(`{"accounts":{"0x00000000000000000000000000000000000c0de5":{"balance":"lots"}}}`)))
	if got := stateOf(t, dst.preEth, c, true); got != before {
		t.Fatalf("state after refused loads: %s, want %s", got, before)
	}
	mustCall(t, dst.pre, &ok, "anvil_loadState", dump)
	want := stateOf(t, src.stdEth, c, false)
	if got := stateOf(t, dst.preEth, c, true); got != want {
		t.Fatalf("pending after anvil_loadState: %s, want %s", got, want)
	}
	slot, err := dst.preEth.PendingStorageAt(t.Context(), c, common.Hash{31: 7})
	if err != nil || new(big.Int).SetBytes(slot).Uint64() != 42 {
		t.Fatalf("slot 7 after anvil_loadState: %x (%v)", slot, err)
	}
	dst.seal(t)
	if got := stateOf(t, dst.stdEth, c, false); got != want {
		t.Fatalf("latest after anvil_loadState and a seal: %s, want %s", got, want)
	}
}
