package rpc

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// A script is a request/response test from testdata/*.txt. Lines starting with "-->" are
// sent, each as one HTTP POST or one WebSocket message; the "<--" lines after it are the
// expected messages, byte for byte, in order. "//" lines are comments. A script runs over
// WebSocket, and over HTTP too unless it subscribes; files named http-*.txt run over HTTP
// only.
type script struct {
	steps []step
	http  bool
	ws    bool
}

type step struct {
	line int    // line number of the "-->" line
	send string // message sent
	want []string
}

func loadScript(t testing.TB, file string) script {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var sc script
	in := bufio.NewScanner(f)
	in.Buffer(nil, 1<<20)
	for n := 1; in.Scan(); n++ {
		line := in.Text()
		switch {
		case strings.HasPrefix(line, "-->"):
			sc.steps = append(sc.steps, step{line: n, send: strings.TrimSpace(line[3:])})
		case strings.HasPrefix(line, "<--"):
			if len(sc.steps) == 0 {
				t.Fatalf("%s:%d: response before the first request", file, n)
			}
			last := &sc.steps[len(sc.steps)-1]
			last.want = append(last.want, strings.TrimSpace(line[3:]))
		case strings.HasPrefix(line, "//"), strings.TrimSpace(line) == "":
		default:
			t.Fatalf("%s:%d: line is not -->, <-- or //", file, n)
		}
	}
	if err := in.Err(); err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(file)
	subscribes := false
	for _, st := range sc.steps {
		subscribes = subscribes || strings.Contains(st.send, "_subscribe")
	}
	sc.http = !subscribes || strings.HasPrefix(name, "http-")
	sc.ws = !strings.HasPrefix(name, "http-")
	return sc
}

// TestScripts runs every testdata script against a fresh server (sequential subscription
// IDs, testConfig limits). Over HTTP it runs twice: with plain requests, which the fast
// path serves, and with chunked ones, which it hands to net/http.
func TestScripts(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, file := range files {
		sc := loadScript(t, file)
		name := strings.TrimSuffix(filepath.Base(file), ".txt")
		if sc.http {
			t.Run("http/"+name, func(t *testing.T) {
				t.Parallel()
				runHTTPScript(t, file, sc, false)
			})
			t.Run("http-chunked/"+name, func(t *testing.T) {
				t.Parallel()
				runHTTPScript(t, file, sc, true)
			})
		}
		if sc.ws {
			t.Run("ws/"+name, func(t *testing.T) {
				t.Parallel()
				runWSScript(t, file, sc)
			})
		}
	}
}

// runHTTPScript runs a script over HTTP, with plain requests (fast path) or chunked ones
// (net/http), and checks that the intended path served them.
func runHTTPScript(t *testing.T, file string, sc script, chunked bool) {
	ts := startServer(t, testConfig())
	for _, st := range sc.steps {
		if len(st.want) > 1 {
			t.Fatalf("%s:%d: HTTP gives one response, script wants %d", file, st.line, len(st.want))
		}
		var status int
		var got string
		if chunked {
			status, got = postChunked(t, ts.url, st.send)
		} else {
			status, got = post(t, ts.url, st.send)
		}
		if status != http.StatusOK {
			t.Errorf("%s:%d: status %d, want 200", file, st.line, status)
		}
		want := strings.Join(st.want, "")
		if got != want {
			t.Errorf("%s:%d: wrong response\n got: %s\nwant: %s", file, st.line, got, want)
		}
	}
	fast, handoffs := ts.srv.fastRequests.Load(), ts.srv.handoffs.Load()
	switch {
	case !chunked && (fast != uint64(len(sc.steps)) || handoffs != 0):
		t.Errorf("fast path served %d of %d requests, %d connections handed off", fast, len(sc.steps), handoffs)
	case chunked && (fast != 0 || handoffs == 0):
		t.Errorf("fast path served %d chunked requests, %d connections handed off", fast, handoffs)
	}
}

func runWSScript(t *testing.T, file string, sc script) {
	ts := startServer(t, testConfig())
	c := dialWS(t, ts.url)
	// A final call proves no unexpected message came in between.
	sentinel := step{line: -1, send: `{"jsonrpc":"2.0","id":"end","method":"test_nil"}`, want: []string{`{"jsonrpc":"2.0","id":"end","result":null}`}}
	for _, st := range append(sc.steps, sentinel) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := c.Write(ctx, websocket.MessageText, []byte(st.send)); err != nil {
			t.Fatalf("%s:%d: write: %v", file, st.line, err)
		}
		for _, want := range st.want {
			_, got, err := c.Read(ctx)
			if err != nil {
				t.Fatalf("%s:%d: read: %v", file, st.line, err)
			}
			if string(got) != want {
				t.Errorf("%s:%d: wrong message\n got: %s\nwant: %s", file, st.line, got, want)
			}
		}
		cancel()
	}
}

// post sends body as a JSON-RPC POST and returns the status and response body.
func post(t testing.TB, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// postChunked is post with a chunked body, which the fast path hands to net/http.
func postChunked(t testing.TB, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", io.MultiReader(strings.NewReader(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// dialWS opens a WebSocket connection to url, closed when the test ends.
func dialWS(t testing.TB, url string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(-1)
	t.Cleanup(func() { c.CloseNow() })
	return c
}

// addScriptSeeds adds every request of the testdata scripts to f's seed corpus, so the
// fuzz targets of the request decoder start from every wire behaviour the scripts pin
// down, and check them in every go test.
func addScriptSeeds(f *testing.F) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		for _, st := range loadScript(f, file).steps {
			f.Add([]byte(st.send))
		}
	}
}
