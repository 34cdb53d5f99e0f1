package main

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
)

// diskUsage returns the bytes dir's files occupy on disk, as du counts them (allocated blocks,
// not apparent sizes), so that a datadir's growth over a rate's blocks can be read.
func diskUsage(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) { // a file Pebble removed while we walked
				return nil
			}
			return err
		}
		info, err := d.Info()
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			total += st.Blocks * 512
		} else {
			total += info.Size()
		}
		return nil
	})
	return total, err
}

// growth is a datadir's growth over the blocks sealed during one rate's run (warm-up, window and
// the pool's drain): the blocks, the transactions they carry other than deposits, and the bytes
// the datadir gained.
type growth struct {
	blocks, txs uint64
	bytes       int64
}

func (g growth) String() string {
	if g.blocks == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f MB over %d blocks (%d txs): %.1f kB a block, %.2f kB a transaction",
		float64(g.bytes)/1e6, g.blocks, g.txs, float64(g.bytes)/1e3/float64(g.blocks), float64(g.bytes)/1e3/float64(max(1, g.txs)))
}

// fetchProfile fetches a CPU profile of d from the node's pprof endpoint (url, without the
// seconds parameter) into out.
func fetchProfile(url string, d time.Duration, out string) error {
	resp, err := http.Get(fmt.Sprintf("%s?seconds=%d", url, int(d.Seconds())))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// growthMark is a datadir's usage at a head.
type growthMark struct {
	head  uint64
	bytes int64
}

// mark reads the head and the datadir's usage now.
func mark(c *client, dir string) (growthMark, error) {
	head, err := c.blockNumber()
	if err != nil {
		return growthMark{}, err
	}
	n, err := diskUsage(dir)
	return growthMark{head, n}, err
}

// growth returns the datadir's growth since m and the blocks sealed since, with their
// transactions other than deposits.
func (m growthMark) growth(c *client, dir string) (growth, error) {
	now, err := mark(c, dir)
	if err != nil {
		return growth{}, err
	}
	g := growth{blocks: now.head - m.head, bytes: now.bytes - m.bytes}
	for n := m.head + 1; n <= now.head; n++ {
		raw, err := c.call("eth_getBlockByNumber", hexutil.Uint64(n), false)
		if err != nil {
			return growth{}, err
		}
		var b struct {
			Transactions []json.RawMessage `json:"transactions"`
			TimestampMs  *hexutil.Uint64   `json:"timestampMs"`
		}
		if err := json.Unmarshal(raw, &b); err != nil {
			return growth{}, err
		}
		deposits := 1 // the L1-attributes deposit, and Denim's BaseTime deposit
		if b.TimestampMs != nil {
			deposits = 2
		}
		g.txs += uint64(max(0, len(b.Transactions)-deposits))
	}
	return g, nil
}

// blockNumber returns the node's head.
func (c *client) blockNumber() (uint64, error) {
	raw, err := c.call("eth_blockNumber")
	if err != nil {
		return 0, err
	}
	var n hexutil.Uint64
	return uint64(n), json.Unmarshal(raw, &n)
}
