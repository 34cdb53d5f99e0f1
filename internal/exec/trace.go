package exec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/eth/tracers"
	"github.com/ethereum/go-ethereum/eth/tracers/logger"
	_ "github.com/ethereum/go-ethereum/eth/tracers/native" // registers callTracer, prestateTracer, …
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// Tracing: debug_traceTransaction, debug_traceBlockBy*, debug_traceCall. The tracers are
// go-ethereum's (op-geth's): the struct logger of eth/tracers/logger by default, or a native
// tracer of eth/tracers/native by name (callTracer, flatCallTracer, prestateTracer,
// 4byteTracer, muxTracer, noopTracer, erc7562Tracer, keccak256PreimageTracer); they run as
// go-ethereum's eth/tracers API runs them (traceTx), on the same block context and rules as
// the block's execution (trace_block.go). JavaScript tracers are not built in: a tracer name
// that is not a native tracer is refused.

// DefaultTraceTimeout is the time limit of one transaction's trace when the request gives
// none, go-ethereum's.
const DefaultTraceTimeout = 5 * time.Second

// errExecutionTimeout stops a tracer whose time ran out, with go-ethereum's text.
var errExecutionTimeout = errors.New("execution timeout")

// TraceConfig is the options object of the debug_trace methods, go-ethereum's TraceConfig:
// the struct logger's options (enableMemory, disableStack, disableStorage,
// enableReturnData, limit) inline, then tracer, timeout, reexec (accepted and ignored: every
// state is kept) and tracerConfig. A field of the wrong type is a *DecodeError naming it.
type TraceConfig struct {
	*logger.Config
	Tracer       *string         `json:"tracer"`
	Timeout      *string         `json:"timeout"`
	Reexec       *uint64         `json:"reexec"`
	TracerConfig json.RawMessage `json:"tracerConfig"`
}

// UnmarshalJSON decodes the options, naming a wrongly typed field in its error.
func (c *TraceConfig) UnmarshalJSON(input []byte) error {
	type plain TraceConfig
	dec, err := DecodeObject[plain](input, "trace config")
	if err != nil {
		return err
	}
	*c = TraceConfig(dec)
	return nil
}

// TraceCallConfig is debug_traceCall's options: TraceConfig plus stateOverrides,
// blockOverrides and txIndex (trace on the state after that many transactions of the block
// instead of after the block).
type TraceCallConfig struct {
	TraceConfig
	StateOverrides StateOverride   `json:"stateOverrides"`
	BlockOverrides *BlockOverrides `json:"blockOverrides"`
	TxIndex        *hexutil.Uint   `json:"txIndex"`
}

// UnmarshalJSON decodes the options, naming a wrongly typed field in its error.
func (c *TraceCallConfig) UnmarshalJSON(input []byte) error {
	var base TraceConfig
	if err := base.UnmarshalJSON(input); err != nil {
		return err
	}
	type extra struct {
		StateOverrides StateOverride   `json:"stateOverrides"`
		BlockOverrides *BlockOverrides `json:"blockOverrides"`
		TxIndex        *hexutil.Uint   `json:"txIndex"`
	}
	dec, err := DecodeObject[extra](input, "trace config")
	if err != nil {
		return err
	}
	*c = TraceCallConfig{TraceConfig: base, StateOverrides: dec.StateOverrides, BlockOverrides: dec.BlockOverrides, TxIndex: dec.TxIndex}
	return nil
}

// A TracerError refuses a trace's options: an unknown tracer, a tracerConfig the tracer
// cannot take, a timeout that is no duration. Field names the option ("tracer",
// "tracerConfig", "timeout").
type TracerError struct {
	Field string
	Err   error
}

// Error names the option and says what is wrong with it.
func (e *TracerError) Error() string { return e.Field + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *TracerError) Unwrap() error { return e.Err }

// TraceLimits bound a trace: Timeout is the node's EVM time limit (--rpc.evmtimeout; zero
// means none), which caps each transaction's trace timeout; MaxLogBytes bounds the struct
// logs one transaction's trace collects (zero means no bound beyond the request's limit).
type TraceLimits struct {
	Timeout     time.Duration
	MaxLogBytes int
}

// tracerSpec is a validated choice of tracer, ready to make one per transaction.
type tracerSpec struct {
	name    string          // "" is the struct logger
	cfg     json.RawMessage // the tracer's tracerConfig
	log     logger.Config   // the struct logger's options
	timeout time.Duration   // per transaction
	config  *params.ChainConfig
}

