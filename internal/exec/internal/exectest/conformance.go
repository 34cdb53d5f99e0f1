package exectest

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
)

// ConformanceDir returns the directory of the execution-apis fixtures
// (reference/conformance.md): $FLASHRPC_CONFORMANCE_DIR, or ../shared/conformance beside the
// repository. Without them it skips t, or fails it under CI or when the variable is set.
func ConformanceDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("FLASHRPC_CONFORMANCE_DIR")
	if dir == "" {
		dir = filepath.Join(repoRoot(t), "..", "shared", "conformance")
	}
	if _, err := os.Stat(filepath.Join(dir, "chain.rlp")); err != nil {
		if os.Getenv("CI") != "" || os.Getenv("FLASHRPC_CONFORMANCE_DIR") != "" {
			t.Fatalf("conformance fixtures not found at %s: CI must run the suite: %v", dir, err)
		}
		t.Skipf("conformance fixtures not found at %s (set FLASHRPC_CONFORMANCE_DIR); the suite needs ../shared beside the repository: %v", dir, err)
	}
	return dir
}

// repoRoot is the directory of go.mod above the test's working directory (its package's).
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			t.Fatalf("no go.mod above %s", dir)
		}
	}
}

var (
	hiveChainOnce sync.Once
	hiveChain     *core.BlockChain
	hiveChainErr  error
)

// LoadConformanceChain imports dir's genesis.json and chain.rlp once per test binary.
func LoadConformanceChain(t *testing.T, dir string) *core.BlockChain {
	t.Helper()
	hiveChainOnce.Do(func() { hiveChain, hiveChainErr = importHiveChain(dir) })
	if hiveChainErr != nil {
		t.Fatalf("import conformance chain: %v", hiveChainErr)
	}
	return hiveChain
}

func importHiveChain(dir string) (*core.BlockChain, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "genesis.json"))
	if err != nil {
		return nil, err
	}
	genesis := new(core.Genesis)
	if err := json.Unmarshal(raw, genesis); err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(dir, "chain.rlp"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var blocks types.Blocks
	stream := rlp.NewStream(f, 0)
	for {
		var b types.Block
		if err := stream.Decode(&b); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, err
		}
		blocks = append(blocks, &b)
	}
	bc, err := core.NewBlockChain(rawdb.NewMemoryDatabase(), genesis, beacon.New(ethash.NewFaker()), core.DefaultConfig().WithArchive(true))
	if err != nil {
		return nil, err
	}
	if _, err := bc.InsertChain(blocks); err != nil {
		bc.Stop()
		return nil, err
	}
	head := bc.CurrentBlock()
	bc.SetSafe(head)
	bc.SetFinalized(head)
	return bc, nil
}

// IOExchange is one request/response pair of a .io fixture.
type IOExchange struct {
	Request, Response string
}

// ReadIOFile parses a fixture: comment lines, then alternating ">>" and "<<" lines.
// speconly reports a "speconly:" comment (hive then checks only a result's schema).
func ReadIOFile(t *testing.T, path string) (exchanges []IOExchange, speconly bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 32<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
		case strings.HasPrefix(line, "//"):
			if strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(line, "//")), "speconly:") {
				speconly = true
			}
		case strings.HasPrefix(line, ">>"):
			exchanges = append(exchanges, IOExchange{Request: strings.TrimSpace(line[2:])})
		case strings.HasPrefix(line, "<<"):
			if len(exchanges) == 0 {
				t.Fatalf("%s: response before request", path)
			}
			exchanges[len(exchanges)-1].Response = strings.TrimSpace(line[2:])
		default:
			t.Fatalf("%s: invalid line %.40q", path, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return exchanges, speconly
}

// Request is a fixture request.
type Request struct {
	ID     json.RawMessage   `json:"id"`
	Method string            `json:"method"`
	Params []json.RawMessage `json:"params"`
}

// Param returns the i-th parameter, nil when absent.
func (r Request) Param(i int) []byte {
	if i < len(r.Params) {
		return r.Params[i]
	}
	return nil
}

// Decode decodes the i-th parameter into v, leaving v alone when it is absent or null.
func (r Request) Decode(i int, v any) error {
	if p := r.Param(i); p != nil && string(p) != "null" {
		return json.Unmarshal(p, v)
	}
	return nil
}

// ErrHeaderNotFound is geth's answer for a block the chain does not have.
var ErrHeaderNotFound = errors.New("header not found")

// A ParamError is a block tag that does not decode; geth answers it with -32602.
type ParamError struct{ Err error }

// Error returns the cause's message.
func (e *ParamError) Error() string { return e.Err.Error() }

