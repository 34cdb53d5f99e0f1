package chaingen

import (
	"context"
	"fmt"
	"math/big"
	"runtime"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/chain"
)

// Defaults of Config.
const (
	DefaultTokens      = 1_000
	DefaultPools       = 200
	DefaultSpenders    = 50
	DefaultAccounts    = 100_000
	DefaultSenders     = 10_000
	DefaultTxsPerBlock = 5
	DefaultRareEvery   = 5_000
	// GenesisTime is the generated chain's genesis timestamp; blocks follow every BlockTime.
	GenesisTime = 1_700_000_000
	// BlockTime is the spacing of generated blocks' timestamps, in seconds.
	BlockTime = 2

	windowBlocks = 256 // blocks planned, then built in parallel, at a time
)

// Config says what to generate. Zero fields take the defaults.
type Config struct {
	// Blocks is how many blocks to append after the writer's head.
	Blocks uint64
	// Seed drives every random choice; the same seed gives the same chain.
	Seed int64
	// Tokens, Pools and Spenders are how many token contracts, swap pools and approval
	// spenders the logs name (zero: DefaultTokens, DefaultPools, DefaultSpenders).
	Tokens, Pools, Spenders int
	// Accounts is how many accounts send and receive tokens, Senders how many of them send
	// transactions (zero: DefaultAccounts, DefaultSenders). Senders is at most Accounts.
	Accounts, Senders int
	// TxsPerBlock is the mean number of transactions per block, drawn uniformly from
	// [0, 2×TxsPerBlock] (zero: DefaultTxsPerBlock). A transaction emits one to three logs:
	// about 1.5 on average.
	TxsPerBlock int
	// RareEvery is the mean number of blocks between two RareTopic logs (zero:
	// DefaultRareEvery).
	RareEvery int
	// Workers is how many goroutines sign transactions (zero: GOMAXPROCS).
	Workers int
	// Progress, when set, is called after every few hundred blocks appended.
	Progress func(chain.ImportProgress)
}

func (c *Config) setDefaults() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.Tokens, DefaultTokens)
	def(&c.Pools, DefaultPools)
	def(&c.Spenders, DefaultSpenders)
	def(&c.Accounts, DefaultAccounts)
	def(&c.Senders, DefaultSenders)
	def(&c.TxsPerBlock, DefaultTxsPerBlock)
	def(&c.RareEvery, DefaultRareEvery)
	def(&c.Workers, runtime.GOMAXPROCS(0))
	c.Senders = min(c.Senders, c.Accounts)
	c.Tokens, c.Pools, c.Spenders = max(c.Tokens, 2), max(c.Pools, 2), max(c.Spenders, 2)
	c.Accounts, c.Senders = max(c.Accounts, 2), max(c.Senders, 2)
}

// Genesis returns the genesis of a generated chain: the dev chain's (chain.DevGenesis, every
// fork through Osaka) with no funded account and a GenesisTime timestamp.
func Genesis(chainID uint64) *core.Genesis {
	g := chain.DevGenesis(chainID, nil)
	g.Timestamp = GenesisTime
	return g
}

// Appender is where generated blocks go; *chain.BulkWriter is one.
type Appender interface {
	Head() *types.Header
	Config() *params.ChainConfig
	Append(block *types.Block, receipts types.Receipts) error
}

// built is one generated block before it is linked to its parent.
type built struct {
	block    *types.Block
	receipts types.Receipts
}

// Generate appends cfg.Blocks generated blocks to w, after its head. Sender nonces start at 0
// on every call.
func Generate(ctx context.Context, cfg Config, w Appender) error {
	cfg.setDefaults()
	pop := newPopulation(&cfg)
	config := w.Config()
	b := &builder{config: config, signer: types.LatestSigner(config), chainID: config.ChainID, keys: pop.keys}
	first := w.Head().Number.Uint64() + 1
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	windows := make(chan []built, 2)
	go func() {
		defer close(windows)
		for start := uint64(0); start < cfg.Blocks && ctx.Err() == nil; start += windowBlocks {
			n := min(windowBlocks, cfg.Blocks-start)
			plans := make([]blockPlan, n)
			for i := range plans {
				plans[i] = pop.planBlock(first+start+uint64(i), cfg.TxsPerBlock)
			}
			select {
			case windows <- b.buildAll(plans, cfg.Workers):
			case <-ctx.Done():
				return
			}
		}
	}()
	began := time.Now()
	done := uint64(0)
	for window := range windows {
		for _, bb := range window {
			if err := appendLinked(w, config, bb); err != nil {
				return err
			}
		}
		done += uint64(len(window))
		if cfg.Progress != nil {
			cfg.Progress(chain.ImportProgress{Done: int(done), Total: int(cfg.Blocks), Elapsed: time.Since(began)})
		}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("generate: interrupted after %d blocks: %w", done, err)
	}
	return nil
}

// appendLinked gives a built block its parent hash, base fee and timestamp, and appends it.
func appendLinked(w Appender, config *params.ChainConfig, bb built) error {
	parent := w.Head()
	h := bb.block.Header()
	h.ParentHash = parent.Hash()
	h.Root = parent.Root // the genesis state: generated blocks change no state
	h.Time = parent.Time + BlockTime
	h.BaseFee = eip1559.CalcBaseFee(config, parent, h.Time)
	return w.Append(bb.block.WithSeal(h), bb.receipts)
}

// buildAll builds the planned blocks on workers goroutines, in order.
func (b *builder) buildAll(plans []blockPlan, workers int) []built {
	out := make([]built, len(plans))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(plans); i += workers {
				out[i] = b.build(&plans[i])
			}
		})
	}
	wg.Wait()
	return out
}

// feeCap and tip of every generated transaction.
var (
	feeCap = big.NewInt(2 * params.GWei)
	tip    = big.NewInt(params.Wei * 1_000)
)
