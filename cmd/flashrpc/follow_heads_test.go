package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
	"time"
)

// httpOnlyProxy forwards JSON-RPC over HTTP to upstream and refuses WebSocket upgrades, as an
// upstream without WebSocket (or a provider's HTTP-only URL) does.
func httpOnlyProxy(t *testing.T, upstream string) *httptest.Server {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(u) }}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "" {
			http.Error(w, "no WebSocket here", http.StatusBadRequest)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestFollowNewHeads has one replica follow the primary's new heads by subscription (its
// polling interval an hour: only announcements move it) and one follow an upstream without
// WebSocket by polling; both stay at the primary's head while it seals.
func TestFollowNewHeads(t *testing.T) {
	tn := startTestNode(t, testOptions(t.TempDir()))
	o := replicaOptions(tn, t.TempDir())
	o.feedURL = "" // sealed blocks only: the feed would pull them in too
	o.poll = time.Hour
	sub := startTestReplica(t, o)
	o = replicaOptions(tn, t.TempDir())
	o.feedURL = ""
	o.upstream = httpOnlyProxy(t, tn.stdURL).URL
	polled := startTestReplica(t, o)

	waitFor(t, "the first replica subscribed", sub.Follower().Subscribed)
	for i := 0; i < 3; i++ {
		tn.preconfirm(t)
		tn.seal(t)
		head := tn.Chain().Head().Number.Uint64()
		waitFor(t, "the subscribed replica at the primary's head", func() bool { return sub.head() == head })
		waitFor(t, "the polling replica at the primary's head", func() bool { return polled.head() == head })
		if polled.Follower().Subscribed() {
			t.Fatal("subscribed through a proxy that refuses WebSocket")
		}
		if !sub.Follower().Subscribed() {
			t.Fatal("the first replica is not subscribed any more")
		}
	}
}

// tcpCutter forwards TCP connections to target and can cut them all and refuse new ones: an
// upstream's WebSocket that goes away and comes back.
type tcpCutter struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	refuse bool
	conns  map[net.Conn]struct{}
}

func startTCPCutter(t *testing.T, target string) *tcpCutter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &tcpCutter{ln: ln, target: target, conns: make(map[net.Conn]struct{})}
	t.Cleanup(func() { ln.Close(); c.cut(true) })
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			c.mu.Lock()
			refuse := c.refuse
			c.mu.Unlock()
			if refuse {
				in.Close()
				continue
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			c.mu.Lock()
			c.conns[in], c.conns[out] = struct{}{}, struct{}{}
			c.mu.Unlock()
			go func() { io.Copy(out, in); out.Close() }()
			go func() { io.Copy(in, out); in.Close() }()
		}
	}()
	return c
}

// cut closes every connection; with refuse set new ones are closed at once until cut(false).
func (c *tcpCutter) cut(refuse bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refuse = refuse
	for conn := range c.conns {
		conn.Close()
		delete(c.conns, conn)
	}
}

// TestFollowNewHeadsFallback cuts a replica's newHeads subscription and refuses its redial: the
// replica polls and keeps following the primary's blocks, then subscribes again once the
// WebSocket is back.
func TestFollowNewHeadsFallback(t *testing.T) {
	tn := startTestNode(t, testOptions(t.TempDir()))
	u, err := url.Parse(tn.stdURL)
	if err != nil {
		t.Fatal(err)
	}
	ws := startTCPCutter(t, u.Host)
	o := replicaOptions(tn, t.TempDir())
	o.feedURL = ""
	o.upstreamWS = "ws://" + ws.ln.Addr().String()
	r := startTestReplica(t, o)
	waitFor(t, "the replica subscribed", r.Follower().Subscribed)

	ws.cut(true)
	waitFor(t, "the replica polling", func() bool { return !r.Follower().Subscribed() })
	for range 2 {
		tn.preconfirm(t)
		tn.seal(t)
		head := tn.Chain().Head().Number.Uint64()
		waitFor(t, "the polling replica at the primary's head", func() bool { return r.head() == head })
	}
	ws.cut(false)
	waitFor(t, "the replica subscribed again", r.Follower().Subscribed)
	tn.preconfirm(t)
	tn.seal(t)
	head := tn.Chain().Head().Number.Uint64()
	waitFor(t, "the replica at the primary's head", func() bool { return r.head() == head })
}
