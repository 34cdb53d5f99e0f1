package execute

import (
	"encoding/json"
	"strconv"

	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/exec/simulate"
)

// This file encodes eth_simulateV1 results the way go-ethereum does: each simulated block is its
// RPC block (ethjson.AppendBlockParts) plus "calls", one result per call.

// appendSimBlocks appends the eth_simulateV1 result array.
func appendSimBlocks(dst []byte, blocks []simulate.Block, config *params.ChainConfig) []byte {
	dst = append(dst, '[')
	for i := range blocks {
		b := &blocks[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = ethjson.AppendBlockParts(dst, b.Header, &b.Body, b.Hash, b.Size, b.FullTx, config, ethjson.BlockOptions{Senders: b.Senders, TxHashes: b.TxHashes})
		dst = dst[:len(dst)-1] // reopen the block object for "calls"
		dst = append(dst, `,"calls":[`...)
		for j := range b.Calls {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = appendSimCall(dst, &b.Calls[j])
		}
		dst = append(dst, "]}"...)
	}
	return append(dst, ']')
}

// simResultSize is about the length of the eth_simulateV1 result of blocks, a little over
// it for the common shapes: the encoding then usually fits in one allocation (a reverted
// call's data, withdrawals and access lists are not counted; they only grow the buffer
// once more). Logs are most of a result (a Transfer log
// is about 650 bytes), so a size by call alone was short by half for a body of token
// transfers and the buffer grew and was copied once more.
func simResultSize(blocks []simulate.Block) int {
	size := 2
	for _, b := range blocks {
		size += 1792 + 80*len(b.TxHashes) // the block's own fields and its transaction hashes
		if b.FullTx {
			for _, tx := range b.Body.Transactions {
				size += 1024 + 2*len(tx.Data())
			}
		}
		for i := range b.Calls {
			c := &b.Calls[i]
			size += 128 + 2*len(c.ReturnData)
			for _, log := range c.Logs {
				size += 384 + 67*len(log.Topics) + 2*len(log.Data)
			}
		}
	}
	return size + size/16
}

// appendSimCall appends one call result: returnData, logs, gasUsed, maxUsedGas, status and, for
// a failed call, error: code 3 with the revert data for a revert, -32015 for other EVM errors.
func appendSimCall(dst []byte, c *simulate.CallResult) []byte {
	dst = append(dst, `{"returnData":`...)
	dst = ethjson.AppendHexBytes(dst, c.ReturnData)
	dst = append(dst, `,"logs":`...)
	dst = ethjson.AppendLogs(dst, c.Logs)
	dst = append(dst, `,"gasUsed":`...)
	dst = ethjson.AppendQuantity(dst, c.GasUsed)
	dst = append(dst, `,"maxUsedGas":`...)
	dst = ethjson.AppendQuantity(dst, c.MaxUsedGas)
	dst = append(dst, `,"status":`...)
	dst = ethjson.AppendQuantity(dst, c.Status)
	if c.Err != nil {
		code, data, withData := core.SimCallError(c.Err) // core's errors.go
		dst = append(dst, `,"error":{"message":`...)
		dst = appendString(dst, c.Err.Error())
		dst = append(dst, `,"code":`...)
		dst = appendInt(dst, code)
		if withData {
			dst = append(dst, `,"data":`...)
			dst = ethjson.AppendHexBytes(dst, data)
		}
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// appendString appends s as a JSON string escaped as encoding/json escapes it (go-ethereum's
// output). Only error messages go through it, so encoding/json's cost does not matter.
func appendString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s)
	return append(dst, b...)
}

// appendInt appends v as a JSON number.
func appendInt(dst []byte, v int) []byte { return strconv.AppendInt(dst, int64(v), 10) }