// Resolve returns the header named by the block tag of the i-th parameter ("latest" when
// absent) and a state at it: *ParamError for a tag that does not decode, ErrHeaderNotFound
// for a block the chain does not have.
func Resolve(bc *core.BlockChain, req Request, i int) (*types.Header, *state.StateDB, error) {
	tag := "latest"
	if err := req.Decode(i, &tag); err != nil {
		return nil, nil, err
	}
	header := bc.CurrentBlock()
	if tag != "latest" {
		n, err := hexutil.DecodeUint64(tag)
		if err != nil {
			return nil, nil, &ParamError{Err: err}
		}
		if header = bc.GetHeaderByNumber(n); header == nil {
			return nil, nil, ErrHeaderNotFound
		}
	}
	st, err := bc.StateAt(header.Root)
	if err != nil {
		return nil, nil, err
	}
	return header, st, nil
}

// A Server answers one fixture request the way geth would. The test fails t for a method
// it does not serve.
type Server func(t *testing.T, bc *core.BlockChain, req Request) (any, error)

// RunConformance runs every fixture of methods against serve, each file as a parallel
// subtest; wireError maps serve's errors to JSON-RPC error objects.
func RunConformance(t *testing.T, methods []string, serve Server, wireError func(method string, err error) map[string]any) {
	dir := ConformanceDir(t)
	bc := LoadConformanceChain(t, dir)
	for _, method := range methods {
		files, _ := filepath.Glob(filepath.Join(dir, method, "*.io"))
		sort.Strings(files)
		if len(files) == 0 {
			t.Fatalf("no fixtures in %s/%s", dir, method)
		}
		for _, file := range files {
			name := strings.TrimSuffix(filepath.Base(file), ".io")
			t.Run(method+"/"+name, func(t *testing.T) {
				t.Parallel()
				exchanges, speconly := ReadIOFile(t, file)
				for _, ex := range exchanges {
					compareFixture(t, bc, name, ex, speconly, serve, wireError)
				}
			})
		}
	}
}

// redactMessages deletes "message" from every error object present at the same path in
// both documents (hive's redactErrorMessages).
func redactMessages(got, want any) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return
		}
		if ge, ok := g["error"].(map[string]any); ok {
			if we, ok := w["error"].(map[string]any); ok {
				_, gm := ge["message"]
				_, wm := we["message"]
				if gm && wm {
					delete(ge, "message")
					delete(we, "message")
				}
			}
		}
		for k, wv := range w {
			redactMessages(g[k], wv)
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			return
		}
		for i := range min(len(g), len(w)) {
			redactMessages(g[i], w[i])
		}
	}
}

// knownDrift lists fixtures whose expected response is another geth version's behaviour.
// None today: ethSimulate-overflow-nonce follows the fixture (v1.17.5), see the simulator's
// runCall.
var knownDrift = map[string]string{}

func compareFixture(t *testing.T, bc *core.BlockChain, name string, ex IOExchange, speconly bool, serve Server, wireError func(string, error) map[string]any) {
	var req Request
	if err := json.Unmarshal([]byte(ex.Request), &req); err != nil {
		t.Fatalf("bad request: %v", err)
	}
	result, err := serve(t, bc, req)
	resp := map[string]any{"jsonrpc": "2.0", "id": req.ID}
	if err != nil {
		resp["error"] = wireError(req.Method, err)
	} else {
		resp["result"] = result
	}
	gotJSON, merr := json.Marshal(resp)
	if merr != nil {
		t.Fatalf("marshal response: %v", merr)
	}
	var got, want map[string]any
	if err := json.Unmarshal(gotJSON, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(ex.Response), &want); err != nil {
		t.Fatalf("bad expected response: %v", err)
	}
	if drift, ok := knownDrift[name]; ok {
		var wantErr map[string]any
		_ = json.Unmarshal([]byte(drift), &wantErr)
		gotErr, _ := got["error"].(map[string]any)
		if gotErr == nil || gotErr["code"] != wantErr["code"] {
			t.Fatalf("known drift: got %s, want error %s", gotJSON, drift)
		}
		return
	}
	if speconly && got["error"] == nil {
		return // hive validates only the schema of a speconly result
	}
	redactMessages(got, want)
	if !reflect.DeepEqual(got, want) {
		wantJSON, _ := json.Marshal(want)
		redactedGot, _ := json.Marshal(got)
		t.Fatalf("response differs\n got: %s\nwant: %s\nfirst difference: %s", Truncate(redactedGot), Truncate(wantJSON), FirstDiff(got, want, "$"))
	}
}

// Truncate returns b as a string, cut after 3000 bytes.
func Truncate(b []byte) string {
	if len(b) > 3000 {
		return string(b[:3000]) + "…"
	}
	return string(b)
}

// FirstDiff names the first path below path where the two decoded JSON documents differ.
func FirstDiff(got, want any, path string) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return path + ": not an object"
		}
		keys := make([]string, 0, len(w)+len(g))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !reflect.DeepEqual(g[k], w[k]) {
				return FirstDiff(g[k], w[k], path+"."+k)
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return path + ": array length or type"
		}
		for i := range w {
			if !reflect.DeepEqual(g[i], w[i]) {
				return FirstDiff(g[i], w[i], path+"["+strconv.Itoa(i)+"]")
			}
		}
	}
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	return path + ": got " + string(gb) + ", want " + string(wb)
}
