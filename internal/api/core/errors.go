package core

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/exec"
	"github.com/flashrpc/flashrpc/internal/exec/simulate"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// Every error the methods build, and every mapping of a domain error (chain, exec, simulate,
// the log search) to a code, is here (STYLE.md rule 4), one function or sentinel per kind;
// errors_test.go has a table per function. Plain errors, and errors that
// reach the transport unmapped (a pool's rejection), are written as -32000 with their text,
// which is go-ethereum's default too. The generic parameter errors (-32602 "invalid argument
// i: …", "missing value …", "too many arguments …") are built by the decoders of internal/api/param.

// Block resolution (resolve.go): plain errors, -32000 with go-ethereum's texts.

var (
	ErrSafeNotFound      = errors.New("safe block not found")
	ErrFinalizedNotFound = errors.New("finalized block not found")
	ErrHeaderNotFound    = errors.New("header not found")
	ErrBlockNotFound     = errors.New("block not found")
	// ErrHashNotFound answers a block hash the chain does not have.
	ErrHashNotFound = errors.New("header for hash not found")
	// ErrHashNotCanonical answers a block hash with requireCanonical that is not on the
	// canonical chain (EIP-1898).
	ErrHashNotCanonical = errors.New("hash is not currently canonical")
)

// ErrInvalidBlockNumber refuses a negative block number that is no tag.
func ErrInvalidBlockNumber(n gethrpc.BlockNumber) error {
	return fmt.Errorf("invalid block number %d", n)
}

// Execution: eth_call, eth_estimateGas.

// CallError maps an eth_call failure: a revert is code 3 with the revert data (execution-apis
// fixtures, go-ethereum); everything else is -32000 with go-ethereum's text.
func CallError(err error) error {
	var revert *exec.RevertError
	if errors.As(err, &revert) {
		return &rpc.Error{Code: rpc.CodeReverted, Message: revert.Error(), Data: hexutil.Encode(revert.Data)}
	}
	return RequestError(err)
}

// EstimateError maps an eth_estimateGas failure: a revert is -32000 "execution reverted[:
// reason]" with the revert data (service.md section 7, decisions.md); go-ethereum uses code 3
// here, the one deliberate difference.
func EstimateError(err error) error {
	var revert *exec.RevertError
	if errors.As(err, &revert) {
		return &rpc.Error{Code: rpc.CodeServer, Message: revert.Error(), Data: hexutil.Encode(revert.Data)}
	}
	return RequestError(err)
}

// RequestError maps errors every execution method shares: malformed arguments are invalid
// params, a busy EVM limiter is -32005; everything else is -32000.
func RequestError(err error) error {
	var decode *exec.DecodeError
	if errors.As(err, &decode) {
		return rpc.InvalidParams("%v", err)
	}
	var busy *exec.BusyError
	if errors.As(err, &busy) {
		return &rpc.Error{Code: rpc.CodeLimitExceeded, Message: busy.Error()}
	}
	return &rpc.Error{Code: rpc.CodeServer, Message: err.Error()}
}

// eth_simulateV1.

// simErrorCodes maps request-level eth_simulateV1 failures to the execution-apis codes.
var simErrorCodes = map[simulate.ErrorKind]int{
	simulate.InvalidParams:           rpc.CodeInvalidParams,
	simulate.ClientLimitExceeded:     rpc.CodeClientLimit,
	simulate.BlockNumberInvalid:      rpc.CodeBlockNumberOrder,
	simulate.BlockTimestampInvalid:   rpc.CodeBlockTimestampOrder,
	simulate.BlockGasLimitReached:    rpc.CodeBlockGasLimit,
	simulate.NonceTooLow:             rpc.CodeNonceTooLow,
	simulate.NonceTooHigh:            rpc.CodeNonceTooHigh,
	simulate.BaseFeeTooLow:           rpc.CodeFeeCapTooLow,
	simulate.IntrinsicGas:            rpc.CodeIntrinsicGas,
	simulate.InsufficientFunds:       rpc.CodeInsufficientFunds,
	simulate.SenderNotEOA:            rpc.CodeSenderNotEOA,
	simulate.MaxInitCodeSizeExceeded: rpc.CodeMaxInitCode,
	simulate.Internal:                rpc.CodeInternal,
}

