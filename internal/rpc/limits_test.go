package rpc

import (
	"testing"
	"time"
)

// TestConfigDefaults checks that zero fields take their defaults and negative ones mean
// no limit.
func TestConfigDefaults(t *testing.T) {
	t.Parallel()
	d := Config{}.withDefaults()
	if d.BodyLimit != 5<<20 || d.BatchItemLimit != 1000 || d.BatchResponseLimit != 25_000_000 ||
		d.ResponseLimit != 128<<20 || d.RequestTimeout != 30*time.Second || d.WSReadLimit != 32<<20 ||
		d.WSInFlight != 256 || d.ReadHeaderTimeout != 5*time.Second ||
		d.ReadTimeout != 30*time.Second || d.WriteTimeout != 35*time.Second || d.IdleTimeout != 120*time.Second ||
		d.Logger == nil {
		t.Errorf("defaults: %+v", d)
	}
	if d.WriteTimeout <= d.RequestTimeout {
		t.Error("default WriteTimeout must exceed RequestTimeout")
	}
	n := Config{
		BodyLimit: -1, BatchItemLimit: -1, BatchResponseLimit: -1, ResponseLimit: -1, RequestTimeout: -1,
		WSReadLimit: -1, WSInFlight: -1, ReadTimeout: -1, WriteTimeout: -1,
	}.withDefaults()
	if n.BodyLimit != -1 || n.BatchItemLimit != -1 || n.BatchResponseLimit != -1 || n.ResponseLimit != -1 ||
		n.RequestTimeout != 0 || n.WSReadLimit != -1 || n.WSInFlight != 256 ||
		n.ReadTimeout != 0 || n.WriteTimeout != 0 {
		t.Errorf("negative: %+v", n)
	}
	s := Config{BodyLimit: 7, RequestTimeout: time.Second}.withDefaults()
	if s.BodyLimit != 7 || s.RequestTimeout != time.Second {
		t.Errorf("set values changed: %+v", s)
	}
}
