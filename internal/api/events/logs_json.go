package events

import (
	"encoding/json"
	"sync"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/ethjson"
)

// The JSON answer of eth_getLogs: logCollector gathers it block by block up to the result
// cap; the fetch workers of an indexed search encode into jsonArenas it owns.

// arenaChunk is the size of the chunks a jsonArena encodes into.
const arenaChunk = 256 << 10

// arenaChunks recycles arena chunks from one query to the next. An indexed query encodes
// megabytes of JSON into them and logCollector.json copies it out, after which they are free.
// Without it each query allocates them anew, and the garbage collector, with a heap that is
// small beside the database's cache (which lives outside it), runs several cycles per query.
// It is a cache of scratch memory, not state: a query takes chunks and gives them back.
var arenaChunks = sync.Pool{New: func() any { return new([arenaChunk]byte) }}

// jsonArena is where a fetch worker encodes logs: chunks of arenaChunk bytes (more for a block
// whose logs need more) that are filled but never grown. A slice that grows copies what it
// holds each time, about four times over for a result of megabytes; a chunk is written once,
// and the runs handed out of it stay valid until release.
type jsonArena struct {
	buf    []byte              // the current chunk
	pooled []*[arenaChunk]byte // the chunks taken from arenaChunks
}

// reserve makes room for n more bytes after the run buf[start:] being written. When the chunk
// has too little left, the run moves to a new chunk; reserve returns where it now starts.
func (a *jsonArena) reserve(start, n int) int {
	if cap(a.buf)-len(a.buf) >= n {
		return start
	}
	run := a.buf[start:]
	var next []byte
	if len(run)+n <= arenaChunk {
		c := arenaChunks.Get().(*[arenaChunk]byte)
		a.pooled = append(a.pooled, c)
		next = c[:0]
	} else {
		next = make([]byte, 0, 2*(len(run)+n))
	}
	a.buf = append(next, run...)
	return 0
}

// release gives the arena's chunks back for other queries; the runs handed out of them must
// no longer be used.
func (a *jsonArena) release() {
	for _, c := range a.pooled {
		arenaChunks.Put(c)
	}
	a.buf, a.pooled = nil, nil
}

// logCollector gathers the JSON of an eth_getLogs result, block by block, up to the result
// cap. It owns the arenas the fetch workers encode into; reset recycles them, once json has
// copied the result out or the query failed.
type logCollector struct {
	parts  [][]byte // each a run of one block's logs, separated by commas, without brackets
	size   int      // bytes in parts
	count  int      // logs in parts
	max    int
	begin  uint64 // first block of the query
	arenas [fetchWorkers]jsonArena
}

func (a *API) newCollector(begin uint64) *logCollector {
	return &logCollector{max: a.cfg.LogsMaxResults, begin: begin}
}

// add appends found, the logs of block n, which must follow the blocks added before; past the
// cap it returns the -32005 answer.
func (c *logCollector) add(n uint64, found []*types.Log, ms *uint64) error {
	if len(found) == 0 {
		return nil
	}
	size := 0
	for _, l := range found {
		size += 1 + ethjson.MaxLogJSON(l)
	}
	enc := make([]byte, 0, size)
	for i, l := range found {
		if i > 0 {
			enc = append(enc, ',')
		}
		enc = ethjson.AppendLogMs(enc, l, ms)
	}
	return c.addJSON(n, len(found), enc)
}

// addJSON is add for logs encoded already: count logs of block n, as appendLog writes them,
// separated by commas. It keeps enc.
func (c *logCollector) addJSON(n uint64, count int, enc []byte) error {
	if count == 0 {
		return nil
	}
	first := c.count == 0
	c.parts = append(c.parts, enc)
	c.size += len(enc)
	c.count += count
	if c.count > c.max {
		return core.TooManyLogs(c.begin, n, first, c.max)
	}
	return nil
}

// reset drops what was collected and recycles the arenas.
func (c *logCollector) reset() {
	c.parts, c.size, c.count = nil, 0, 0
	for i := range c.arenas {
		c.arenas[i].release()
	}
}

// json returns the JSON array of the logs collected, in one new buffer of exactly its size.
func (c *logCollector) json() json.RawMessage {
	out := make([]byte, 0, c.size+len(c.parts)+2) // brackets, and commas between the parts
	out = append(out, '[')
	for i, p := range c.parts {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, p...)
	}
	return append(out, ']')
}
