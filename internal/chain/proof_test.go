package chain

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
)

// TestProof proves accounts of the dev genesis (one with storage: a system contract; one
// funded; one absent) and checks each proof against the state root, then asks for a state
// the database does not hold.
func TestProof(t *testing.T) {
	t.Parallel()
	funded := common.HexToAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")
	c, err := Open(Config{DataDir: t.TempDir(), Genesis: DevGenesis(DefaultChainID, []common.Address{funded})})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	head := c.Head()
	ctx := context.Background()
	for _, addr := range []common.Address{funded, {0xde, 0xad}} {
		p, err := c.Proof(ctx, head, addr, []common.Hash{{}, {1}})
		if err != nil {
			t.Fatalf("proof of %s: %v", addr, err)
		}
		db := memorydb.New()
		for _, n := range p.AccountProof {
			db.Put(crypto.Keccak256(n), n)
		}
		val, err := trie.VerifyProof(head.Root, crypto.Keccak256(addr.Bytes()), db)
		if err != nil {
			t.Fatalf("verify %s: %v", addr, err)
		}
		if addr != funded {
			if val != nil || p.Balance.Sign() != 0 || p.StorageHash != (common.Hash{}) || len(p.Storage) != 2 || len(p.Storage[0].Proof) != 0 {
				t.Fatalf("absent account: value %x, proof %+v", val, p)
			}
			continue
		}
		var acct types.StateAccount
		if err := rlp.DecodeBytes(val, &acct); err != nil {
			t.Fatal(err)
		}
		if acct.Balance.Cmp(p.Balance) != 0 || acct.Balance.Sign() == 0 || acct.Root != p.StorageHash || !bytes.Equal(acct.CodeHash, p.CodeHash[:]) {
			t.Fatalf("proven account %+v, proof says %+v", acct, p)
		}
	}
	missing := types.CopyHeader(head)
	missing.Root = common.Hash{0xbe, 0xef}
	missing.Number = big.NewInt(7)
	if _, err := c.Proof(ctx, missing, funded, nil); !errors.Is(err, ErrStateUnavailable) {
		t.Fatalf("proof of a missing state: %v, want ErrStateUnavailable", err)
	}
}

// BenchmarkProof proves a funded account of the dev genesis (eth_getProof's work beside
// encoding it), without and with a slot asked for (an account without storage: no storage
// trie is opened, as for most accounts asked about).
func BenchmarkProof(b *testing.B) {
	funded := common.HexToAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")
	c, err := Open(Config{DataDir: b.TempDir(), Genesis: DevGenesis(DefaultChainID, []common.Address{funded})})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	head := c.Head()
	ctx := context.Background()
	for _, keys := range []int{0, 1} {
		b.Run(fmt.Sprintf("keys=%d", keys), func(b *testing.B) {
			b.ReportAllocs()
			slots := make([]common.Hash, keys)
			for b.Loop() {
				p, err := c.Proof(ctx, head, funded, slots)
				if err != nil || len(p.AccountProof) == 0 {
					b.Fatalf("proof: %v", err)
				}
			}
		})
	}
}
