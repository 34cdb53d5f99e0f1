package devapi_test

import (
	"encoding/json"
	"testing"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/flashrpc/flashrpc/internal/rpc"
)

// TestAccounts: eth_accounts lists the ten dev accounts in order on both endpoints.
func TestAccounts(t *testing.T) {
	n := newDevNode(t, false)
	for _, cl := range []*gethClient{{"standard", n.std}, {"pre-confirmed", n.pre}} {
		var got []common.Address
		mustCall(t, cl.c, &got, "eth_accounts")
		if len(got) != 10 || got[0] != common.HexToAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266") || got[9] != n.addr(9) {
			t.Fatalf("%s: eth_accounts = %v, want the ten dev accounts", cl.name, got)
		}
	}
}

// mailTypedData is EIP-712's example message.
const mailTypedData = `{"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"version","type":"string"},{"name":"chainId","type":"uint256"},{"name":"verifyingContract","type":"address"}],"Person":[{"name":"name","type":"string"},{"name":"wallet","type":"address"}],"Mail":[{"name":"from","type":"Person"},{"name":"to","type":"Person"},{"name":"contents","type":"string"}]},"primaryType":"Mail","domain":{"name":"Ether Mail","version":"1","chainId":1,"verifyingContract":"0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"},"message":{"from":{"name":"Cow","wallet":"0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},"to":{"name":"Bob","wallet":"0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},"contents":"Hello, Bob!"}}`

// TestSignatures: each signing method signs with the dev account's key, and the signature
// recovers to it (v = 27 or 28) over the hash the method defines; a non-dev address and
// malformed parameters are refused.
func TestSignatures(t *testing.T) {
	n := newDevNode(t, false)
	addr := n.addr(1)
	var td apitypes.TypedData
	if err := json.Unmarshal([]byte(mailTypedData), &td); err != nil {
		t.Fatal(err)
	}
	tdHash, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		method string
		args   []any
		hash   []byte
	}{
		{"eth_sign", "eth_sign", []any{addr, "0x68656c6c6f"}, accounts.TextHash([]byte("hello"))},
		{"personal_sign hex", "personal_sign", []any{"0x68656c6c6f", addr}, accounts.TextHash([]byte("hello"))},
		{"personal_sign text", "personal_sign", []any{"hello world", addr}, accounts.TextHash([]byte("hello world"))},
		{"signTypedData_v4 object", "eth_signTypedData_v4", []any{addr, json.RawMessage(mailTypedData)}, tdHash},
		{"signTypedData_v4 string", "eth_signTypedData_v4", []any{addr, mailTypedData}, tdHash},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var sig hexutil.Bytes
			mustCall(t, n.pre, &sig, c.method, c.args...)
			if len(sig) != 65 || (sig[64] != 27 && sig[64] != 28) {
				t.Fatalf("signature %x: want 65 bytes with v 27 or 28", sig)
			}
			sig[64] -= 27
			pub, err := crypto.SigToPub(c.hash, sig)
			if err != nil || crypto.PubkeyToAddress(*pub) != addr {
				t.Fatalf("signature recovers to %v (%v), want %s", pub, err, addr)
			}
		})
	}
	stranger := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	wantError(t, n.std, rpc.CodeServer, []string{"no key for", stranger.Hex()}, "eth_sign", stranger, "0x00")
	wantError(t, n.std, rpc.CodeInvalidParams, []string{"argument 0 (address)"}, "eth_sign", "0x1234", "0x00")
	wantError(t, n.std, rpc.CodeInvalidParams, []string{"argument 1 (typedData)"}, "eth_signTypedData_v4", addr, "{not json")
}
