package simulate

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
)

var (
	// transferTopic is keccak256("Transfer(address,address,uint256)").
	transferTopic = common.HexToHash("ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef")
	// TransferLogAddress is the address of the synthetic ether-transfer logs of
	// eth_simulateV1's traceTransfers (ERC-7528).
	TransferLogAddress = common.HexToAddress("0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE")
)

// logTracer collects the logs of one simulated call, dropping those of reverted frames, and
// records every ether transfer (top-level value, CALL, CREATE,
// SELFDESTRUCT; not DELEGATECALL or CALLCODE) as an ERC-20 Transfer log at
// TransferLogAddress. Log indexes run on across the calls of a block. It is geth's
// internal/ethapi tracer. It is not safe for concurrent use.
type logTracer struct {
	logs           [][]*types.Log // one slice per open call frame
	count          int            // log index of the next log in the block
	blockNumber    uint64
	blockTimestamp uint64
	txHash         common.Hash
	txIdx          uint
}

// newLogTracer returns the tracer of a block with traceTransfers. Without traceTransfers
// simulations need no tracer (block.go).
func newLogTracer(blockNumber, blockTimestamp uint64) *logTracer {
	return &logTracer{blockNumber: blockNumber, blockTimestamp: blockTimestamp}
}

func (t *logTracer) hooks() *tracing.Hooks {
	return &tracing.Hooks{OnEnter: t.onEnter, OnExit: t.onExit, OnLog: t.onLog}
}

func (t *logTracer) onEnter(depth int, typ byte, from, to common.Address, input []byte, gas uint64, value *big.Int) {
	t.logs = append(t.logs, nil) // a frame's logs, allocated at its first
	if op := vm.OpCode(typ); op != vm.DELEGATECALL && op != vm.CALLCODE && value != nil && value.Sign() > 0 {
		t.captureTransfer(from, to, value)
	}
}

func (t *logTracer) onExit(depth int, output []byte, gasUsed uint64, err error, reverted bool) {
	if depth == 0 {
		if reverted {
			t.count -= len(t.logs[0])
			t.logs[0] = nil
		}
		return
	}
	size := len(t.logs)
	if size <= 1 {
		return
	}
	call := t.logs[size-1]
	t.logs = t.logs[:size-1]
	size--
	// The logs of a failed frame are the latest ones, so their indexes are free again.
	if reverted {
		t.count -= len(call)
	} else {
		t.logs[size-1] = append(t.logs[size-1], call...)
	}
}

func (t *logTracer) onLog(log *types.Log) {
	t.captureLog(log.Address, log.Topics, log.Data)
}

func (t *logTracer) captureLog(address common.Address, topics []common.Hash, data []byte) {
	t.logs[len(t.logs)-1] = append(t.logs[len(t.logs)-1], &types.Log{
		Address:        address,
		Topics:         topics,
		Data:           data,
		BlockNumber:    t.blockNumber,
		BlockTimestamp: t.blockTimestamp,
		TxHash:         t.txHash,
		TxIndex:        t.txIdx,
		Index:          uint(t.count),
	})
	t.count++
}

func (t *logTracer) captureTransfer(from, to common.Address, value *big.Int) {
	var fromTopic, toTopic common.Hash
	copy(fromTopic[common.HashLength-common.AddressLength:], from[:])
	copy(toTopic[common.HashLength-common.AddressLength:], to[:])
	amount := common.BigToHash(value)
	t.captureLog(TransferLogAddress, []common.Hash{transferTopic, fromTopic, toTopic}, amount[:])
}

// reset prepares the tracer for the next call.
func (t *logTracer) reset(txHash common.Hash, txIdx uint) {
	t.logs = nil
	t.txHash = txHash
	t.txIdx = txIdx
}

// callLogs returns the logs of the finished call.
func (t *logTracer) callLogs() []*types.Log {
	if len(t.logs) == 0 {
		return nil
	}
	return t.logs[0]
}
