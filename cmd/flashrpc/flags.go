package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/flashrpc/flashrpc/internal/api"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/exec"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// serverFlags are the flags every serving command shares: addresses, limits, logging.
type serverFlags struct {
	dataDir     string
	httpAddr    string
	httpPort    int
	preconfPort int
	logLevel    string
	pprofAddr   string
	dbCache     int

	gasCap         uint64
	evmTimeout     time.Duration
	simLimits      exec.SimLimits
	logsMaxResults int
	logsMaxRange   uint64
	logsTimeout    time.Duration
	logsIndex      bool

	bodyLimit          int64
	batchItemLimit     int
	batchResponseLimit int
	responseLimit      int
	requestTimeout     time.Duration
	wsReadLimit        int64
	wsSendQueue        int
	wsSendQueueBytes   int64
}

func (f *serverFlags) register(fs *flag.FlagSet, dataDirHelp string) {
	fs.StringVar(&f.dataDir, "datadir", "", dataDirHelp)
	fs.StringVar(&f.httpAddr, "http.addr", "127.0.0.1", "interface both JSON-RPC endpoints listen on (HTTP and WebSocket)")
	fs.IntVar(&f.httpPort, "http.port", 8545, "port of the standard endpoint (sealed blocks)")
	fs.IntVar(&f.preconfPort, "preconf.port", 8547, "port of the pre-confirmed endpoint (where the pending tag is the block in progress)")
	fs.StringVar(&f.logLevel, "log.level", "info", "log level: debug, info, warn or error")
	fs.IntVar(&f.dbCache, "db.cache", 64, "block cache of the chain database (Pebble) in MB; wide eth_getLogs queries read receipts through it")
	fs.StringVar(&f.pprofAddr, "pprof.addr", "", "serve Go's profiler (/debug/pprof/) on this address, e.g. 127.0.0.1:6060 (default: off)")

	fs.Uint64Var(&f.gasCap, "rpc.gascap", api.DefaultGasCap, "gas cap of eth_call and eth_estimateGas (0 = unlimited)")
	fs.DurationVar(&f.evmTimeout, "rpc.evmtimeout", api.DefaultEVMTimeout, "time limit of one eth_call, and of all calls of one eth_simulateV1 (0 = none beyond --rpc.timeout)")
	fs.IntVar(&f.simLimits.MaxBlocks, "rpc.simulate.max-blocks", exec.DefaultSimMaxBlocks, "most blocks one eth_simulateV1 simulates, and how far past its base block they may go (error -38026 beyond)")
	fs.IntVar(&f.simLimits.MaxCallsPerBlock, "rpc.simulate.max-calls-per-block", exec.DefaultSimMaxCallsPerBlock, "most calls in one simulated block (error -38026 beyond)")
	fs.IntVar(&f.simLimits.MaxCalls, "rpc.simulate.max-calls", exec.DefaultSimMaxCalls, "most calls in one eth_simulateV1 request (error -38026 beyond); all of them share the --rpc.gascap budget")
	fs.IntVar(&f.logsMaxResults, "rpc.logs.max-results", api.DefaultLogsMaxResult, "most logs one eth_getLogs returns; more gives error -32005 naming a block range that fits")
	fs.Uint64Var(&f.logsMaxRange, "rpc.logs.max-range", api.DefaultLogsMaxRange, "widest block range one eth_getLogs accepts; wider gives error -32602")
	fs.DurationVar(&f.logsTimeout, "rpc.logs.timeout", api.DefaultLogsTimeout, "time limit of one eth_getLogs; past it error -32005 \"query timeout exceeded\" names the blocks searched in time")
	fs.BoolVar(&f.logsIndex, "logs.index", true, "keep the log index behind eth_getLogs (false: every query scans header blooms and receipts; for comparison)")

	fs.Int64Var(&f.bodyLimit, "rpc.body-limit", rpc.DefaultBodyLimit, "largest HTTP request body in bytes (HTTP 413 beyond)")
	fs.IntVar(&f.batchItemLimit, "rpc.batch-limit", rpc.DefaultBatchItemLimit, "most calls in one batch request")
	fs.IntVar(&f.batchResponseLimit, "rpc.batch-response-limit", rpc.DefaultBatchResponseLimit, "largest batch response in bytes; later calls get error -32003")
	fs.IntVar(&f.responseLimit, "rpc.response-limit", rpc.DefaultResponseLimit, "largest result of one call in bytes (error -32003 beyond)")
	fs.DurationVar(&f.requestTimeout, "rpc.timeout", rpc.DefaultRequestTimeout, "time limit of one request or batch (error -32002 beyond); the HTTP write timeout is set just above it")
	fs.Int64Var(&f.wsReadLimit, "ws.read-limit", rpc.DefaultWSReadLimit, "largest WebSocket message in bytes")
	fs.IntVar(&f.wsSendQueue, "ws.send-queue", rpc.DefaultWSSendQueue, "messages buffered per WebSocket connection; a client that falls further behind is disconnected")
	fs.Int64Var(&f.wsSendQueueBytes, "ws.send-queue-bytes", rpc.DefaultWSSendQueueBytes, "bytes buffered per WebSocket connection; a subscriber further behind is disconnected (a message always fits an empty queue)")
}

