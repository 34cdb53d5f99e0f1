package oprollup

import (
	"encoding/binary"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

// L1BlockTime is the dev L1's block time in seconds: the dev chain's L1 origin advances every
// 12 s, Ethereum's slot time.
const L1BlockTime = 12

// Defaults of the dev L1's fees (--l1.base-fee, --l1.blob-base-fee): 1 gwei, an L1 base fee
// of the order Ethereum mainnet has had since 2025, and 1 wei, the blob base fee's minimum
// (blobs are rarely scarce).
var (
	DefaultL1BaseFee     = big.NewInt(params.GWei)
	DefaultL1BlobBaseFee = big.NewInt(1)
)

// BaseBatcher is the batcher address the dev chain's L1 attributes name: Base mainnet's
// batcher, from memory (0x5050…76C9). It only fills L1Block.batcherHash; nothing checks it.
var BaseBatcher = common.HexToAddress("0x5050F69a9786F081509234F1a7F4684b5E5b76C9")

// DevL1 stands in for L1 on the dev chain, which has none: a chain of L1 blocks numbered from
// the L2 genesis time, one every L1BlockTime seconds, with the fees it was given. It makes the
// L1-attributes deposit every L2 block opens with.
type DevL1 struct {
	// GenesisTime is the L2 genesis block's timestamp: the dev L1's block 0 has it.
	GenesisTime uint64
	// BaseFee and BlobBaseFee are every dev L1 block's fees; nil means the defaults (or, on a
	// fork, the fork block's).
	BaseFee, BlobBaseFee *big.Int
	// Fork, when set, continues the L1 attributes of an upstream chain's block (fork mode,
	// forkl1.go): the dev L1 starts at that block's L1 origin instead of at GenesisTime, and
	// keeps its fees, fee scalars and batcher.
	Fork *L1Info
	// Extra, when set, is every block's extraData instead of ExtraData's: a fork keeps the
	// EIP-1559 parameters and minimum base fee of the block it continues.
	Extra []byte
}

// Origin returns the dev L1 block an L2 block at time l2Time builds on: the newest one not
// after it.
func (d *DevL1) Origin(l2Time uint64) (number, time uint64, hash common.Hash) {
	if d.Fork != nil {
		return d.forkOrigin(l2Time)
	}
	if l2Time > d.GenesisTime {
		number = (l2Time - d.GenesisTime) / L1BlockTime
	}
	return number, d.GenesisTime + number*L1BlockTime, devL1Hash(number)
}

// devL1Hash is the dev L1 block's hash: keccak256("flashrpc dev L1" ‖ u64be(number)).
func devL1Hash(number uint64) common.Hash {
	return crypto.Keccak256Hash([]byte("flashrpc dev L1"), binary.BigEndian.AppendUint64(nil, number))
}

// Info returns the L1 attributes of the L2 block at time l2Time whose parent block holds
// parentTxs: its L1 origin, the sequence number (the parent's plus one under the same origin,
// else 0), the dev L1's fees and Base's fee scalars.
func (d *DevL1) Info(parentTxs types.Transactions, l2Time uint64) *L1Info {
	if d.Fork != nil {
		return d.forkInfo(parentTxs, l2Time)
	}
	number, time, hash := d.Origin(l2Time)
	var seq uint64
	if parent, err := BlockL1Info(parentTxs); err == nil && parent.Number == number {
		seq = parent.SequenceNumber + 1
	}
	baseFee, blobBaseFee := d.BaseFee, d.BlobBaseFee
	if baseFee == nil {
		baseFee = DefaultL1BaseFee
	}
	if blobBaseFee == nil {
		blobBaseFee = DefaultL1BlobBaseFee
	}
	return &L1Info{
		Number:               number,
		Time:                 time,
		BaseFee:              new(big.Int).Set(baseFee),
		BlobBaseFee:          new(big.Int).Set(blobBaseFee),
		Hash:                 hash,
		SequenceNumber:       seq,
		BatcherHash:          common.BytesToHash(BaseBatcher[:]),
		BaseFeeScalar:        BaseFeeScalar,
		BlobBaseFeeScalar:    BlobBaseFeeScalar,
		OperatorFeeScalar:    OperatorFeeScalar,
		OperatorFeeConstant:  OperatorFeeConstant,
		DAFootprintGasScalar: DAFootprintGasScalar,
	}
}
