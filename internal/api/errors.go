package api

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/exec"
	"github.com/flashrpc/flashrpc/internal/exec/simulate"
	"github.com/flashrpc/flashrpc/internal/remote"
	"github.com/flashrpc/flashrpc/internal/rpc"
	"github.com/flashrpc/flashrpc/internal/sequencer"
)

// Every JSON-RPC error the methods build, and every mapping of a domain error (exec,
// sequencer, the log search) to a code, is here (STYLE.md rule 4), one function per kind;
// errors_test.go has a table per function. Errors that reach the transport unmapped are
// written as -32000 with their text, which is go-ethereum's default too. The generic
// parameter errors (-32602 "invalid argument i: …", "missing value …", "too many arguments
// …") are built by the decoders of params.go.

// Execution: eth_call, eth_estimateGas.

// callError maps an eth_call failure: a revert is code 3 with the revert data (execution-apis
// fixtures, go-ethereum); everything else is -32000 with go-ethereum's text.
func callError(err error) error {
	var revert *exec.RevertError
	if errors.As(err, &revert) {
		return &rpc.Error{Code: rpc.CodeReverted, Message: revert.Error(), Data: hexutil.Encode(revert.Data)}
	}
	return requestError(err)
}

// estimateError maps an eth_estimateGas failure: a revert is -32000 "execution reverted[:
// reason]" with the revert data (service.md section 7, decisions.md); go-ethereum uses code 3
// here, the one deliberate difference.
func estimateError(err error) error {
	var revert *exec.RevertError
	if errors.As(err, &revert) {
		return &rpc.Error{Code: rpc.CodeServer, Message: revert.Error(), Data: hexutil.Encode(revert.Data)}
	}
	return requestError(err)
}

