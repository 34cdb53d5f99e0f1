package chain

import (
	"errors"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/ethdb/memorydb"
)

// TestIteratorAfterCloseGaveUp checks that an iterator still open when Close gives up
// waiting does not read the closed store: it ends, reports errDatabaseClosed, and its
// Release is harmless.
func TestIteratorAfterCloseGaveUp(t *testing.T) {
	kv := memorydb.New()
	for _, k := range []string{"a", "b", "c"} {
		if err := kv.Put([]byte(k), []byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	g := newCloseGuard(kv)
	g.wait = time.Millisecond // the reader below never releases in time
	it := g.NewIterator(nil, nil)
	if !it.Next() || string(it.Key()) != "a" || string(it.Value()) != "a" {
		t.Fatalf("first entry: %q = %q, %v", it.Key(), it.Value(), it.Error())
	}
	if err := g.Close(); err == nil {
		t.Fatal("Close reported no iterator left open")
	}
	if it.Next() {
		t.Fatalf("iterator went on after the store closed: %q", it.Key())
	}
	if it.Key() != nil || it.Value() != nil {
		t.Fatalf("iterator read the closed store: %q = %q", it.Key(), it.Value())
	}
	if err := it.Error(); !errors.Is(err, errDatabaseClosed) {
		t.Fatalf("error %v, want %v", err, errDatabaseClosed)
	}
	it.Release()
}
