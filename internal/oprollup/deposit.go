package oprollup

import (
	"encoding/binary"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// Deposit is a user deposit, what OptimismPortal.depositTransaction on L1 makes: op-geth
// mints Mint to From, then runs the call (or the creation when To is nil) with Gas from the
// block's gas, without fees, signature or nonce check. A deposit whose call fails is still
// included, as failed, and its mint stays.
type Deposit struct {
	From  common.Address
	To    *common.Address // nil: contract creation
	Mint  *big.Int        // nil or zero: nothing minted
	Value *big.Int        // nil: zero
	Gas   uint64
	Data  []byte
}

// Tx returns the deposit transaction with this source hash. Two deposits with the same fields
// and source hash have the same transaction hash: deposits have no nonce or signature, so
// the source hash is what tells them apart.
func (d *Deposit) Tx(source common.Hash) *types.Transaction {
	var mint *big.Int
	if d.Mint != nil && d.Mint.Sign() != 0 {
		mint = new(big.Int).Set(d.Mint) // nil and 0 encode alike; keep the decoded form
	}
	value := new(big.Int)
	if d.Value != nil {
		value.Set(d.Value)
	}
	var to *common.Address
	if d.To != nil {
		addr := *d.To
		to = &addr
	}
	return types.NewTx(&types.DepositTx{
		SourceHash: source,
		From:       d.From,
		To:         to,
		Mint:       mint,
		Value:      value,
		Gas:        d.Gas,
		Data:       common.CopyBytes(d.Data),
	})
}

// DevDepositSourceHash is the source hash of the index-th dev_deposit included in L2 block
// number: a user-deposit source hash (domain 0) whose L1 block hash is
// keccak256("flashrpc dev_deposit" ‖ u64be(number)) and whose log index is index. It is
// unique per block and position, so no two deposits of a chain share a hash.
func DevDepositSourceHash(number, index uint64) common.Hash {
	l1 := crypto.Keccak256Hash([]byte("flashrpc dev_deposit"), binary.BigEndian.AppendUint64(nil, number))
	return UserDepositSourceHash(l1, index)
}
