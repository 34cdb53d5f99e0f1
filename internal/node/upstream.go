package node

import (
	"sync"
	"time"

	"github.com/flashrpc/flashrpc/internal/metrics"
)

// upstreamObserver feeds a fork's upstream requests and cache reads to the metrics, with the
// label children resolved once per method and kind. It implements remote.Observer.
type upstreamObserver struct {
	m       *metrics.Upstream
	methods sync.Map // method -> *metrics.UpstreamMethod
	caches  sync.Map // kind -> *metrics.Cache
}

func newUpstreamObserver(m *metrics.Upstream) *upstreamObserver { return &upstreamObserver{m: m} }

func (o *upstreamObserver) method(name string) *metrics.UpstreamMethod {
	if v, ok := o.methods.Load(name); ok {
		return v.(*metrics.UpstreamMethod)
	}
	v, _ := o.methods.LoadOrStore(name, o.m.Method(name))
	return v.(*metrics.UpstreamMethod)
}

// UpstreamRequest counts a request's calls by method; its duration is observed once, under
// its first method.
func (o *upstreamObserver) UpstreamRequest(calls map[string]int, first string, took time.Duration, failed bool) {
	for name, n := range calls {
		if name == first {
			o.method(name).Observe(n, took, failed)
		} else {
			o.method(name).Count(n, failed)
		}
	}
}

// CacheRead counts a hit or a miss of one kind of cached read.
func (o *upstreamObserver) CacheRead(kind string, hit bool) {
	v, ok := o.caches.Load(kind)
	if !ok {
		v, _ = o.caches.LoadOrStore(kind, o.m.Cache(kind))
	}
	if c := v.(*metrics.Cache); hit {
		c.Hit()
	} else {
		c.Miss()
	}
}
