package kvstore

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/ethdb"
	gethpebble "github.com/ethereum/go-ethereum/ethdb/pebble"
)

func openGeth(t *testing.T, dir string) *gethpebble.Database {
	t.Helper()
	db, err := gethpebble.New(dir, 16, 16, "", false)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// TestDifferential applies the same random writes to this store and to go-ethereum's, and
// compares every key and the iterators over a set of prefixes and starts after each step.
func TestDifferential(t *testing.T) {
	ours, geth := openTest(t, t.TempDir()), openGeth(t, t.TempDir())
	defer closeTest(t, ours)
	defer closeTest(t, geth)
	rng := rand.New(rand.NewPCG(30, 1))
	// Keys from a small alphabet with 0x00 and 0xff, so that prefixes, bounds and the all-0xff
	// upper bound are all exercised.
	alphabet := []byte{0x00, 'a', 'b', 0xff}
	key := func() []byte {
		k := make([]byte, 1+rng.IntN(3))
		for i := range k {
			k[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return k
	}
	var probes [][]byte
	for _, a := range alphabet {
		probes = append(probes, []byte{a})
		for _, b := range alphabet {
			probes = append(probes, []byte{a, b})
			for _, c := range alphabet {
				probes = append(probes, []byte{a, b, c})
			}
		}
	}
	for step := range 300 {
		var op string
		k, k2, v := key(), key(), []byte(fmt.Sprint(step))
		if bytes.Compare(k, k2) > 0 {
			k, k2 = k2, k
		}
		batched := rng.IntN(2) == 0
		kind := rng.IntN(10)
		for _, db := range []ethdb.KeyValueStore{ours, geth} {
			var w interface {
				ethdb.KeyValueWriter
				ethdb.KeyValueRangeDeleter
			} = db
			var b ethdb.Batch
			if batched {
				b = db.NewBatch()
				w = b
			}
			var err error
			switch {
			case kind < 6:
				op, err = fmt.Sprintf("put %x", k), w.Put(k, v)
			case kind < 8:
				op, err = fmt.Sprintf("delete %x", k), w.Delete(k)
			case kind < 9:
				op, err = fmt.Sprintf("delete range %x..%x", k, k2), w.DeleteRange(k, k2)
			default:
				op, err = fmt.Sprintf("delete range %x..", k), w.DeleteRange(k, nil)
			}
			if err == nil && b != nil {
				err = b.Write()
				b.Close()
			}
			if err != nil {
				t.Fatalf("step %d, %s: %v", step, op, err)
			}
		}
		for _, p := range probes {
			gotV, gotErr := ours.Get(p)
			wantV, wantErr := geth.Get(p)
			if !bytes.Equal(gotV, wantV) || (gotErr == nil) != (wantErr == nil) {
				t.Fatalf("step %d (%s): Get(%x) = %x, %v; go-ethereum's %x, %v", step, op, p, gotV, gotErr, wantV, wantErr)
			}
		}
		for _, prefix := range append([][]byte{nil}, probes[:20]...) {
			for _, start := range [][]byte{nil, {'a'}, {0xff}} {
				got, want := dump(t, ours.NewIterator(prefix, start)), dump(t, geth.NewIterator(prefix, start))
				if got != want {
					t.Fatalf("step %d (%s): iterator (%x, %x) = %s, go-ethereum's %s", step, op, prefix, start, got, want)
				}
			}
		}
	}
}

// dump lists an iterator's pairs and releases it.
func dump(t *testing.T, it ethdb.Iterator) string {
	t.Helper()
	defer it.Release()
	var sb strings.Builder
	for it.Next() {
		fmt.Fprintf(&sb, "%x=%s ", it.Key(), it.Value())
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

// TestGethDatadir opens a datadir go-ethereum's opener wrote, writes to it, and has go-ethereum
// read it back; and the other way round.
func TestGethDatadir(t *testing.T) {
	dir := t.TempDir()
	geth := openGeth(t, dir)
	mustPut(t, geth, "by-geth", "1")
	mustPut(t, geth, "gone", "x")
	if err := geth.Close(); err != nil {
		t.Fatal(err)
	}

	ours := openTest(t, dir)
	if v, err := ours.Get([]byte("by-geth")); err != nil || string(v) != "1" {
		t.Fatalf("go-ethereum's key read here = %q, %v", v, err)
	}
	mustPut(t, ours, "by-flashrpc", "2")
	if err := ours.Delete([]byte("gone")); err != nil {
		t.Fatal(err)
	}
	if err := ours.Close(); err != nil {
		t.Fatal(err)
	}

	geth = openGeth(t, dir)
	if got := dump(t, geth.NewIterator(nil, nil)); got != "62792d666c617368727063=2 62792d67657468=1 " {
		t.Fatalf("go-ethereum reads %s", got)
	}
	if err := geth.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestOptionsAsGeth compares the OPTIONS file Pebble writes for each opener: they may differ in
// max_concurrent_compactions only, which is one less than the CPUs here (at least one).
func TestOptionsAsGeth(t *testing.T) {
	oursDir, gethDir := t.TempDir(), t.TempDir()
	if err := openTest(t, oursDir).Close(); err != nil {
		t.Fatal(err)
	}
	if err := openGeth(t, gethDir).Close(); err != nil {
		t.Fatal(err)
	}
	ours, geth := readOptions(t, oursDir), readOptions(t, gethDir)
	if len(ours) != len(geth) {
		t.Fatalf("OPTIONS have %d lines here, %d by go-ethereum", len(ours), len(geth))
	}
	found := false
	for i := range ours {
		if strings.Contains(ours[i], "max_concurrent_compactions") {
			found = true
			want := fmt.Sprintf("max_concurrent_compactions=%d", maxCompactions())
			if strings.TrimSpace(ours[i]) != want || strings.TrimSpace(geth[i]) != fmt.Sprintf("max_concurrent_compactions=%d", runtime.NumCPU()) {
				t.Errorf("OPTIONS line %d: %q here, %q by go-ethereum; want %s here", i, ours[i], geth[i], want)
			}
			continue
		}
		if ours[i] != geth[i] {
			t.Errorf("OPTIONS line %d: %q here, %q by go-ethereum", i, ours[i], geth[i])
		}
	}
	if !found {
		t.Fatal("no max_concurrent_compactions in the OPTIONS file")
	}
}

func readOptions(t *testing.T, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "OPTIONS-*"))
	if err != nil || len(names) != 1 {
		t.Fatalf("OPTIONS files in %s: %v, %v", dir, names, err)
	}
	data, err := os.ReadFile(names[0])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(data), "\n")
}
