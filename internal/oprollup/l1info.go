package oprollup

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// l1InfoGas is the gas of the L1-attributes deposit since Regolith (op-node's
// RegolithSystemTxGas).
const l1InfoGas = 1_000_000

// L1Info is what the L1-attributes deposit of a block tells the L2: its L1 origin and the fee
// parameters in force. It is op-node's L1BlockInfo in the Jovian layout.
type L1Info struct {
	Number         uint64      // L1 origin's number
	Time           uint64      // L1 origin's timestamp
	BaseFee        *big.Int    // L1 origin's base fee
	BlobBaseFee    *big.Int    // L1 origin's blob base fee (1 when L1 has no blobs)
	Hash           common.Hash // L1 origin's hash
	SequenceNumber uint64      // the L2 block's position among those with this origin, from 0
	BatcherHash    common.Hash // the batcher's address, left-padded

	BaseFeeScalar        uint32
	BlobBaseFeeScalar    uint32
	OperatorFeeScalar    uint32
	OperatorFeeConstant  uint64
	DAFootprintGasScalar uint16
}

// MarshalJovian returns the deposit's calldata: setL1BlockValuesJovian() followed by the
// fields packed big-endian (op-node's L1BlockInfo.marshalBinaryJovian, 178 bytes).
func (i *L1Info) MarshalJovian() []byte {
	b := make([]byte, 0, types.JovianL1AttributesLen)
	b = append(b, types.JovianL1AttributesSelector...)
	b = binary.BigEndian.AppendUint32(b, i.BaseFeeScalar)
	b = binary.BigEndian.AppendUint32(b, i.BlobBaseFeeScalar)
	b = binary.BigEndian.AppendUint64(b, i.SequenceNumber)
	b = binary.BigEndian.AppendUint64(b, i.Time)
	b = binary.BigEndian.AppendUint64(b, i.Number)
	b = append(b, common.BigToHash(i.BaseFee).Bytes()...)
	b = append(b, common.BigToHash(i.BlobBaseFee).Bytes()...)
	b = append(b, i.Hash[:]...)
	b = append(b, i.BatcherHash[:]...)
	b = binary.BigEndian.AppendUint32(b, i.OperatorFeeScalar)
	b = binary.BigEndian.AppendUint64(b, i.OperatorFeeConstant)
	return binary.BigEndian.AppendUint16(b, i.DAFootprintGasScalar)
}

// errNotJovianInfo reports calldata that is not a Jovian L1-attributes call.
var errNotJovianInfo = errors.New("not a Jovian L1-attributes deposit")

// UnmarshalL1Info decodes the calldata of a Jovian L1-attributes deposit.
func UnmarshalL1Info(data []byte) (*L1Info, error) {
	if len(data) != types.JovianL1AttributesLen || string(data[:4]) != string(types.JovianL1AttributesSelector) {
		return nil, fmt.Errorf("%w: %d bytes, selector %x", errNotJovianInfo, len(data), data[:min(4, len(data))])
	}
	u32 := func(at int) uint32 { return binary.BigEndian.Uint32(data[at:]) }
	u64 := func(at int) uint64 { return binary.BigEndian.Uint64(data[at:]) }
	return &L1Info{
		BaseFeeScalar:        u32(4),
		BlobBaseFeeScalar:    u32(8),
		SequenceNumber:       u64(12),
		Time:                 u64(20),
		Number:               u64(28),
		BaseFee:              new(big.Int).SetBytes(data[36:68]),
		BlobBaseFee:          new(big.Int).SetBytes(data[68:100]),
		Hash:                 common.BytesToHash(data[100:132]),
		BatcherHash:          common.BytesToHash(data[132:164]),
		OperatorFeeScalar:    u32(164),
		OperatorFeeConstant:  u64(168),
		DAFootprintGasScalar: binary.BigEndian.Uint16(data[176:]),
	}, nil
}

// DepositTx returns the block's L1-attributes deposit: from the depositor account to L1Block,
// nothing minted, no value, 1,000,000 gas, not a system transaction (Regolith), with the
// source hash of its L1 origin and sequence number.
func (i *L1Info) DepositTx() *types.Transaction {
	to := L1Block
	return types.NewTx(&types.DepositTx{
		SourceHash: L1InfoSourceHash(i.Hash, i.SequenceNumber),
		From:       DepositorAccount,
		To:         &to,
		Value:      new(big.Int),
		Gas:        l1InfoGas,
		Data:       i.MarshalJovian(),
	})
}

// Deposit source hash domains (op-node's deposit_source.go).
const (
	userDepositDomain   = 0
	l1InfoDepositDomain = 1
)

// L1InfoSourceHash is the source hash of the L1-attributes deposit of the L2 block with this
// L1 origin and sequence number.
func L1InfoSourceHash(l1Hash common.Hash, sequenceNumber uint64) common.Hash {
	return sourceHash(l1InfoDepositDomain, l1Hash, sequenceNumber)
}

// UserDepositSourceHash is the source hash of the user deposit emitted as log logIndex of
// L1 block l1Hash.
func UserDepositSourceHash(l1Hash common.Hash, logIndex uint64) common.Hash {
	return sourceHash(userDepositDomain, l1Hash, logIndex)
}

// sourceHash is keccak256(u256(domain) ‖ keccak256(l1Hash ‖ u256(n))).
func sourceHash(domain uint64, l1Hash common.Hash, n uint64) common.Hash {
	var in [64]byte
	copy(in[:32], l1Hash[:])
	binary.BigEndian.PutUint64(in[56:], n)
	id := crypto.Keccak256Hash(in[:])
	var outer [64]byte
	binary.BigEndian.PutUint64(outer[24:32], domain)
	copy(outer[32:], id[:])
	return crypto.Keccak256Hash(outer[:])
}

// BlockL1Info returns the L1 attributes a block opened with: the decoded first transaction,
// which in an OP block is the L1-attributes deposit. It fails for a block without one (the
// genesis block).
func BlockL1Info(txs types.Transactions) (*L1Info, error) {
	if len(txs) == 0 || !txs[0].IsDepositTx() {
		return nil, errors.New("block has no L1-attributes deposit")
	}
	return UnmarshalL1Info(txs[0].Data())
}
