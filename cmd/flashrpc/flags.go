package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/flashrpc/flashrpc/internal/api"
	"github.com/flashrpc/flashrpc/internal/buildinfo"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/exec"
	"github.com/flashrpc/flashrpc/internal/exec/simulate"
	"github.com/flashrpc/flashrpc/internal/node"
	"github.com/flashrpc/flashrpc/internal/rpc"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// serverFlags are the flags every serving command shares: addresses, limits, logging. Most
// of them set a field of the node.Server they fill in; config adds what the others mean.
type serverFlags struct {
	node.Server
	opsFlags // ops.go: logs, metrics, profiler

	vhosts     string
	wsOrigins  string
	corsDomain string
}

func (f *serverFlags) register(fs *flag.FlagSet, dataDirHelp string) {
	fs.StringVar(&f.DataDir, "datadir", "", dataDirHelp)
	fs.StringVar(&f.HTTPAddr, "http.addr", "127.0.0.1", "interface both JSON-RPC endpoints listen on (HTTP and WebSocket)")
	fs.IntVar(&f.HTTPPort, "http.port", 8545, "port of the standard endpoint (sealed blocks)")
	fs.IntVar(&f.PreconfPort, "preconf.port", 8547, "port of the pre-confirmed endpoint (where the pending tag is the block in progress)")
	fs.IntVar(&f.DBCacheMB, "db.cache", 64, "block cache of the chain database (Pebble) in MB; wide eth_getLogs queries read receipts through it")
	fs.IntVar(&f.StateCacheMB, "state.cache", 512, fmt.Sprintf("memory for caching the state in MB, half for trie nodes and half for the snapshot's flat state (at least %d); both caches live outside the Go heap, so --memory-limit does not cover them: the resident memory grows by up to this much as they fill, then stays", chain.MinStateCacheMB))
	f.opsFlags.register(fs)
	registerMemoryLimit(fs)

	fs.Uint64Var(&f.API.GasCap, "rpc.gascap", api.DefaultGasCap, "gas cap of eth_call and eth_estimateGas (0 = unlimited)")
	fs.DurationVar(&f.API.EVMTimeout, "rpc.evmtimeout", api.DefaultEVMTimeout, "time limit of one eth_call, eth_estimateGas or eth_createAccessList, of all calls of one eth_simulateV1, and of each traced transaction (debug_trace*'s timeout is capped at it) (0 = none beyond --rpc.timeout)")
	fs.IntVar(&f.EVMConcurrency, "rpc.evm.concurrency", 0, "most EVM requests (eth_call, eth_estimateGas, eth_createAccessList, eth_simulateV1, debug_trace*) executing at once, both endpoints together (default: the CPUs this process may use)")
	fs.IntVar(&f.EVMQueue, "rpc.evm.queue", exec.DefaultEVMQueue, "most EVM requests waiting for one of the --rpc.evm.concurrency slots; beyond it a request gets error -32005 \"server busy\" at once")
	fs.IntVar(&f.API.SimLimits.MaxBlocks, "rpc.simulate.max-blocks", simulate.DefaultMaxBlocks, "most blocks one eth_simulateV1 simulates, and how far past its base block they may go (error -38026 beyond)")
	fs.IntVar(&f.API.SimLimits.MaxCallsPerBlock, "rpc.simulate.max-calls-per-block", simulate.DefaultMaxCallsPerBlock, "most calls in one simulated block (error -38026 beyond)")
	fs.IntVar(&f.API.SimLimits.MaxCalls, "rpc.simulate.max-calls", simulate.DefaultMaxCalls, "most calls in one eth_simulateV1 request (error -38026 beyond); all of them share the --rpc.gascap budget")
	fs.IntVar(&f.API.LogsMaxResults, "rpc.logs.max-results", api.DefaultLogsMaxResult, "most logs one eth_getLogs returns; more gives error -32005 naming a block range that fits")
	fs.Uint64Var(&f.API.LogsMaxRange, "rpc.logs.max-range", api.DefaultLogsMaxRange, "widest block range one eth_getLogs accepts; wider gives error -32602")
	fs.DurationVar(&f.API.LogsTimeout, "rpc.logs.timeout", api.DefaultLogsTimeout, "time limit of one eth_getLogs; past it error -32005 \"query timeout exceeded\" names the blocks searched in time")
	fs.IntVar(&f.FiltersMax, "rpc.filters.max", api.DefaultFiltersMax, "most polling filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter) the node keeps, both endpoints together; more gives error -32005")
	fs.BoolVar(&f.LogsIndex, "logs.index", true, "keep the log index behind eth_getLogs (false: every query scans header blooms and receipts; for comparison)")

	fs.Int64Var(&f.RPC.BodyLimit, "rpc.body-limit", rpc.DefaultBodyLimit, "largest HTTP request body in bytes (HTTP 413 beyond)")
	fs.IntVar(&f.RPC.BatchItemLimit, "rpc.batch-request-limit", rpc.DefaultBatchItemLimit, "most requests in one batch; a larger batch gets one error -32600 \"batch too large\", refused before its items are parsed")
	fs.IntVar(&f.RPC.BatchResponseLimit, "rpc.batch-response-max-size", rpc.DefaultBatchResponseLimit, "largest batch response in bytes; the calls after it get error -32003")
	fs.IntVar(&f.RPC.ResponseLimit, "rpc.response-limit", rpc.DefaultResponseLimit, "largest result of one call in bytes (error -32003 beyond)")
	fs.DurationVar(&f.RPC.RequestTimeout, "rpc.timeout", rpc.DefaultRequestTimeout, "time limit of one request or batch (error -32002 beyond); the HTTP write timeout is set just above it")
	fs.Int64Var(&f.RPC.WSReadLimit, "ws.read-limit", rpc.DefaultWSReadLimit, "largest WebSocket message in bytes; a larger one closes the connection (status 1009, the reason names the limit)")
	fs.StringVar(&f.vhosts, "http.vhosts", rpc.DefaultVirtualHost, "comma-separated host names requests may name in their Host header (403 otherwise; IP literals are always allowed; * allows any)")
	fs.StringVar(&f.wsOrigins, "ws.origins", "", "comma-separated origins WebSocket upgrades may come from, e.g. http://localhost:5173 (403 otherwise; * allows any; no Origin header is always allowed) (default: the endpoint's own http(s)://localhost|127.0.0.1|[::1]:PORT)")
	fs.StringVar(&f.corsDomain, "http.corsdomain", "", "comma-separated origins that get CORS headers, so their browser pages may call the endpoint (* allows any) (default: none)")
	fs.Int64Var(&f.RPC.WSSendQueueBytes, "ws.send-queue-bytes", rpc.DefaultWSSendQueueBytes, "byte budget of the unread messages of one WebSocket connection; a client whose backlog stays over it for --ws.slow-consumer-timeout, or reaches 4 times it, is disconnected as a slow consumer (a burst of notifications is not)")
	fs.DurationVar(&f.RPC.WSSlowConsumerTimeout, "ws.slow-consumer-timeout", rpc.DefaultWSSlowConsumerTimeout, "how long a WebSocket connection's unread backlog may stay over --ws.send-queue-bytes before it is disconnected as a slow consumer")

	d := txpool.DefaultConfig
	fs.Uint64Var(&f.TxPool.AccountSlots, "txpool.accountslots", d.AccountSlots, "executable transaction slots guaranteed per account (a slot is 32 KiB; a transaction takes 1 to 4)")
	fs.Uint64Var(&f.TxPool.GlobalSlots, "txpool.globalslots", d.GlobalSlots, "most executable transaction slots, all accounts together")
	fs.Uint64Var(&f.TxPool.AccountQueue, "txpool.accountqueue", d.AccountQueue, "most future-nonce (queued) transaction slots per account")
	fs.Uint64Var(&f.TxPool.GlobalQueue, "txpool.globalqueue", d.GlobalQueue, "most future-nonce (queued) transaction slots, all accounts together")
	fs.DurationVar(&f.TxPool.Lifetime, "txpool.lifetime", d.Lifetime, "how long an account's queued transactions are kept while none of its transactions becomes executable")
	fs.Uint64Var(&f.TxPool.PriceBump, "txpool.pricebump", d.PriceBump, "percentage by which a replacement must raise both fee caps of the pooled transaction with its nonce")
}