// requestError maps errors every execution method shares: malformed arguments are invalid
// params, a busy EVM limiter is -32005; everything else is -32000.
func requestError(err error) error {
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

// simulateError maps a request-level eth_simulateV1 failure.
func simulateError(err error) error {
	var sim *simulate.Error
	if errors.As(err, &sim) {
		if code, ok := simErrorCodes[sim.Kind]; ok {
			return &rpc.Error{Code: code, Message: sim.Error()}
		}
	}
	return requestError(err)
}

// simCallError maps the failure of one simulated call, reported inside the result
// (json_simulate.go): a revert is code 3 with the revert data, any other EVM error -32015
// without data (go-ethereum's codes).
func simCallError(err error) (code int, data []byte, withData bool) {
	var revert *exec.RevertError
	if errors.As(err, &revert) {
		return rpc.CodeReverted, revert.Data, true
	}
	return rpc.CodeVMError, nil, false
}

// eth_getLogs.

// errLogsRangeReversed is go-ethereum's answer to a range whose start is after its end.
func errLogsRangeReversed() error { return rpc.InvalidParams("invalid block range params") }

// errLogsBeyondHead is go-ethereum's answer to a range that ends after the sealed head.
func errLogsBeyondHead() error {
	return rpc.InvalidParams("block range extends beyond current head block")
}

// errLogsRangeTooWide refuses a range wider than --rpc.logs.max-range (decisions.md).
func errLogsRangeTooWide(max uint64) error {
	return rpc.InvalidParams("exceed maximum block range %d", max)
}

// tooManyLogs is the -32005 answer (decisions.md; Infura's shape): it names the range that
// fits, the blocks before the one that crossed the cap. When that block alone holds too many,
// no range fits and the message says to narrow the filter.
func tooManyLogs(from, crossed uint64, alone bool, limit int) error {
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

// logsTimeoutError says the query's time ran out when it reached block reached: blocks
// [from, reached-1] were searched.
type logsTimeoutError struct{ from, reached uint64 }

func (e *logsTimeoutError) Error() string { return "query timeout exceeded" }

// logsError maps findLogs' errors: a query that ran out of --rpc.logs.timeout (timeout) is
// -32005 "query timeout exceeded" (Infura's text), naming the blocks it searched in time;
// when the request's own deadline (--rpc.timeout) passed first, the transport answers
// -32002. Other errors pass through.
func logsError(ctx context.Context, err error, timeout time.Duration) error {
	var t *logsTimeoutError
	if !errors.As(err, &t) {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	msg := fmt.Sprintf("query timeout exceeded (%v)", timeout)
	data := map[string]any{"timeout": timeout.String()}
	if t.reached > t.from {
		from, to := hexutil.EncodeUint64(t.from), hexutil.EncodeUint64(t.reached-1)
		msg += fmt.Sprintf(". Blocks [%s, %s] were searched in time: try a narrower range.", from, to)
		data["from"], data["to"] = from, to
	}
	return &rpc.Error{Code: rpc.CodeLimitExceeded, Message: msg, Data: data}
}

// Method parameters beyond the generic decoders.

// errTooManyPercentiles refuses an eth_feeHistory call with more than maxRewardPercentiles.
func errTooManyPercentiles(n int) error {
	return rpc.InvalidParams("invalid reward percentiles: %d given, at most %d", n, maxRewardPercentiles)
}

// Transactions.

// errNoTxPool answers a transaction sent to a node without a pool.
var errNoTxPool = rpc.NewError(rpc.CodeServer, "this node does not accept transactions")

// syncTimeoutError is eth_sendRawTransactionSync's answer when no receipt came within timeout
// (EIP-7966): code 4 with go-ethereum's message and the transaction hash as data.
func syncTimeoutError(timeout time.Duration, hash common.Hash) error {
	return &rpc.Error{
		Code:    rpc.CodeTxSyncTimeout,
		Message: fmt.Sprintf("The transaction was added to the transaction pool but wasn't processed in %v", timeout),
		Data:    hash.Hex(),
	}
}

// errSyncTimeoutTooLong refuses a timeout parameter (argument i) over MaxSyncTimeout.
func errSyncTimeoutTooLong(i int, ms uint64) error {
	return namedArgError(i, "timeout", fmt.Errorf("%d ms is over the maximum of %d ms", ms, MaxSyncTimeout/time.Millisecond))
}

// Fork mode.

// upstreamError maps what the upstream answered or failed to answer (fork mode): a JSON-RPC
// error the upstream answered reaches the client as it gave it; an upstream that could not
// answer (unreachable, timing out, 429 or 5xx after every retry) is -32000 "upstream <url>
// failed: <method>: <reason>".
func upstreamError(err error) error {
	var answer *remote.RPCError
	if errors.As(err, &answer) {
		return &rpc.Error{Code: answer.Code, Message: answer.Message, Data: answer.ErrorData()}
	}
	var failed *remote.UpstreamError
	if errors.As(err, &failed) {
		return &rpc.Error{Code: rpc.CodeServer, Message: failed.Error()}
	}
	return err
}

// Dev methods.

// devSealError maps dev_seal's failures: a listed transaction that is not pre-confirmed is
// an invalid argument 0; anything else is -32000 with its text.
func devSealError(err error) error {
	if errors.Is(err, sequencer.ErrNotPreconfirmed) {
		return rpc.InvalidParams("invalid argument 0: %v", err)
	}
	return err
}

// devDepositError maps dev_deposit's failures: more gas than a block has room for is an
// invalid argument 0 naming the field; anything else is -32000 with its text.
func devDepositError(err error) error {
	if errors.Is(err, sequencer.ErrDepositGas) {
		return rpc.InvalidParams("invalid argument 0: gas: %v", err)
	}
	return err
}

// eth_getProof.

// errTooManyProofKeys refuses more storage keys than go-ethereum's limit.
func errTooManyProofKeys(n int) error {
	return rpc.InvalidParams("too many storage keys requested (max %d, got %d)", maxProofKeys, n)
}

// errProofOfPending refuses a proof of the block in progress: its state has no trie until it
// seals.
func errProofOfPending(number, head uint64) error {
	return rpc.NewError(rpc.CodeServer, "no proof of the block in progress (%d): its state is not in a state trie until the block is sealed; ask for a sealed block such as latest (%d)", number, head)
}

// proofError maps chain.Proof's errors: missing state is -32000 naming the block, as are
// other failures.
func proofError(err error) error {
	if errors.Is(err, chain.ErrStateUnavailable) || errors.Is(err, chain.ErrNotProvable) {
		return rpc.NewError(rpc.CodeServer, "%v", err)
	}
	return upstreamError(err)
}

// eth_getStorageValues.

// errTooManyStorageValues refuses more slots than go-ethereum's limit (-38026, its code).
func errTooManyStorageValues() error {
	return rpc.NewError(rpc.CodeClientLimit, "too many slots (max %d)", maxStorageValues)
}

// errEmptyStorageValues refuses a request without slots, with go-ethereum's text.
func errEmptyStorageValues() error { return rpc.InvalidParams("empty request") }

// The raw data methods.

// errRawBlockNotFound answers a raw block method given an unknown block hash (go-ethereum
// answers an error there, and null for an unknown number).
func errRawBlockNotFound(hash common.Hash) error {
	return rpc.NewError(rpc.CodeServer, "block %s not found", hash.Hex())
}

// Tracing.

var (
	// errTxNotFound answers debug_traceTransaction for a transaction the request's view does
	// not have, with go-ethereum's text.
	errTxNotFound = rpc.NewError(rpc.CodeServer, "transaction not found")
	// errGenesisNotTraceable refuses tracing the genesis block, go-ethereum's text.
	errGenesisNotTraceable = rpc.NewError(rpc.CodeServer, "genesis is not traceable")
)

// errParentNotFound says a block to replay lacks its parent.
func errParentNotFound(block *types.Block) error {
	return rpc.NewError(rpc.CodeServer, "parent %s of block %d not found", block.ParentHash().Hex(), block.NumberU64())
}

// errTraceBlockNumberNotFound and errTraceBlockHashNotFound answer the block trace methods for
// a block that does not exist, with go-ethereum's texts.
func errTraceBlockNumberNotFound(n gethrpc.BlockNumber) error {
	return rpc.NewError(rpc.CodeServer, "block #%d not found", n)
}

func errTraceBlockHashNotFound(hash common.Hash) error {
	return rpc.NewError(rpc.CodeServer, "block %s not found", hash.Hex())
}

// traceError maps the debug_trace* failures: options the tracer cannot take (an unknown
// tracer, a malformed tracerConfig, a timeout that is no duration) are invalid params naming
// the options argument i; the rest as for every execution method (a tracer's own error, such
// as "execution timeout", and "tracing failed: …" are -32000).
func traceError(i int, err error) error {
	var te *exec.TracerError
	if errors.As(err, &te) {
		return rpc.InvalidParams("invalid argument %d: %v", i, err)
	}
	return requestError(err)
}

// Polling filters.

// errFilterNotFound answers an unknown, expired or uninstalled filter id, go-ethereum's text.
var errFilterNotFound = rpc.NewError(rpc.CodeServer, "filter not found")

// errFilterRange refuses a filter's block range that is not a live range, go-ethereum's text.
func errFilterRange() error { return rpc.InvalidParams("invalid block range params") }

// errTooManyFilters refuses a filter beyond the node's FilterSlots.
func errTooManyFilters(max int64, timeout time.Duration) error {
	return rpc.NewError(rpc.CodeLimitExceeded, "too many filters: this node keeps at most %d; uninstall some (eth_uninstallFilter) or let those no longer polled expire (after %v)", max, timeout)
}

// errFilterOverflow answers the first poll of a filter removed because it held more changes
// than a filter may; later polls get errFilterNotFound.
func errFilterOverflow(id string, maxBytes int) error {
	return rpc.NewError(rpc.CodeLimitExceeded, "filter %s removed: its changes grew over %d bytes before they were polled; poll more often or narrow the filter, then install it again", id, maxBytes)
}