// SimulateError maps a request-level eth_simulateV1 failure.
func SimulateError(err error) error {
	var sim *simulate.Error
	if errors.As(err, &sim) {
		if code, ok := simErrorCodes[sim.Kind]; ok {
			return &rpc.Error{Code: code, Message: sim.Error()}
		}
	}
	return RequestError(err)
}

// SimCallError maps the failure of one simulated call, reported inside the result
// (execute's simulate_json.go): a revert is code 3 with the revert data, any other EVM error -32015
// without data (go-ethereum's codes).
func SimCallError(err error) (code int, data []byte, withData bool) {
	var revert *exec.RevertError
	if errors.As(err, &revert) {
		return rpc.CodeReverted, revert.Data, true
	}
	return rpc.CodeVMError, nil, false
}

// eth_getLogs.

// The bounds of a range and a blockHash filter (events' logs.go): plain errors, -32000 with
// go-ethereum's texts.
var (
	// ErrLogsUnknownBlock answers a blockHash filter naming a block the chain does not have.
	ErrLogsUnknownBlock      = errors.New("unknown block")
	ErrLogsSafeNotFound      = errors.New("safe header not found")
	ErrLogsFinalizedNotFound = errors.New("finalized header not found")
	ErrLogsNegativeBlock     = errors.New("negative block number")
)

// ErrLogsRangeReversed is go-ethereum's answer to a range whose start is after its end.
func ErrLogsRangeReversed() error { return rpc.InvalidParams("invalid block range params") }

// ErrLogsBeyondHead is go-ethereum's answer to a range that ends after the sealed head.
func ErrLogsBeyondHead() error {
	return rpc.InvalidParams("block range extends beyond current head block")
}

// ErrLogsRangeTooWide refuses a range wider than --rpc.logs.max-range (decisions.md).
func ErrLogsRangeTooWide(max uint64) error {
	return rpc.InvalidParams("exceed maximum block range %d", max)
}

// TooManyLogs is the -32005 answer (decisions.md; Infura's shape): it names the range that
// fits, the blocks before the one that crossed the cap. When that block alone holds too many,
// no range fits and the message says to narrow the filter.
func TooManyLogs(from, crossed uint64, alone bool, limit int) error {
	fits := crossed - 1
	msg := fmt.Sprintf("query returned more than %d results. Try with this block range [%s, %s].",
		limit, hexutil.EncodeUint64(from), hexutil.EncodeUint64(fits))
	if alone || crossed == from {
		fits = crossed
		msg = fmt.Sprintf("query returned more than %d results in block %s alone; narrow the filter by address or topics.",
			limit, hexutil.EncodeUint64(crossed))
		from = crossed
	}
	return &rpc.Error{Code: rpc.CodeLimitExceeded, Message: msg, Data: map[string]any{
		"from": hexutil.EncodeUint64(from), "to": hexutil.EncodeUint64(fits), "limit": limit,
	}}
}

// LogsTimeoutError says the query's time ran out when it reached block Reached: blocks
// [From, Reached-1] were searched.
type LogsTimeoutError struct{ From, Reached uint64 }

// Error implements error.
func (e *LogsTimeoutError) Error() string { return "query timeout exceeded" }