// check refuses limits that cannot work.
func (f *serverFlags) check() error {
	switch {
	case f.EVMConcurrency < 0:
		return errors.New("--rpc.evm.concurrency must be at least 1 (0: the CPUs)")
	case f.EVMQueue < 0:
		return errors.New("--rpc.evm.queue must not be negative")
	case f.FiltersMax < 1:
		return errors.New("--rpc.filters.max must be at least 1")
	case f.StateCacheMB < chain.MinStateCacheMB:
		return fmt.Errorf("--state.cache %d: want at least %d (MB): each of its two caches keeps 32 MB at least", f.StateCacheMB, chain.MinStateCacheMB)
	case f.TxPool.AccountSlots == 0 || f.TxPool.GlobalSlots == 0 || f.TxPool.AccountQueue == 0 || f.TxPool.GlobalQueue == 0 || f.TxPool.PriceBump == 0:
		return errors.New("--txpool.accountslots, --txpool.globalslots, --txpool.accountqueue, --txpool.globalqueue and --txpool.pricebump must be at least 1")
	case f.TxPool.Lifetime <= 0:
		return errors.New("--txpool.lifetime must be positive")
	}
	return f.opsFlags.check()
}

// config returns the node configuration the flags describe; logger receives the node's log
// lines.
func (f *serverFlags) config(logger *slog.Logger) node.Server {
	cfg := f.Server
	cfg.Logger, cfg.PProf, cfg.RPC.LogRequests = logger, f.pprof, f.logRequests
	if cfg.EVMConcurrency == 0 {
		cfg.EVMConcurrency = cpus
	}
	if f.metricsPort.set {
		cfg.Metrics = net.JoinHostPort(f.metricsAddr, strconv.Itoa(f.metricsPort.port))
	}
	cfg.RPC.WriteTimeout = cfg.RPC.RequestTimeout + 5*time.Second
	cfg.RPC.VirtualHosts, cfg.RPC.WSOrigins, cfg.RPC.CORSOrigins = splitList(f.vhosts), splitList(f.wsOrigins), splitList(f.corsDomain)
	if cfg.API.ClientVersion == "" { // dev's --client-version sets it
		cfg.API.ClientVersion = buildinfo.Read().ClientVersion()
	}
	// A trace's struct logs cannot be answered beyond the response limit anyway.
	cfg.API.TraceMaxLogBytes = cfg.RPC.ResponseLimit
	return cfg
}

