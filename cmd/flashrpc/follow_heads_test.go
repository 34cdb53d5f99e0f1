package main

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
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

	waitFor(t, "the first replica subscribed", sub.follower.Subscribed)
	for i := 0; i < 3; i++ {
		tn.preconfirm(t)
		tn.seal(t)
		head := tn.chain.Head().Number.Uint64()
		waitFor(t, "the subscribed replica at the primary's head", func() bool { return sub.head() == head })
		waitFor(t, "the polling replica at the primary's head", func() bool { return polled.head() == head })
		if polled.follower.Subscribed() {
			t.Fatal("subscribed through a proxy that refuses WebSocket")
		}
		if !sub.follower.Subscribed() {
			t.Fatal("the first replica is not subscribed any more")
		}
	}
}