// newTracerSpec validates c (nil means the defaults) for a chain and limits: the tracer must
// be a native tracer (muxTracer's members too), its tracerConfig must decode, the timeout
// must parse. The timeout is c's (default DefaultTraceTimeout) capped at lim.Timeout.
func newTracerSpec(c *TraceConfig, config *params.ChainConfig, lim TraceLimits) (*tracerSpec, error) {
	s := &tracerSpec{timeout: DefaultTraceTimeout, config: config}
	if c == nil {
		c = &TraceConfig{}
	}
	if c.Config != nil {
		s.log = *c.Config
	}
	if lim.MaxLogBytes > 0 && (s.log.Limit <= 0 || s.log.Limit > lim.MaxLogBytes) {
		s.log.Limit = lim.MaxLogBytes
	}
	if c.Timeout != nil {
		d, err := time.ParseDuration(*c.Timeout)
		if err != nil {
			return nil, &TracerError{Field: "timeout", Err: err}
		}
		if d <= 0 {
			return nil, &TracerError{Field: "timeout", Err: fmt.Errorf("%q is not a positive duration", *c.Timeout)}
		}
		s.timeout = d
	}
	if lim.Timeout > 0 && s.timeout > lim.Timeout {
		s.timeout = lim.Timeout
	}
	if c.Tracer == nil {
		return s, nil
	}
	s.name, s.cfg = *c.Tracer, c.TracerConfig
	if err := checkTracer(s.name, s.cfg, 0); err != nil {
		return nil, err
	}
	// Build one now so a tracerConfig the tracer refuses is reported before any work.
	if _, err := s.new(&tracers.Context{}); err != nil {
		return nil, err
	}
	return s, nil
}

// CheckTraceConfig reports what newTracerSpec would refuse in c for a chain with config: an
// unknown tracer, a tracerConfig it cannot take, a bad timeout (*TracerError). Callers check
// the options before they look for what to trace, so bad options are reported as such.
func CheckTraceConfig(c *TraceConfig, config *params.ChainConfig) error {
	_, err := newTracerSpec(c, config, TraceLimits{})
	return err
}

// checkTracer refuses names that are not native tracers, in muxTracer's configuration too:
// go-ethereum's directory would take them for JavaScript, which is not built in.
func checkTracer(name string, cfg json.RawMessage, depth int) error {
	if tracers.DefaultDirectory.IsJS(name) {
		return &TracerError{Field: "tracer", Err: fmt.Errorf("unknown tracer %q (JavaScript tracers are not supported); the tracers are %s", name, strings.Join(NativeTracers(), ", "))}
	}
	if name != "muxTracer" || len(cfg) == 0 {
		return nil
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(cfg, &members); err != nil {
		return &TracerError{Field: "tracerConfig", Err: fmt.Errorf("muxTracer: %w", err)}
	}
	if depth > 0 {
		return &TracerError{Field: "tracerConfig", Err: errors.New("muxTracer: a muxTracer cannot contain another")}
	}
	for member, mcfg := range members {
		if err := checkTracer(member, mcfg, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// NativeTracers lists the tracer names debug_trace* accept.
func NativeTracers() []string {
	names := []string{"callTracer", "flatCallTracer", "prestateTracer", "4byteTracer", "muxTracer",
		"noopTracer", "erc7562Tracer", "keccak256PreimageTracer"}
	return slices.DeleteFunc(names, tracers.DefaultDirectory.IsJS)
}

// new makes the tracer of one transaction.
func (s *tracerSpec) new(txctx *tracers.Context) (*tracers.Tracer, error) {
	if s.name == "" {
		l := logger.NewStructLogger(&s.log)
		return &tracers.Tracer{Hooks: l.Hooks(), GetResult: l.GetResult, Stop: l.Stop}, nil
	}
	t, err := tracers.DefaultDirectory.New(s.name, txctx, s.cfg, s.config)
	if err != nil {
		return nil, &TracerError{Field: "tracerConfig", Err: fmt.Errorf("%s: %w", s.name, err)}
	}
	return t, nil
}

// traceTx runs msg (of tx, at txctx's position) on statedb in the block context vmctx with a
// new tracer of s, like go-ethereum's eth/tracers traceTx: the transaction is applied as in a
// block (its state changes stay in statedb), the tracer is stopped with "execution timeout"
// when s.timeout runs out or ctx ends. precompiles, when not nil, replace the EVM's (state
// overrides that move them). It returns the tracer's result.
func (s *tracerSpec) traceTx(ctx context.Context, tx *types.Transaction, msg *core.Message, txctx *tracers.Context, vmctx vm.BlockContext, statedb *state.StateDB, precompiles vm.PrecompiledContracts) (json.RawMessage, error) {
	tracer, err := s.new(txctx)
	if err != nil {
		return nil, err
	}
	hooked := state.NewHookedState(statedb, tracer.Hooks)
	evm := vm.NewEVM(vmctx, hooked, s.config, oprollup.VMConfig(s.config, vm.Config{Tracer: tracer.Hooks, NoBaseFee: true}))
	if precompiles != nil {
		evm.SetPrecompiles(precompiles)
	}
	deadline, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	stop := context.AfterFunc(deadline, func() {
		tracer.Stop(errExecutionTimeout)
		evm.Cancel()
	})
	defer stop()
	statedb.SetTxContext(txctx.TxHash, txctx.TxIndex)
	_, err = core.ApplyTransactionWithEVM(msg, core.NewGasPool(msg.GasLimit), statedb, vmctx.BlockNumber, txctx.BlockHash, vmctx.Time, tx, evm)
	if err != nil {
		return nil, fmt.Errorf("tracing failed: %w", err)
	}
	if serr := statedb.Error(); serr != nil {
		return nil, fmt.Errorf("read state: %w", serr)
	}
	return tracer.GetResult()
}
