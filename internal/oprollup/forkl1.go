package oprollup

import (
	"bytes"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// A fork of an OP Stack chain (flashrpc dev --fork-url) has no L1 either. Its dev L1 continues
// the fork block's: the fork block's L1 origin stays the origin for L1BlockTime seconds after
// its timestamp, then the origin advances one dev L1 block (devL1Hash) every L1BlockTime
// seconds, numbered on from the fork block's. The attributes keep the fork block's fees (unless
// DevL1.BaseFee or BlobBaseFee say otherwise), fee scalars, operator fee and batcher, so the
// L1 data fee of a transaction on the fork is what it would have been on the upstream.

// forkOrigin is Origin on a fork.
func (d *DevL1) forkOrigin(l2Time uint64) (number, time uint64, hash common.Hash) {
	f := d.Fork
	var k uint64
	if l2Time > f.Time {
		k = (l2Time - f.Time) / L1BlockTime
	}
	if k == 0 {
		return f.Number, f.Time, f.Hash
	}
	return f.Number + k, f.Time + k*L1BlockTime, devL1Hash(f.Number + k)
}

// forkInfo is Info on a fork.
func (d *DevL1) forkInfo(parentTxs types.Transactions, l2Time uint64) *L1Info {
	info := *d.Fork
	info.Number, info.Time, info.Hash = d.forkOrigin(l2Time)
	info.SequenceNumber = 0
	if parent, err := BlockL1Info(parentTxs); err == nil && parent.Number == info.Number {
		info.SequenceNumber = parent.SequenceNumber + 1
	}
	info.BaseFee, info.BlobBaseFee = new(big.Int).Set(d.Fork.BaseFee), new(big.Int).Set(d.Fork.BlobBaseFee)
	if d.BaseFee != nil {
		info.BaseFee.Set(d.BaseFee)
	}
	if d.BlobBaseFee != nil {
		info.BlobBaseFee.Set(d.BlobBaseFee)
	}
	return &info
}

// ExtraData returns the extraData of a block at time on chain config: Extra when set, else
// the package's ExtraData.
func (d *DevL1) ExtraData(config *params.ChainConfig, time uint64) []byte {
	if d.Extra != nil {
		return bytes.Clone(d.Extra)
	}
	return ExtraData(config, time)
}
