package kvstore

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble"
	"github.com/cockroachdb/pebble/vfs"
)

// TestWriteStalls makes Pebble stop the writes (its first flush held back as it creates its
// table, until the test has seen the stall; two memtables the most it keeps) and checks that
// the store counts the stall and its time, while it lasts and after the flush ends it.
func TestWriteStalls(t *testing.T) {
	s := &Store{path: t.TempDir()}
	opt := options(minCacheMB, minHandles, false, nil, &s.stalls)
	opt.MemTableSize = 1 << 20
	opt.MemTableStopWritesThreshold = 2
	release := make(chan struct{})
	var releaseOnce sync.Once
	opt.FS = holdTables{FS: vfs.Default, release: release}
	db, err := pebble.Open(s.path, opt)
	opt.Cache.Unref()
	if err != nil {
		t.Fatal(err)
	}
	s.db = db
	defer closeTest(t, s)
	defer releaseOnce.Do(func() { close(release) }) // first, so that a failed test can close
	if got := s.WriteStalls(); got != (WriteStalls{}) {
		t.Fatalf("a new store reports %+v", got)
	}

	// The writer ends with the write that stalled.
	value := bytes.Repeat([]byte{1}, 64<<10)
	done := make(chan error, 1)
	go func() {
		for i := 0; i < 1000; i++ {
			if err := s.Put([]byte(fmt.Sprintf("key-%03d", i)), value); err != nil {
				done <- err
				return
			}
			if s.WriteStalls().Count > 0 {
				done <- nil
				return
			}
		}
		done <- errors.New("no stall in 1,000 writes of 64 kB")
	}()
	for deadline := time.Now().Add(time.Minute); s.WriteStalls().Count == 0; {
		select {
		case err := <-done:
			t.Fatalf("the writes ended without a stall: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("no stall counted in a minute")
		}
	}
	time.Sleep(10 * time.Millisecond) // the stall lasts at least this long
	during := s.WriteStalls()
	if during.Count != 1 || during.Duration < 10*time.Millisecond {
		t.Errorf("during the stall: %+v, want one of at least 10ms", during)
	}
	releaseOnce.Do(func() { close(release) }) // the flush runs: the writes go on
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	after := s.WriteStalls()
	if after.Count != 1 || after.Duration < during.Duration {
		t.Fatalf("after the stall: %+v (during it %+v), want the same one, no shorter", after, during)
	}
	if again := s.WriteStalls(); again.Duration != after.Duration {
		t.Fatalf("the stall's time still grows after it ended: %v, then %v", after.Duration, again.Duration)
	}
}

// holdTables is a file system whose tables (.sst) are created only once release is closed:
// a flush waits there without holding Pebble's mutex, as one behind a slow disk would.
type holdTables struct {
	vfs.FS
	release <-chan struct{}
}

func (h holdTables) Create(name string) (vfs.File, error) {
	if strings.HasSuffix(name, ".sst") {
		<-h.release
	}
	return h.FS.Create(name)
}
