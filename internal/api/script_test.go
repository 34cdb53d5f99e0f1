package api_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/flashrpc/flashrpc/internal/api"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/devapi"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
	"github.com/flashrpc/flashrpc/internal/sequencer"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// testKey is dev account 0 of the test mnemonic.
var testKey, _ = crypto.HexToECDSA("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")

// testEndpoints starts a dev chain in manual mode (no timers) with one sealed block and both
// endpoints on loopback HTTP servers.
func testEndpoints(t *testing.T) (standard, preconfirmed string, seq *sequencer.Sequencer) {
	t.Helper()
	c, err := chain.Open(chain.Config{DataDir: t.TempDir(), Genesis: chain.DevGenesis(chain.DefaultChainID, []common.Address{crypto.PubkeyToAddress(testKey.PublicKey)})})
	if err != nil {
		t.Fatal(err)
	}
	pre := preconf.New(c)
	pool := txpool.New(c.Config(), txpool.Config{})
	seq = sequencer.New(sequencer.Config{}, c, pre, pool)
	if err := seq.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := seq.Seal(context.Background()); err != nil {
		t.Fatal(err)
	}
	b := api.Backend{Chain: c, Preconf: pre, Pool: pool}
	dev := devapi.New(devapi.Config{}, devapi.Backend{Chain: c, Preconf: pre, Pool: pool, Sequencer: seq}) // the dev_ methods
	std := httptest.NewServer(rpc.NewServer(rpc.Config{}, api.New(api.Config{ClientVersion: "flashrpc/test", Extend: dev.Register}, b).Service()))
	prc := httptest.NewServer(rpc.NewServer(rpc.Config{}, api.New(api.Config{Pending: true, ClientVersion: "flashrpc/test", Extend: dev.Register}, b).Service()))
	t.Cleanup(func() {
		std.Close()
		prc.Close()
		seq.Close()
		c.Close()
	})
	return std.URL, prc.URL, seq
}

// TestScripts runs every testdata/*.txt script: lines "--> request" and "<-- expected response"
// (compared as compact JSON), "//" comments. Scripts named preconf-* run against the
// pre-confirmed endpoint only, standard-* against the standard one, the others against both.
func TestScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	std, pre, _ := testEndpoints(t)
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txt")
		urls := map[string]string{"standard": std, "pre-confirmed": pre}
		switch {
		case strings.HasPrefix(name, "preconf-"):
			delete(urls, "standard")
		case strings.HasPrefix(name, "standard-"):
			delete(urls, "pre-confirmed")
		}
		for endpoint, url := range urls {
			t.Run(name+"/"+endpoint, func(t *testing.T) { runScript(t, file, url) })
		}
	}
}

func runScript(t *testing.T, file, url string) {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []byte
	line := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(text, "-->"):
			got = post(t, url, strings.TrimSpace(text[3:]))
			if os.Getenv("SCRIPT_PRINT") != "" {
				t.Logf("%s", got)
			}
		case strings.HasPrefix(text, "<--"):
			want := compact(t, []byte(strings.TrimSpace(text[3:])))
			if !bytes.Equal(compact(t, got), want) {
				t.Errorf("%s:%d:\n got: %s\nwant: %s", file, line, got, want)
			}
		}
	}
}

func post(t *testing.T, url, body string) []byte {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func compact(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, bytes.TrimSpace(b)); err != nil {
		t.Fatalf("invalid JSON %q: %v", b, err)
	}
	return buf.Bytes()
}