// splitList splits a comma-separated flag value; an empty value gives nil (the default).
func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// devOptions are the dev command's own flags.
type devOptions struct {
	serverFlags
	chainID         uint64
	blockTime       time.Duration
	preconfInterval time.Duration
	accounts        int
	mnemonic        string
	feed            node.Feed // feed.go
	feedFormat      string
	fork            forkFlags     // fork.go
	chainFlags                    // chaintype.go
	codeSize        codeSizeFlags // codesize.go
	stateScheme     stateFlags    // statescheme.go
}

func devFlags(out io.Writer) (*flag.FlagSet, *devOptions) {
	o := new(devOptions)
	fs := newFlagSet("flashrpc dev", out, "Usage: flashrpc dev [flags]\n\nRuns the embedded dev chain: a sequencer that pre-confirms the pool's transactions every\n--preconf-interval and seals a block every --block-time, and both JSON-RPC endpoints.\n\n--network base-mainnet (or base-sepolia) runs Base as it runs since Denim (docs/denim.md): a block\nevery 200 ms with Base's millisecond time (the BaseTime deposit, timestampMs, blockTimestampMs), no\npre-confirmations, Base's forks through Azul and Denim from genesis. It runs WITHOUT Base's Beryl\n(mainnet 1782410400, Sepolia 1781805600: no B20 native-token precompiles at their addresses) and\nCobalt (mainnet 1790791200: EIP-8130 account-abstraction transactions are refused as an unknown\ntype), which flashrpc does not run; a fork or replica of live Base is refused for them.\n\nFlags:\n")
	o.register(fs, "directory that keeps the chain across restarts (default: a temporary directory removed on exit)")
	fs.Uint64Var(&o.chainID, "chain-id", chain.DefaultChainID, "chain id of a new dev chain (with --fork-url: default the upstream's; with --network: still 1337 by default, so nothing signed for it is valid on the real network)")
	o.chainFlags.registerChain(fs)
	fs.DurationVar(&o.blockTime, "block-time", 2*time.Second, "how often a block is sealed (0 = only on request: dev_seal) (with --network: the network's block time; 200ms on a chain that runs Denim, as base-* does)")
	fs.DurationVar(&o.preconfInterval, "preconf-interval", 200*time.Millisecond, "how often the block in progress is pre-confirmed (0 = only on request: dev_preconfirm) (with --network: the network's interval; a chain that runs Denim, --network base-*, has none, and a value is refused)")
	fs.IntVar(&o.accounts, "accounts", 10, "number of dev accounts funded with 10,000 ETH at genesis")
	registerFeed(fs, &o.feed)
	fs.StringVar(&o.feedFormat, "feed.format", "", "wire format of the feed: \"base\", Base's flashblocks (every diff carries the partial block's state root and hash), or \"subblocks\", OP's (zero roots; metadata carries receipts and balances) (default: the --network's format, OP Mainnet's subblocks, Unichain's base; base without --network)")
	o.fork.register(fs)
	o.codeSize.register(fs)
	o.stateScheme.register(fs)
	fs.StringVar(&o.API.ClientVersion, "client-version", "", "web3_clientVersion's answer (default: flashrpc/<version>/…); Hardhat's network helpers need one starting with \"anvil\" or \"HardhatNetwork\"")
	fs.StringVar(&o.mnemonic, "mnemonic", "", "BIP-39 mnemonic the dev accounts derive from (default: the well-known test mnemonic \"test test … junk\")")
	return fs, o
}
