//go:build gethbench

// Command gethlogs serves eth_getLogs with go-ethereum's own eth/filters over a flashrpc
// datadir, for the comparison in docs/benchmarks.md ("eth_getLogs over 1,000,000 blocks"). It
// is a benchmark tool only: the build tag keeps eth/filters (and the ~400 packages it pulls in)
// out of the node and of `go test ./...`.
//
//	go run -tags gethbench ./scripts/bench/gethlogs --datadir DIR [--index] [--addr 127.0.0.1:18845]
//
// It opens the chain database read-only and reads it with core/rawdb, as go-ethereum's node
// does. Without --index, searches are unindexed (header blooms, then receipts: a matcher
// backend that reports nothing indexed). With --index it builds go-ethereum's log index
// (core/filtermaps, EIP-7745) in a database of its own (--fm-dir, default DIR/gethlogs-fm)
// first, logging how long that took, and searches through it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/filtermaps"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/ethdb/pebble"
	"github.com/ethereum/go-ethereum/event"
	gethlog "github.com/ethereum/go-ethereum/log"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
)

func main() {
	datadir := flag.String("datadir", "", "flashrpc datadir (required)")
	addr := flag.String("addr", "127.0.0.1:18845", "HTTP address to serve JSON-RPC on")
	index := flag.Bool("index", false, "build and use go-ethereum's log index (core/filtermaps)")
	fmDir := flag.String("fm-dir", "", "directory of the filtermaps database (default DATADIR/gethlogs-fm)")
	cache := flag.Int("cache", 512, "block cache of the chain database (Pebble) in MB")
	flag.Parse()
	gethlog.SetDefault(gethlog.NewLogger(gethlog.NewTerminalHandlerWithLevel(os.Stderr, gethlog.LevelInfo, false)))
	if *datadir == "" {
		log.Fatal("--datadir is required")
	}
	if *fmDir == "" {
		*fmDir = filepath.Join(*datadir, "gethlogs-fm")
	}
	if err := run(*datadir, *addr, *index, *fmDir, *cache); err != nil {
		log.Fatal(err)
	}
}

func run(datadir, addr string, index bool, fmDir string, cache int) error {
	kv, err := pebble.New(filepath.Join(datadir, "chaindata"), cache, 256, "", true)
	if err != nil {
		return err
	}
	db := rawdb.NewDatabase(kv)
	defer db.Close()
	c := &chainReader{db: db}
	genesis := rawdb.ReadCanonicalHash(db, 0)
	if c.config = rawdb.ReadChainConfig(db, genesis); c.config == nil {
		return errors.New("no chain config in the datadir")
	}
	head := c.CurrentHeader()
	b := &backend{chain: c}
	if index {
		fmKV, err := pebble.New(fmDir, 256, 256, "", false)
		if err != nil {
			return err
		}
		defer fmKV.Close()
		view := filtermaps.NewChainView(c, head.Number.Uint64(), head.Hash())
		fm, err := filtermaps.NewFilterMaps(fmKV, view, 0, head.Number.Uint64(), filtermaps.DefaultParams, filtermaps.Config{History: 0})
		if err != nil {
			return err
		}
		start := time.Now()
		fm.Start()
		defer fm.Stop()
		fm.SetTarget(view, 0, head.Number.Uint64())
		fm.WaitIdle()
		log.Printf("filtermaps: indexed up to block %d in %v", head.Number, time.Since(start).Round(time.Millisecond))
		b.fm = fm
	}
	sys := filters.NewFilterSystem(b, filters.Config{})
	srv := rpc.NewServer()
	if err := srv.RegisterName("eth", filters.NewFilterAPI(sys)); err != nil {
		return err
	}
	if err := srv.RegisterName("eth", &headAPI{c}); err != nil {
		return err
	}
	log.Printf("go-ethereum eth/filters serving head %d on http://%s (filtermaps index %v)", head.Number, addr, index)
	return http.ListenAndServe(addr, srv)
}

// headAPI answers eth_blockNumber, which the load tool asks first.
type headAPI struct{ chain *chainReader }

// BlockNumber returns the head block's number.
func (h *headAPI) BlockNumber() hexutil.Uint64 {
	return hexutil.Uint64(h.chain.CurrentHeader().Number.Uint64())
}

// chainReader reads the chain database as core.BlockChain does, without one (the database is
// opened read-only). It is filtermaps' chain interface.
type chainReader struct {
	db     ethdb.Database
	config *params.ChainConfig
}

func (c *chainReader) CurrentHeader() *types.Header {
	hash := rawdb.ReadHeadHeaderHash(c.db)
	n, ok := rawdb.ReadHeaderNumber(c.db, hash)
	if !ok {
		fmt.Fprintln(os.Stderr, "no head header")
		os.Exit(1)
	}
	return rawdb.ReadHeader(c.db, hash, n)
}

