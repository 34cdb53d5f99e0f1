package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBuilds reads a window's `built flashblock` lines as the node writes them and sums each
// kind of build: a block's first flashblock, its last (it commits the block's state) and the
// others; lines outside the window and other lines are left out, and a line of an unknown
// kind is an error.
func TestBuilds(t *testing.T) {
	log := strings.Join([]string{
		`time=2026-11-29T13:05:31.900Z level=DEBUG msg="built flashblock" number=24 index=10 kind=last txs=900 staged=850 took=70ms ahead=30ms lead=100ms roots=10ms assembly=60ms commit=45ms`,
		`time=2026-11-29T13:05:32.100Z level=DEBUG msg="built flashblock" number=25 index=1 kind=first txs=1005 staged=607 took=144.3ms ahead=-44.3ms lead=100ms roots=42.7ms assembly=56.1ms commit=0s`,
		`time=2026-11-29T13:05:32.300Z level=DEBUG msg="built flashblock" number=25 index=2 kind=other txs=1000 staged=950 took=30ms ahead=70ms lead=100ms roots=12ms assembly=20ms commit=0s`,
		`time=2026-11-29T13:05:32.500Z level=INFO msg="sealed block" number=24 hash=0xd4 txs=10003 gasUsed=373989899 took=0s`,
		`time=2026-11-29T13:05:32.500Z level=DEBUG msg="built flashblock" number=25 index=3 kind=other txs=1000 staged=960 took=110ms ahead=-10ms lead=100ms roots=13ms assembly=21ms commit=0s`,
		`time=2026-11-29T13:05:33.900Z level=DEBUG msg="built flashblock" number=25 index=10 kind=last txs=950 staged=900 took=90ms ahead=10ms lead=100ms roots=11ms assembly=70ms commit=50ms`,
		`time=2026-11-29T13:05:34.100Z level=DEBUG msg="built flashblock" number=26 index=1 kind=first txs=990 staged=700 took=60ms ahead=40ms lead=100ms roots=30ms assembly=40ms commit=0s`,
	}, "\n") + "\n"
	path := filepath.Join(t.TempDir(), "node.log")
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	from, err := time.Parse(time.RFC3339, "2026-11-29T13:05:32Z")
	if err != nil {
		t.Fatal(err)
	}
	got, err := builds(path, from, from.Add(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("%d builds in the window, want 4: %+v", len(got), got)
	}
	if b := got[0]; b.index != 1 || b.txs != 1005 || b.staged != 607 || b.took != 144300*time.Microsecond || b.ahead != -44300*time.Microsecond || b.roots != 42700*time.Microsecond || b.kind != "first" {
		t.Errorf("first build: %+v", b)
	}
	if b := got[3]; b.kind != "last" || b.commit != 50*time.Millisecond {
		t.Errorf("the block's last build: kind %s, commit %v; want last, 50ms", b.kind, b.commit)
	}
	want := strings.Join([]string{
		"| 5000 | first | 1 | 1 | 1005 | 607 | 144.3 / 144.3 | 42.7 / 42.7 | 13.4 / 13.4 | 0.0 / 0.0 |",
		"| 5000 | last | 1 | 0 | 950 | 900 | 90.0 / 90.0 | 11.0 / 11.0 | 9.0 / 9.0 | 50.0 / 50.0 |",
		"| 5000 | other | 2 | 1 | 1000 | 960 | 110.0 / 110.0 | 13.0 / 13.0 | 8.0 / 8.0 | 0.0 / 0.0 |",
	}, "\n")
	if s := buildSummary(5000, got); s != want {
		t.Errorf("summary:\n%s\nwant:\n%s", s, want)
	}
}

// TestBuildsDenim: a chain of one build a block (Denim's) logs kind=block, and a line of a kind
// the benchmark does not know stops it rather than being summed as another.
func TestBuildsDenim(t *testing.T) {
	line := `time=2026-11-29T13:05:32.100Z level=DEBUG msg="built flashblock" number=25 index=1 kind=block txs=1005 staged=607 took=144.3ms ahead=-44.3ms lead=100ms roots=42.7ms assembly=56.1ms commit=0s`
	dir := t.TempDir()
	path := filepath.Join(dir, "node.log")
	if err := os.WriteFile(path, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	from, err := time.Parse(time.RFC3339, "2026-11-29T13:05:32Z")
	if err != nil {
		t.Fatal(err)
	}
	got, err := builds(path, from, from.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if want := "| 5000 | block | 1 | 1 | 1005 | 607 | 144.3 / 144.3 | 42.7 / 42.7 | 13.4 / 13.4 | 0.0 / 0.0 |"; buildSummary(5000, got) != want {
		t.Errorf("summary %s, want %s", buildSummary(5000, got), want)
	}
	odd := filepath.Join(dir, "odd.log")
	if err := os.WriteFile(odd, []byte(strings.Replace(line, "kind=block", "kind=middle", 1)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := builds(odd, from, from.Add(time.Second)); err == nil {
		t.Error("a build of kind middle was read without an error")
	}
}
