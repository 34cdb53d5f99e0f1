package impersonation

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

// TestMarkAndRecover: a marked transaction's sender is the impersonated address for the
// chain's signers; the same transaction decoded from its encoding (as from the database) is
// recognised as a placeholder and recovers that sender; a real signature is not a placeholder.
func TestMarkAndRecover(t *testing.T) {
	config := params.AllDevChainProtocolChanges
	from := common.HexToAddress("0x000000000000000000000000000000000000a11e")
	to := common.HexToAddress("0x00000000000000000000000000000000000000b0")
	txs := map[string]types.TxData{
		"legacy":  &types.LegacyTx{Nonce: 1, GasPrice: big.NewInt(1), Gas: 21000, To: &to},
		"dynamic": &types.DynamicFeeTx{ChainID: config.ChainID, Nonce: 1, GasFeeCap: big.NewInt(1), Gas: 21000, To: &to},
	}
	for name, data := range txs {
		t.Run(name, func(t *testing.T) {
			marked, err := Mark(config, types.NewTx(data), from)
			if err != nil {
				t.Fatal(err)
			}
			signer := types.MakeSigner(config, big.NewInt(1), 1)
			if got, err := types.Sender(signer, marked); err != nil || got != from {
				t.Fatalf("sender of the marked transaction: %s %v, want %s", got, err, from)
			}
			raw, _ := marked.MarshalBinary()
			read := new(types.Transaction)
			if err := read.UnmarshalBinary(raw); err != nil {
				t.Fatal(err)
			}
			if got, _ := types.Sender(signer, read); got == from {
				t.Fatalf("a decoded copy recovers %s without Recover", got)
			}
			read = new(types.Transaction)
			read.UnmarshalBinary(raw)
			if !Recover(config, read) {
				t.Fatal("Recover: not a placeholder")
			}
			if got, err := types.Sender(signer, read); err != nil || got != from {
				t.Fatalf("sender after Recover: %s %v, want %s", got, err, from)
			}
			other, _ := Mark(config, types.NewTx(data), to)
			if other.Hash() == marked.Hash() {
				t.Fatal("two senders' placeholders share a hash")
			}
		})
	}
	key, _ := crypto.GenerateKey()
	signed, _ := types.SignNewTx(key, types.LatestSigner(config), txs["dynamic"])
	if Recover(config, signed) {
		t.Fatal("a signed transaction was taken for a placeholder")
	}
	if _, err := Mark(config, types.NewTx(txs["dynamic"]), common.Address{}); err == nil {
		t.Fatal("the zero address was impersonated")
	}
}