func (f *serverFlags) rpcConfig(logger *slog.Logger) rpc.Config {
	return rpc.Config{
		BodyLimit:          f.bodyLimit,
		BatchItemLimit:     f.batchItemLimit,
		BatchResponseLimit: f.batchResponseLimit,
		ResponseLimit:      f.responseLimit,
		RequestTimeout:     f.requestTimeout,
		WSReadLimit:        f.wsReadLimit,
		WSSendQueue:        f.wsSendQueue,
		WSSendQueueBytes:   f.wsSendQueueBytes,
		WriteTimeout:       f.requestTimeout + 5*time.Second,
		Logger:             logger,
	}
}

func (f *serverFlags) apiConfig(pending bool, logger *slog.Logger) api.Config {
	return api.Config{
		Pending:        pending,
		ClientVersion:  clientVersion,
		GasCap:         f.gasCap,
		EVMTimeout:     f.evmTimeout,
		LogsMaxResults: f.logsMaxResults,
		LogsMaxRange:   f.logsMaxRange,
		LogsTimeout:    f.logsTimeout,
		SimLimits:      f.simLimits,
		Logger:         logger,
	}
}

func (f *serverFlags) logger(w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return nil, fmt.Errorf("--log.level: %q is not one of debug, info, warn, error", f.logLevel)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})), nil
}

// devOptions are the dev command's own flags.
type devOptions struct {
	serverFlags
	chainID         uint64
	blockTime       time.Duration
	preconfInterval time.Duration
	accounts        int
	mnemonic        string
	feed            feedFlags // feed.go
	chainFlags                // chaintype.go
}

func devFlags(out io.Writer) (*flag.FlagSet, *devOptions) {
	o := new(devOptions)
	fs := flag.NewFlagSet("flashrpc dev", flag.ContinueOnError)
	fs.SetOutput(out)
	o.register(fs, "directory that keeps the chain across restarts (default: a temporary directory removed on exit)")
	fs.Uint64Var(&o.chainID, "chain-id", chain.DefaultChainID, "chain id of a new dev chain")
	o.chainFlags.registerChain(fs)
	fs.DurationVar(&o.blockTime, "block-time", 2*time.Second, "how often a block is sealed (0 = only on request: dev_seal)")
	fs.DurationVar(&o.preconfInterval, "preconf-interval", 200*time.Millisecond, "how often the block in progress is pre-confirmed (0 = only on request: dev_preconfirm)")
	fs.IntVar(&o.accounts, "accounts", 10, "number of dev accounts funded with 10,000 ETH at genesis")
	o.feed.register(fs)
	fs.StringVar(&o.mnemonic, "mnemonic", "", "BIP-39 mnemonic the dev accounts derive from (default: the well-known test mnemonic \"test test … junk\")")
	fs.Usage = func() {
		fmt.Fprintf(out, "Usage: flashrpc dev [flags]\n\nRuns the embedded dev chain: a sequencer that pre-confirms the pool's transactions every\n--preconf-interval and seals a block every --block-time, and both JSON-RPC endpoints.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	return fs, o
}

// clientVersion is web3_clientVersion's answer.
const clientVersion = "flashrpc/v0.1.0"
