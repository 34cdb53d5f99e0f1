package api

import (
	"context"
	"log/slog"
	"time"

	"github.com/flashrpc/flashrpc/internal/api/chaindata"
	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/api/events"
	"github.com/flashrpc/flashrpc/internal/api/execute"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/exec"
	"github.com/flashrpc/flashrpc/internal/exec/simulate"
	"github.com/flashrpc/flashrpc/internal/logs"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// Defaults of Config's limits, go-ethereum's where it has one.
const (
	DefaultGasCap        = 50_000_000
	DefaultEVMTimeout    = 5 * time.Second
	DefaultLogsMaxResult = events.DefaultLogsMaxResult
	DefaultLogsMaxRange  = events.DefaultLogsMaxRange
	DefaultLogsTimeout   = events.DefaultLogsTimeout
	// DefaultFiltersMax is the most polling filters a node keeps, both endpoints together.
	DefaultFiltersMax = events.DefaultFiltersMax
)

// Config is one endpoint's configuration.
type Config struct {
	// Pending makes this the pre-confirmed endpoint: `pending` is the block in progress and the
	// pre-confirmation methods exist. Otherwise `pending` is the sealed head.
	Pending bool
	// ClientVersion is web3_clientVersion's answer.
	ClientVersion string
	// GasCap bounds the gas of eth_call and eth_estimateGas and is the shared budget of one
	// eth_simulateV1; zero means unlimited (the command's default is DefaultGasCap).
	GasCap uint64
	// EVMTimeout bounds one eth_call, eth_estimateGas or eth_simulateV1; zero means no limit
	// beyond the request timeout (the command's default is DefaultEVMTimeout).
	EVMTimeout time.Duration
	// LogsMaxResults is the most logs eth_getLogs returns before it refuses with -32005;
	// zero means DefaultLogsMaxResult.
	LogsMaxResults int
	// LogsMaxRange is the widest block range eth_getLogs accepts (-32602 beyond); zero means
	// DefaultLogsMaxRange.
	LogsMaxRange uint64
	// LogsTimeout bounds one eth_getLogs; past it the answer is -32005 "query timeout
	// exceeded" naming the blocks searched in time. Zero means DefaultLogsTimeout.
	LogsTimeout time.Duration
	// SimLimits bound eth_simulateV1 requests; zero fields take go-ethereum's defaults (256
	// blocks, 5,000 calls per block, 10,000 calls). GasCap is the request's shared gas budget
	// and EVMTimeout its time limit.
	SimLimits simulate.Limits
	// FilterTimeout is how long a polling filter lives without being polled; zero means
	// DefaultFilterTimeout (go-ethereum's 5 minutes).
	FilterTimeout time.Duration
	// FilterMaxBytes bounds the changes, in bytes of JSON, one polling filter holds between
	// polls (a filter that would hold more is removed); zero means DefaultFilterMaxBytes.
	FilterMaxBytes int
	// Now is the clock filter expiry reads; nil means time.Now.
	Now func() time.Time
	// TraceMaxLogBytes bounds the struct logs one transaction's trace collects (the
	// struct logger's "limit" option, which a request may lower); zero means no bound.
	TraceMaxLogBytes int
	// Logger receives warnings about failed subscriptions; nil discards.
	Logger *slog.Logger
	// Extend, when set, adds methods to the endpoint's table, or replaces some, after the
	// API's own are in it: the dev chain's dev methods (devapi.API.Register). Each goes in
	// with what it reads (core.Table.Add) and is routed by it as the API's own are; Extend
	// may keep the table's methods (core.Table.Methods) and call them.
	Extend func(*core.Table)
}

// Backend is what the API reads and drives.
type Backend struct {
	Chain *chain.Chain
	// Preconf holds the block in progress; nil when nothing is pre-confirmed (serve mode).
	Preconf *preconf.Preconf
	// Pool takes eth_sendRawTransaction's transactions.
	Pool *txpool.Pool
	// Logs is the log index behind eth_getLogs; nil makes every query scan header blooms and
	// receipts.
	Logs *logs.Index
	// Filters bounds the polling filters of the node, shared by both endpoints; nil gives
	// each API its own, of DefaultFiltersMax.
	Filters *events.FilterSlots
	// EVM bounds the EVM work of eth_call, eth_estimateGas and eth_simulateV1, shared by
	// both endpoints; nil gives each API its own, of GOMAXPROCS running and
	// exec.DefaultEVMQueue waiting.
	EVM *exec.Limiter
	// Upstream, when set, is the upstream chain Chain continues (fork mode, internal/fork):
	// every method is routed through it by what it reads (core.Reads).
	Upstream core.Upstream
	// Forward, when set, takes the signed transactions of eth_sendRawTransaction and its
	// Sync variant instead of Pool (a replica's sequencer; events/forward.go).
	Forward events.Forwarder
}

// API serves one endpoint: the concerns' methods over one shared Core. It is safe for
// concurrent use.
type API struct {
	cfg    Config
	core   *core.Core
	reads  *chaindata.API
	exec   *execute.API
	events *events.API
}

// New returns the API of one endpoint.
func New(cfg Config, b Backend) *API {
	c := core.New(core.Config{Pending: cfg.Pending, GasCap: cfg.GasCap, EVMTimeout: cfg.EVMTimeout, Logger: cfg.Logger},
		core.Backend{Chain: b.Chain, Preconf: b.Preconf, Pool: b.Pool, EVM: b.EVM, Upstream: b.Upstream})
	return &API{
		cfg:   cfg,
		core:  c,
		reads: chaindata.New(c, cfg.ClientVersion),
		exec:  execute.New(c, execute.Config{SimLimits: cfg.SimLimits, TraceMaxLogBytes: cfg.TraceMaxLogBytes}),
		events: events.New(c, events.Config{LogsMaxResults: cfg.LogsMaxResults, LogsMaxRange: cfg.LogsMaxRange, LogsTimeout: cfg.LogsTimeout,
			FilterTimeout: cfg.FilterTimeout, FilterMaxBytes: cfg.FilterMaxBytes, Now: cfg.Now},
			events.Backend{Logs: b.Logs, Filters: b.Filters, Forward: b.Forward}),
	}
}

// NewFilterSlots returns room for max polling filters (0 means DefaultFiltersMax), to share
// between the endpoints of a node (Backend.Filters).
func NewFilterSlots(max int) *events.FilterSlots { return events.NewFilterSlots(max) }

// Service returns the endpoint's method table. Every method is registered with what it reads
// (core.Reads), by which Backend.Upstream routes it: the API's own here, in the order of the
// concerns (chaindata: the reads; execute: calls, estimates, simulation, tracing; events:
// logs, filters, sends), then Config.Extend's.
func (a *API) Service() rpc.Service {
	r, x, e := a.reads, a.exec, a.events
	m := map[string]method{
		"web3_clientVersion":          {r.ClientVersion, noChainData},
		"web3_sha3":                   {r.Sha3, noChainData},
		"net_version":                 {r.NetVersion, noChainData},
		"net_listening":               {r.NetListening, noChainData},
		"net_peerCount":               {r.NetPeerCount, noChainData},
		"eth_chainId":                 {r.ChainID, noChainData},
		"eth_syncing":                 {r.Syncing, readsHead},
		"eth_accounts":                {r.Accounts, noChainData},
		"eth_getTransactionByHash":    {r.GetTransactionByHash, txAt(0)}, // reads the pool, then its view
		"eth_getRawTransactionByHash": {r.GetRawTransaction, txAt(0)},    // reads the pool, then its view
		"debug_getRawTransaction":     {r.GetRawTransaction, txAt(0)},

		// The execution methods load their view where they resolve their block, once they hold
		// an EVM slot.
		"eth_call":                 {x.Call, stateAt(1)},
		"eth_estimateGas":          {x.EstimateGas, stateAt(1)},
		"eth_createAccessList":     {x.CreateAccessList, stateAt(1)},
		"debug_traceTransaction":   {x.TraceTransaction, txAt(0)},
		"debug_traceBlockByNumber": {x.TraceBlockByNumber, blockNumberAt(0)},
		"debug_traceBlockByHash":   {x.TraceBlockByHash, blockHashAt(0)},
		"debug_traceCall":          {x.TraceCall, stateAt(1)},

		"eth_sendRawTransaction":          {e.SendRawTransaction, noChainData},
		"eth_sendRawTransactionSync":      {e.SendRawTransactionSync, noChainData},
		"eth_newFilter":                   {e.NewFilter, readsHead}, // fed by the streams, polled
		"eth_newBlockFilter":              {e.NewBlockFilter, readsHead},
		"eth_newPendingTransactionFilter": {e.NewPendingTransactionFilter, noChainData},
		"eth_getFilterChanges":            {e.GetFilterChanges, readsHead},
		"eth_getFilterLogs":               {e.GetFilterLogs, readsLogs},
		"eth_uninstallFilter":             {e.UninstallFilter, noChainData},
	}
	if a.cfg.Pending {
		m["eth_simulateV1"] = method{x.SimulateV1, stateAt(1)}
	} else {
		// Not served here, but not unknown either: its -32601 names the endpoint that serves
		// it. It reads nothing, so fork mode never sends it upstream.
		m["eth_simulateV1"] = method{func(context.Context, rpc.Params) (any, error) { return nil, core.ErrSimulateStandard }, noChainData}
	}
	for name, v := range map[string]viewEntry{
		"eth_blockNumber":                            {r.BlockNumber, readsHead},
		"eth_gasPrice":                               {r.GasPrice, readsHead},
		"eth_maxPriorityFeePerGas":                   {r.MaxPriorityFeePerGas, readsHead},
		"eth_feeHistory":                             {r.FeeHistory, blockNumberAt(1)},
		"eth_blobBaseFee":                            {r.BlobBaseFee, readsHead},
		"eth_baseFee":                                {r.BaseFee, readsHead},
		"eth_config":                                 {r.EthConfig, readsHead},
		"eth_capabilities":                           {r.Capabilities, readsHead},
		"eth_getBlockByNumber":                       {r.GetBlockByNumber, blockNumberAt(0)},
		"eth_getBlockByHash":                         {r.GetBlockByHash, blockHashAt(0)},
		"eth_getBlockTransactionCountByNumber":       {r.GetBlockTransactionCountByNumber, blockNumberAt(0)},
		"eth_getBlockTransactionCountByHash":         {r.GetBlockTransactionCountByHash, blockHashAt(0)},
		"eth_getUncleCountByBlockNumber":             {r.GetUncleCountByBlockNumber, blockNumberAt(0)},
		"eth_getUncleCountByBlockHash":               {r.GetUncleCountByBlockHash, blockHashAt(0)},
		"eth_getHeaderByNumber":                      {r.GetHeaderByNumber, blockNumberAt(0)},
		"eth_getHeaderByHash":                        {r.GetHeaderByHash, blockHashAt(0)},
		"eth_getUncleByBlockNumberAndIndex":          {r.GetUncleByBlockNumberAndIndex, blockNumberAt(0)},
		"eth_getUncleByBlockHashAndIndex":            {r.GetUncleByBlockHashAndIndex, blockHashAt(0)},
		"eth_getTransactionByBlockNumberAndIndex":    {r.GetTransactionByBlockNumberAndIndex, blockNumberAt(0)},
		"eth_getTransactionByBlockHashAndIndex":      {r.GetTransactionByBlockHashAndIndex, blockHashAt(0)},
		"eth_getRawTransactionByBlockNumberAndIndex": {r.GetRawTransactionByBlockNumberAndIndex, blockNumberAt(0)},
		"eth_getRawTransactionByBlockHashAndIndex":   {r.GetRawTransactionByBlockHashAndIndex, blockHashAt(0)},
		"eth_getTransactionReceipt":                  {r.GetTransactionReceipt, txAt(0)},
		"eth_getBlockReceipts":                       {r.GetBlockReceipts, blockAt(0)},
		"debug_getRawHeader":                         {r.GetRawHeader, blockAt(0)},
		"debug_getRawBlock":                          {r.GetRawBlock, blockAt(0)},
		"debug_getRawReceipts":                       {r.GetRawReceipts, blockAt(0)},
		"eth_getBalance":                             {r.GetBalance, stateAt(1)},
		"eth_getTransactionCount":                    {r.GetTransactionCount, stateAt(1)},
		"eth_getCode":                                {r.GetCode, stateAt(1)},
		"eth_getStorageAt":                           {r.GetStorageAt, stateAt(2)},
		"eth_getStorageValues":                       {r.GetStorageValues, stateAt(1)},
		"eth_getProof":                               {r.GetProof, core.Reads{Kind: core.ReadsState, Param: 2, AtFork: true}},

		"eth_getLogs": {e.GetLogs, readsLogs},
	} {
		m[name] = method{a.withView(v.fn), v.reads}
	}
	table := core.NewTable(make(map[string]rpc.Method, len(m)), a.route)
	for name, e := range m {
		table.Add(name, e.fn, e.reads)
	}
	if a.cfg.Extend != nil {
		a.cfg.Extend(table)
	}
	kinds := map[string]rpc.SubscribeFunc{}
	e.Subscriptions(kinds)
	return rpc.Service{Methods: table.Methods(), Subscriptions: kinds}
}

// route is the method to serve for name, which reads r: fn itself, or in fork mode the
// method Backend.Upstream routes by r.
func (a *API) route(name string, fn rpc.Method, r core.Reads) rpc.Method {
	if a.core.Up == nil {
		return fn
	}
	return a.core.Up.Route(name, r, fn, a.core.TxLocal)
}

// viewMethod is a method that answers from the view v (core.Core.View).
type viewMethod func(ctx context.Context, v preconf.View, p rpc.Params) (any, error)

// withView makes m a method that loads the endpoint's view when it is called: most methods
// are viewMethods, so that the view is loaded in one place, and tests run them on a view of
// their choosing. The few that load their own say why where they do.
func (a *API) withView(m viewMethod) rpc.Method {
	c := a.core
	return func(ctx context.Context, p rpc.Params) (any, error) { return m(ctx, c.View(), p) }
}

// method is one entry of an endpoint's method table: the method and what it reads.
type method struct {
	fn    rpc.Method
	reads core.Reads
}

// viewEntry is method for a method that reads one view.
type viewEntry struct {
	fn    viewMethod
	reads core.Reads
}

// The declarations of the method tables.
var (
	noChainData = core.Reads{Kind: core.ReadsNothing}
	readsHead   = core.Reads{Kind: core.ReadsHead}
	readsLogs   = core.Reads{Kind: core.ReadsLogs}
)

func blockNumberAt(i int) core.Reads { return core.Reads{Kind: core.ReadsBlockNumber, Param: i} }
func blockAt(i int) core.Reads       { return core.Reads{Kind: core.ReadsBlock, Param: i} }
func blockHashAt(i int) core.Reads   { return core.Reads{Kind: core.ReadsBlockHash, Param: i} }
func txAt(i int) core.Reads          { return core.Reads{Kind: core.ReadsTx, Param: i} }
func stateAt(i int) core.Reads       { return core.Reads{Kind: core.ReadsState, Param: i} }