// LogsError maps findLogs' errors: a query that ran out of --rpc.logs.timeout (timeout) is
// -32005 "query timeout exceeded" (Infura's text), naming the blocks it searched in time;
// when the request's own deadline (--rpc.timeout) passed first, the transport answers
// -32002. Other errors pass through.
func LogsError(ctx context.Context, err error, timeout time.Duration) error {
	var t *LogsTimeoutError
	if !errors.As(err, &t) {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	msg := fmt.Sprintf("query timeout exceeded (%v)", timeout)
	data := map[string]any{"timeout": timeout.String()}
	if t.Reached > t.From {
		from, to := hexutil.EncodeUint64(t.From), hexutil.EncodeUint64(t.Reached-1)
		msg += fmt.Sprintf(". Blocks [%s, %s] were searched in time: try a narrower range.", from, to)
		data["from"], data["to"] = from, to
	}
	return &rpc.Error{Code: rpc.CodeLimitExceeded, Message: msg, Data: data}
}

// Method parameters beyond the generic decoders.

// ErrTooManyPercentiles refuses an eth_feeHistory call with n reward percentiles, more than
// max.
func ErrTooManyPercentiles(n, max int) error {
	return rpc.InvalidParams("invalid reward percentiles: %d given, at most %d", n, max)
}

// ErrRewardPercentile refuses an eth_feeHistory reward percentile outside [0, 100], with
// go-ethereum's text (-32000, as go-ethereum answers it).
func ErrRewardPercentile(pct float64) error {
	return fmt.Errorf("invalid reward percentile: %f", pct)
}

// ErrRewardPercentileOrder refuses reward percentile i that is not above percentile i-1
// (prev), with go-ethereum's text (-32000).
func ErrRewardPercentileOrder(i int, prev, pct float64) error {
	return fmt.Errorf("invalid reward percentile: #%d:%f >= #%d:%f", i-1, prev, i, pct)
}

// ErrFeeBlockUnavailable answers an eth_feeHistory whose newest block the view does not
// have, with go-ethereum's text (-32000).
var ErrFeeBlockUnavailable = errors.New("requested block is not available")

// ErrSimulateStandard is eth_simulateV1's answer on the standard endpoint (-32601, as for a
// method it does not serve), naming the endpoint that serves it (decisions.md).
var ErrSimulateStandard = rpc.NewError(rpc.CodeMethodNotFound, "the method eth_simulateV1 does not exist/is not available on the standard endpoint: the pre-confirmed endpoint serves it (--preconf.port, default 8547)")

// Transactions.

// ErrNoTxPool answers a transaction sent to a node without a pool.
var ErrNoTxPool = rpc.NewError(rpc.CodeServer, "this node does not accept transactions")

// SyncTimeoutError is eth_sendRawTransactionSync's answer when no receipt came within timeout
// (EIP-7966): code 4 with go-ethereum's message and the transaction hash as data.
func SyncTimeoutError(timeout time.Duration, hash common.Hash) error {
	return &rpc.Error{
		Code:    rpc.CodeTxSyncTimeout,
		Message: fmt.Sprintf("The transaction was added to the transaction pool but wasn't processed in %v", timeout),
		Data:    hash.Hex(),
	}
}

// ErrSyncTimeoutTooLong refuses a timeout parameter (argument i) of ms milliseconds, over
// max.
func ErrSyncTimeoutTooLong(i int, ms uint64, max time.Duration) error {
	return param.NamedArgError(i, "timeout", fmt.Errorf("%d ms is over the maximum of %d ms", ms, max/time.Millisecond))
}

// eth_getProof.

// ErrTooManyProofKeys refuses n storage keys, more than max (go-ethereum's limit).
func ErrTooManyProofKeys(n, max int) error {
	return rpc.InvalidParams("too many storage keys requested (max %d, got %d)", max, n)
}

// ErrProofKey refuses storage key k of eth_getProof's parameter i (storageKeys), the string
// s, for the reason err.
func ErrProofKey(i, k int, s string, err error) error {
	return param.NamedArgError(i, "storageKeys", fmt.Errorf("key %d: %w: %q", k, err, s))
}

// ErrProofOfPending refuses a proof of the block in progress: its state has no trie until it
// seals.
func ErrProofOfPending(number, head uint64) error {
	return rpc.NewError(rpc.CodeServer, "no proof of the block in progress (%d): its state is not in a state trie until the block is sealed; ask for a sealed block such as latest (%d)", number, head)
}

// ProofError maps chain.Proof's errors: missing state is -32000 naming the block, as are
// other failures; an upstream's failure (fork mode) is the JSON-RPC error internal/fork built.
func ProofError(err error) error {
	if errors.Is(err, chain.ErrStateUnavailable) || errors.Is(err, chain.ErrNotProvable) {
		return rpc.NewError(rpc.CodeServer, "%v", err)
	}
	return err
}

// eth_getStorageValues.

// ErrTooManyStorageValues refuses more slots than max, go-ethereum's limit (-38026, its
// code).
func ErrTooManyStorageValues(max int) error {
	return rpc.NewError(rpc.CodeClientLimit, "too many slots (max %d)", max)
}

// ErrEmptyStorageValues refuses a request without slots, with go-ethereum's text.
func ErrEmptyStorageValues() error { return rpc.InvalidParams("empty request") }

// The raw data methods.

// ErrRawBlockNotFound answers a raw block method given an unknown block hash (go-ethereum
// answers an error there, and null for an unknown number).
func ErrRawBlockNotFound(hash common.Hash) error {
	return rpc.NewError(rpc.CodeServer, "block %s not found", hash.Hex())
}

// Tracing.

var (
	// ErrTxNotFound answers debug_traceTransaction for a transaction the request's view does
	// not have, with go-ethereum's text.
	ErrTxNotFound = rpc.NewError(rpc.CodeServer, "transaction not found")
	// ErrGenesisNotTraceable refuses tracing the genesis block, go-ethereum's text.
	ErrGenesisNotTraceable = rpc.NewError(rpc.CodeServer, "genesis is not traceable")
)

// ErrParentNotFound says a block to replay lacks its parent.
func ErrParentNotFound(block *types.Block) error {
	return rpc.NewError(rpc.CodeServer, "parent %s of block %d not found", block.ParentHash().Hex(), block.NumberU64())
}

// ErrTraceBlockNumberNotFound and ErrTraceBlockHashNotFound answer the block trace methods for
// a block that does not exist, with go-ethereum's texts.
func ErrTraceBlockNumberNotFound(n gethrpc.BlockNumber) error {
	return rpc.NewError(rpc.CodeServer, "block #%d not found", n)
}

// ErrTraceBlockHashNotFound: see ErrTraceBlockNumberNotFound.
func ErrTraceBlockHashNotFound(hash common.Hash) error {
	return rpc.NewError(rpc.CodeServer, "block %s not found", hash.Hex())
}

// TraceError maps the debug_trace* failures: options the tracer cannot take (an unknown
// tracer, a malformed tracerConfig, a timeout that is no duration) are invalid params naming
// the options argument i; the rest as for every execution method (a tracer's own error, such
// as "execution timeout", and "tracing failed: …" are -32000).
func TraceError(i int, err error) error {
	var te *exec.TracerError
	if errors.As(err, &te) {
		return param.ArgError(i, err)
	}
	return RequestError(err)
}

// Polling filters.

// ErrFilterNotFound answers an unknown, expired or uninstalled filter id, go-ethereum's text.
var ErrFilterNotFound = rpc.NewError(rpc.CodeServer, "filter not found")

// ErrFilterRange refuses a filter's block range that is not a live range, go-ethereum's text.
func ErrFilterRange() error { return rpc.InvalidParams("invalid block range params") }

// ErrTooManyFilters refuses a filter beyond the node's FilterSlots.
func ErrTooManyFilters(max int64, timeout time.Duration) error {
	return rpc.NewError(rpc.CodeLimitExceeded, "too many filters: this node keeps at most %d; uninstall some (eth_uninstallFilter) or let those no longer polled expire (after %v)", max, timeout)
}

// ErrFilterOverflow answers the first poll of a filter removed because it held more changes
// than a filter may; later polls get errFilterNotFound.
func ErrFilterOverflow(id string, maxBytes int) error {
	return rpc.NewError(rpc.CodeLimitExceeded, "filter %s removed: its changes grew over %d bytes before they were polled; poll more often or narrow the filter, then install it again", id, maxBytes)
}
