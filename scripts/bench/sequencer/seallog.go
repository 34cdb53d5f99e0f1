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

// The cost of each seal, from the node's debug log (`--log.level debug --log.format text`):
// the sequencer logs `sealed block` (took: the part under its lock, committing the state and
// opening the next block), and the chain's writer `stored executed block` (commit: the state
// commit; store: the block, receipts and trie flush) and `wrote executed block` (total: from the
// commit's start to the listeners' end; setHead, sync: the fsync, listeners). The timer loop's
// `flashblock schedule` line, once a block, counts the builds that ended after their deadline
// (late) and the deadlines skipped. A write whose total exceeds the block time delays the next
// seal (one write is in flight at most): the seal then takes a block's slot.

// sealCosts are the phases of one block's seal, from the node's log, and when the seal began
// (the `sealed block` line's time, to the millisecond, less its took: the build's deadline
// when the build was on time).
type sealCosts struct {
	took, commit, store, total, setHead, sync, listeners time.Duration
	sealedAt                                             time.Time
}

// sealLog reads a node's log file.
type sealLog struct {
	path string
}

// window returns the seal costs of the given blocks and the late builds and skipped deadlines
// the schedule lines logged between from and to.
func (l *sealLog) window(blocks []uint64, from, to time.Time) (costs []sealCosts, late, skipped int, err error) {
	f, err := os.Open(l.path)
	if err != nil {
		return nil, 0, 0, err
	}
	defer f.Close()
	want := make(map[uint64]*sealCosts, len(blocks))
	for _, b := range blocks {
		want[b] = &sealCosts{}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		kv := logfmt(sc.Text())
		switch kv["msg"] {
		case "flashblock schedule":
			at, err := time.Parse(time.RFC3339Nano, kv["time"])
			if err != nil || at.Before(from) || at.After(to) {
				continue
			}
			n, _ := strconv.Atoi(kv["late"])
			late += n
			n, _ = strconv.Atoi(kv["skipped"])
			skipped += n
		case "sealed block", "stored executed block", "wrote executed block":
			n, err := strconv.ParseUint(kv["number"], 10, 64)
			if err != nil {
				continue
			}
			c := want[n]
			if c == nil {
				continue
			}
			if kv["msg"] == "sealed block" {
				at, err := time.Parse(time.RFC3339Nano, kv["time"])
				if err != nil {
					return nil, 0, 0, fmt.Errorf("%s: time=%q: %w", l.path, kv["time"], err)
				}
				took, err := time.ParseDuration(kv["took"])
				if err != nil {
					return nil, 0, 0, fmt.Errorf("%s: took=%q: %w", l.path, kv["took"], err)
				}
				c.sealedAt = at.Add(-took)
			}
			for key, d := range map[string]*time.Duration{"took": &c.took, "commit": &c.commit, "store": &c.store, "total": &c.total, "setHead": &c.setHead, "sync": &c.sync, "listeners": &c.listeners} {
				if v, ok := kv[key]; ok {
					if *d, err = time.ParseDuration(v); err != nil {
						return nil, 0, 0, fmt.Errorf("%s: %s=%q: %w", l.path, key, v, err)
					}
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, 0, 0, err
	}
	for _, b := range blocks {
		if c := want[b]; c.total > 0 {
			costs = append(costs, *c)
		}
	}
	return costs, late, skipped, nil
}

// logfmt splits a text-format log line into its keys and values (values may be quoted).
func logfmt(line string) map[string]string {
	kv := map[string]string{}
	for line != "" {
		eq := strings.IndexByte(line, '=')
		if eq < 0 {
			break
		}
		key := strings.TrimSpace(line[:eq])
		line = line[eq+1:]
		var val string
		if strings.HasPrefix(line, `"`) {
			end := 1
			for end < len(line) && (line[end] != '"' || line[end-1] == '\\') {
				end++
			}
			val, _ = strconv.Unquote(line[:min(end+1, len(line))])
			line = line[min(end+1, len(line)):]
		} else {
			sp := strings.IndexByte(line, ' ')
			if sp < 0 {
				sp = len(line)
			}
			val, line = line[:sp], line[sp:]
		}
		kv[key] = val
		line = strings.TrimLeft(line, " ")
	}
	return kv
}

// sealSummary formats the seal costs of a window as one table row after the offered rate: the
// median and largest of each phase, the p99 and largest of the whole write, and the writes that
// took longer than interval.
func sealSummary(rate int, costs []sealCosts, late, skipped int, interval time.Duration) string {
	pick := func(f func(sealCosts) time.Duration) []time.Duration {
		ds := make([]time.Duration, len(costs))
		for i, c := range costs {
			ds[i] = f(c)
		}
		slices.Sort(ds)
		return ds
	}
	ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 1, 64) }
	med := func(ds []time.Duration) string {
		if len(ds) == 0 {
			return "–"
		}
		return ms(ds[len(ds)/2]) + " / " + ms(ds[len(ds)-1])
	}
	total := pick(func(c sealCosts) time.Duration { return c.total })
	over := 0
	for _, d := range total {
		if d > interval {
			over++
		}
	}
	p99 := "–"
	if len(total) > 0 {
		p99 = ms(total[len(total)*99/100])
	}
	// The interval between the starts of two seals: the sequencer's own cadence, without the
	// commit's and the write's variation that the newHeads interval also carries.
	var seals []time.Duration
	for i := 1; i < len(costs); i++ {
		if a, b := costs[i-1].sealedAt, costs[i].sealedAt; !a.IsZero() && !b.IsZero() {
			seals = append(seals, b.Sub(a))
		}
	}
	slices.Sort(seals)
	sealP99 := "–"
	if len(seals) > 0 {
		sealP99 = ms(seals[len(seals)*99/100]) + " / " + ms(seals[len(seals)-1])
	}
	return fmt.Sprintf("| %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d | %d | %d |", rate, len(costs), sealP99,
		med(pick(func(c sealCosts) time.Duration { return c.took })),
		med(pick(func(c sealCosts) time.Duration { return c.commit })),
		med(pick(func(c sealCosts) time.Duration { return c.store })),
		med(pick(func(c sealCosts) time.Duration { return c.setHead })),
		med(pick(func(c sealCosts) time.Duration { return c.sync })),
		med(pick(func(c sealCosts) time.Duration { return c.listeners })),
		med(total), p99, over, late, skipped)
}

// sealHeader is the header of sealSummary's table.
const sealHeader = "| offered tx/s | blocks | interval between seal starts p99 / max (ms) | seal under the lock p50 / max (ms) | state commit | store (block, receipts, trie flush) | setHead | fsync | listeners | write total p50 / max | write total p99 | writes > block time | late builds | skipped deadlines |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
