package main

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The builds of a window, from the node's debug log: the timer loop logs `built flashblock`
// for each of its builds (number, index, kind, txs, staged: what its staging rounds took,
// took: from its start to ready, ahead: how long before its deadline it was ready, negative
// when late, roots, assembly, commit). A late interval is ended by a late build, and the
// kinds of build cost differently: a block's first flashblock (its state opens cold on the
// sealed block), its last (which commits the block's state before its deadline), the others,
// and a block of one build (Denim's). buildSummary gives each kind's row.

// buildKinds are the sequencer's kinds (internal/sequencer, buildKind), in the table's order.
var buildKinds = []string{"first", "last", "other", "block", "preconf"}

// builtFlashblock is one `built flashblock` line.
type builtFlashblock struct {
	kind                         string
	index, txs, staged           int
	took, ahead, roots, assembly time.Duration
	commit                       time.Duration
}

// builds returns the `built flashblock` lines of the log at path logged between from and to.
func builds(path string, from, to time.Time) ([]builtFlashblock, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []builtFlashblock
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		kv := logfmt(sc.Text())
		if kv["msg"] != "built flashblock" {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, kv["time"])
		if err != nil || at.Before(from) || at.After(to) {
			continue
		}
		b := builtFlashblock{kind: kv["kind"]}
		if !slices.Contains(buildKinds, b.kind) {
			return nil, fmt.Errorf("%s: kind=%q: not a kind of build", path, b.kind)
		}
		for key, n := range map[string]*int{"index": &b.index, "txs": &b.txs, "staged": &b.staged} {
			if *n, err = strconv.Atoi(kv[key]); err != nil {
				return nil, fmt.Errorf("%s: %s=%q: %w", path, key, kv[key], err)
			}
		}
		for key, d := range map[string]*time.Duration{"took": &b.took, "ahead": &b.ahead, "roots": &b.roots, "assembly": &b.assembly, "commit": &b.commit} {
			if *d, err = time.ParseDuration(kv[key]); err != nil {
				return nil, fmt.Errorf("%s: %s=%q: %w", path, key, kv[key], err)
			}
		}
		out = append(out, b)
	}
	return out, sc.Err()
}

// buildSummary formats a window's builds as one table row per kind after the offered rate:
// how many, how many were late, and the median and largest of each cost.
func buildSummary(rate int, all []builtFlashblock) string {
	ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 1, 64) }
	var rows []string
	for _, name := range buildKinds {
		var of []builtFlashblock
		late := 0
		for _, b := range all {
			if b.kind == name {
				of = append(of, b)
				if b.ahead < 0 {
					late++
				}
			}
		}
		if len(of) == 0 {
			continue
		}
		dur := func(f func(builtFlashblock) time.Duration) string {
			ds := make([]time.Duration, len(of))
			for i, b := range of {
				ds[i] = f(b)
			}
			slices.Sort(ds)
			return ms(ds[len(ds)/2]) + " / " + ms(ds[len(ds)-1])
		}
		count := func(f func(builtFlashblock) int) string {
			ns := make([]int, len(of))
			for i, b := range of {
				ns[i] = f(b)
			}
			slices.Sort(ns)
			return strconv.Itoa(ns[len(ns)/2])
		}
		rows = append(rows, fmt.Sprintf("| %d | %s | %d | %d | %s | %s | %s | %s | %s | %s |", rate, name, len(of), late,
			count(func(b builtFlashblock) int { return b.txs }), count(func(b builtFlashblock) int { return b.staged }),
			dur(func(b builtFlashblock) time.Duration { return b.took }),
			dur(func(b builtFlashblock) time.Duration { return b.roots }),
			dur(func(b builtFlashblock) time.Duration { return b.assembly - b.roots - b.commit }),
			dur(func(b builtFlashblock) time.Duration { return b.commit })))
	}
	return strings.Join(rows, "\n")
}

// buildHeader is the header of buildSummary's table.
const buildHeader = "| offered tx/s | flashblock | builds | late | txs p50 | staged p50 | took p50 / max (ms) | roots | copy and assembly | state commit (with the wait for the parent's write) |\n|---|---|---|---|---|---|---|---|---|---|"