func (c *chainReader) GetHeader(hash common.Hash, number uint64) *types.Header {
	return rawdb.ReadHeader(c.db, hash, number)
}

func (c *chainReader) GetCanonicalHash(number uint64) common.Hash {
	return rawdb.ReadCanonicalHash(c.db, number)
}

func (c *chainReader) GetReceiptsByHash(hash common.Hash) types.Receipts {
	n, ok := rawdb.ReadHeaderNumber(c.db, hash)
	if !ok {
		return nil
	}
	h := rawdb.ReadHeader(c.db, hash, n)
	if h == nil {
		return nil
	}
	return rawdb.ReadReceipts(c.db, hash, n, h.Time, c.config)
}

func (c *chainReader) GetRawReceipts(hash common.Hash, number uint64) types.Receipts {
	return rawdb.ReadRawReceipts(c.db, hash, number)
}

// backend is filters.Backend over the chain database (go-ethereum's eth/api_backend.go does
// the same over core.BlockChain).
type backend struct {
	chain *chainReader
	fm    *filtermaps.FilterMaps // nil: unindexed
}

func (b *backend) ChainDb() ethdb.Database { return b.chain.db }

func (b *backend) HeaderByNumber(_ context.Context, n rpc.BlockNumber) (*types.Header, error) {
	switch n {
	case rpc.LatestBlockNumber, rpc.PendingBlockNumber, rpc.SafeBlockNumber, rpc.FinalizedBlockNumber:
		return b.chain.CurrentHeader(), nil
	case rpc.EarliestBlockNumber:
		n = 0
	}
	hash := rawdb.ReadCanonicalHash(b.chain.db, uint64(n))
	return rawdb.ReadHeader(b.chain.db, hash, uint64(n)), nil
}

func (b *backend) HeaderByHash(_ context.Context, hash common.Hash) (*types.Header, error) {
	n, ok := rawdb.ReadHeaderNumber(b.chain.db, hash)
	if !ok {
		return nil, nil
	}
	return rawdb.ReadHeader(b.chain.db, hash, n), nil
}

func (b *backend) GetBody(_ context.Context, hash common.Hash, n rpc.BlockNumber) (*types.Body, error) {
	return rawdb.ReadBody(b.chain.db, hash, uint64(n)), nil
}

func (b *backend) GetReceipts(_ context.Context, hash common.Hash) (types.Receipts, error) {
	return b.chain.GetReceiptsByHash(hash), nil
}

func (b *backend) GetLogs(_ context.Context, hash common.Hash, n uint64) ([][]*types.Log, error) {
	return rawdb.ReadLogs(b.chain.db, hash, n), nil
}

func (b *backend) CurrentHeader() *types.Header                                    { return b.chain.CurrentHeader() }
func (b *backend) ChainConfig() *params.ChainConfig                                { return b.chain.config }
func (b *backend) HistoryPruningCutoff() uint64                                    { return 0 }
func (b *backend) SubscribeNewTxsEvent(chan<- core.NewTxsEvent) event.Subscription { return idle() }
func (b *backend) SubscribeChainEvent(chan<- core.ChainEvent) event.Subscription   { return idle() }
func (b *backend) SubscribeRemovedLogsEvent(chan<- core.RemovedLogsEvent) event.Subscription {
	return idle()
}
func (b *backend) SubscribeLogsEvent(chan<- []*types.Log) event.Subscription { return idle() }

func (b *backend) CurrentView() *filtermaps.ChainView {
	head := b.chain.CurrentHeader()
	return filtermaps.NewChainView(b.chain, head.Number.Uint64(), head.Hash())
}

func (b *backend) NewMatcherBackend() filtermaps.MatcherBackend {
	if b.fm != nil {
		return b.fm.NewMatcherBackend()
	}
	return unindexed{b}
}

// idle is a subscription that never delivers.
func idle() event.Subscription {
	return event.NewSubscription(func(quit <-chan struct{}) error { <-quit; return nil })
}

// unindexed is a matcher backend with nothing indexed: every search is an unindexed scan.
type unindexed struct{ b *backend }

var errNotIndexed = errors.New("not indexed")

func (unindexed) GetParams() *filtermaps.Params { return &filtermaps.DefaultParams }
func (unindexed) GetBlockLvPointer(context.Context, uint64) (uint64, error) {
	return 0, errNotIndexed
}
func (unindexed) GetFilterMapRows(context.Context, []uint32, uint32, bool) ([]filtermaps.FilterRow, error) {
	return nil, errNotIndexed
}
func (unindexed) GetLogByLvIndex(context.Context, uint64) (*types.Log, error) {
	return nil, errNotIndexed
}
func (u unindexed) SyncLogIndex(context.Context) (filtermaps.SyncRange, error) {
	return filtermaps.SyncRange{IndexedView: u.b.CurrentView()}, nil
}
func (unindexed) Close() {}
