package kvstore

import (
	"errors"
	"testing"

	"github.com/cockroachdb/pebble"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/ethdb/dbtest"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
)

func openTest(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(dir, 16, 16, false)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDatabaseSuite runs go-ethereum's own conformance suite for key-value stores.
func TestDatabaseSuite(t *testing.T) {
	dbtest.TestDatabaseSuite(t, func() ethdb.KeyValueStore { return openTest(t, t.TempDir()) })
}

func TestGetMissing(t *testing.T) {
	s := openTest(t, t.TempDir())
	defer closeTest(t, s)
	if v, err := s.Get([]byte("absent")); !errors.Is(err, pebble.ErrNotFound) || v != nil {
		t.Fatalf("Get of a missing key = %x, %v; want nil, pebble.ErrNotFound", v, err)
	}
	if has, err := s.Has([]byte("absent")); has || err != nil {
		t.Fatalf("Has of a missing key = %v, %v; want false, nil", has, err)
	}
	if err := s.Put([]byte("empty"), nil); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Get([]byte("empty")); err != nil || v == nil || len(v) != 0 {
		t.Fatalf("Get of an empty value = %x (nil %v), %v; want an empty, non-nil slice", v, v == nil, err)
	}
}

// TestGetCopies checks that a value got stays when the key is overwritten.
func TestGetCopies(t *testing.T) {
	s := openTest(t, t.TempDir())
	defer closeTest(t, s)
	mustPut(t, s, "k", "first")
	v, err := s.Get([]byte("k"))
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, s, "k", "other")
	if string(v) != "first" {
		t.Fatalf("value got before an overwrite = %q, want %q", v, "first")
	}
}

func TestBatchReplayAndSize(t *testing.T) {
	s := openTest(t, t.TempDir())
	defer closeTest(t, s)
	b := s.NewBatchWithSize(64)
	defer b.Close()
	ops := []struct{ kind, a, b string }{
		{"put", "a1", "v1"}, {"put", "a2", "value2"}, {"del", "a1", ""}, {"range", "a0", "a2"}, {"range", "b", ""},
	}
	want := 0
	for _, op := range ops {
		var err error
		switch op.kind {
		case "put":
			err, want = b.Put([]byte(op.a), []byte(op.b)), want+len(op.a)+len(op.b)
		case "del":
			err, want = b.Delete([]byte(op.a)), want+len(op.a)
		case "range":
			end := []byte(op.b)
			if op.b == "" {
				end = nil // counted as ethdb.MaximumKey, the bound it stands for
			}
			err, want = b.DeleteRange([]byte(op.a), end), want+len(op.a)+len(op.b)
			if end == nil {
				want += len(ethdb.MaximumKey)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if b.ValueSize() != want {
		t.Fatalf("ValueSize = %d, want %d", b.ValueSize(), want)
	}
	var got recorder
	if err := b.Replay(&got); err != nil {
		t.Fatal(err)
	}
	wantOps := []string{"put a1 v1", "put a2 value2", "del a1", "range a0 a2", "range b " + string(ethdb.MaximumKey)}
	if len(got) != len(wantOps) {
		t.Fatalf("replayed %q, want %q", got, wantOps)
	}
	for i := range got {
		if got[i] != wantOps[i] {
			t.Fatalf("replayed %q, want %q", got, wantOps)
		}
	}
	// A writer that cannot delete ranges gets an error, not a silent skip.
	if err := b.Replay(putDeleteOnly{memorydb.New()}); err == nil {
		t.Fatal("Replay of a range deletion into a writer without DeleteRange succeeded")
	}
	b.Reset()
	if b.ValueSize() != 0 {
		t.Fatalf("ValueSize after Reset = %d", b.ValueSize())
	}
	got = nil
	if err := b.Replay(&got); err != nil || len(got) != 0 {
		t.Fatalf("Replay after Reset = %q, %v; want nothing", got, err)
	}
}

// TestIteratorPrefixNotWritten checks that NewIterator does not build its bound inside the
// caller's prefix (go-ethereum appends start to it).
func TestIteratorPrefixNotWritten(t *testing.T) {
	s := openTest(t, t.TempDir())
	defer closeTest(t, s)
	buf := []byte("pxyz")
	prefix := buf[:1]
	it := s.NewIterator(prefix, []byte("ab"))
	it.Release()
	if string(buf) != "pxyz" {
		t.Fatalf("the prefix's backing array became %q", buf)
	}
}

// TestReopen writes, syncs, closes and reopens, and checks what a closed store answers.
func TestReopen(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, dir)
	mustPut(t, s, "kept", "v")
	b := s.NewBatch()
	if err := b.Put([]byte("batched"), []byte("w")); err != nil {
		t.Fatal(err)
	}
	if err := b.Write(); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if err := s.SyncKeyValue(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := s.SyncKeyValue(); !errors.Is(err, pebble.ErrClosed) {
		t.Fatalf("SyncKeyValue after Close = %v, want pebble.ErrClosed", err)
	}
	if err := s.Compact(nil, nil); !errors.Is(err, pebble.ErrClosed) {
		t.Fatalf("Compact after Close = %v, want pebble.ErrClosed", err)
	}
	if _, err := s.Stat(); !errors.Is(err, pebble.ErrClosed) {
		t.Fatalf("Stat after Close = %v, want pebble.ErrClosed", err)
	}
	it := s.NewIterator(nil, nil)
	if it.Next() || !errors.Is(it.Error(), pebble.ErrClosed) {
		t.Fatalf("iterator of a closed store: Next true or Error %v", it.Error())
	}
	it.Release()

	s = openTest(t, dir)
	defer closeTest(t, s)
	for k, v := range map[string]string{"kept": "v", "batched": "w"} {
		if got, err := s.Get([]byte(k)); err != nil || string(got) != v {
			t.Fatalf("after reopening, %s = %q, %v; want %q", k, got, err, v)
		}
	}
	if err := s.Compact(nil, nil); err != nil {
		t.Fatal(err)
	}
	if stat, err := s.Stat(); err != nil || stat == "" {
		t.Fatalf("Stat = %q, %v", stat, err)
	}
}

func mustPut(t *testing.T, w ethdb.KeyValueWriter, k, v string) {
	t.Helper()
	if err := w.Put([]byte(k), []byte(v)); err != nil {
		t.Fatal(err)
	}
}

func closeTest(t *testing.T, s ethdb.KeyValueStore) {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Error(err)
	}
}

// recorder is a writer that records the writes replayed into it.
type recorder []string

func (r *recorder) Put(k, v []byte) error {
	*r = append(*r, "put "+string(k)+" "+string(v))
	return nil
}

func (r *recorder) Delete(k []byte) error {
	*r = append(*r, "del "+string(k))
	return nil
}

func (r *recorder) DeleteRange(start, end []byte) error {
	*r = append(*r, "range "+string(start)+" "+string(end))
	return nil
}

// putDeleteOnly hides its store's DeleteRange.
type putDeleteOnly struct{ w ethdb.KeyValueWriter }

func (p putDeleteOnly) Put(k, v []byte) error { return p.w.Put(k, v) }
func (p putDeleteOnly) Delete(k []byte) error { return p.w.Delete(k) }
