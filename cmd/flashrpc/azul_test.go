package main

import (
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
)

// TestAzulCallPrices calls P256VERIFY (0x100) through eth_call on both endpoints of a node,
// with just the gas EIP-7951 prices it at (6,900) and with one gas less: on the OP Stack chain
// (Azul) and on the plain Ethereum chain (Osaka) alike, the first returns the signature's
// validity and the second runs out of gas. Without Azul's precompile overrides in eth_call's
// EVM, op-geth's Jovian P256VERIFY (3,450 gas) would succeed with both.
func TestAzulCallPrices(t *testing.T) {
	for _, chainType := range testChainTypes {
		t.Run(chainType, func(t *testing.T) {
			tn := startTestNode(t, testOptionsOf(t.TempDir(), chainType))
			// go-ethereum's CallP256Verify vector: a valid signature.
			input := common.FromHex("4cee90eb86eaa050036147a12d49004b6b9c72bd725d39d4785011fe190f0b4da73bd4903f0ce3b639bbbf6e8e80d16931ff4bcf5993d58468e8fb19086e8cac36dbcd03009df8c59286b162af3bd7fcc0450c9aa81be5d10d312af6c66b1d604aebd3099c618202fcfe16ae7770b0c49ab5eadf74b754204a3bb6060e44eff37618b065f9832de4ca6ca971a7a1adc826d0f7c00181a5fb2ddf79ae00b4e10e")
			intrinsic, err := core.IntrinsicGas(input, nil, nil, false, true, true, true)
			if err != nil {
				t.Fatal(err)
			}
			floor, _ := core.FloorDataGas(input)
			need := max(intrinsic+6_900, floor)
			call := func(gas uint64) (hexutil.Bytes, error) {
				var out hexutil.Bytes
				err := tn.preRaw.Call(&out, "eth_call", map[string]any{
					"to": "0x0000000000000000000000000000000000000100", "data": hexutil.Encode(input), "gas": hexutil.Uint64(gas),
				}, "pending")
				return out, err
			}
			out, err := call(need)
			if err != nil || len(out) != 32 || out[31] != 1 {
				t.Fatalf("with %d gas: %x, %v; want a valid signature", need, out, err)
			}
			if _, err := call(need - 1); err == nil || !strings.Contains(err.Error(), "out of gas") {
				t.Fatalf("with %d gas: %v; want out of gas (P256VERIFY costs 6,900 since Osaka/Azul)", need-1, err)
			}
		})
	}
}
