package simulate

import "sync"

// fastLZLen is op-geth's types.FlzCompressLen (the FastLZ size of the Fjord DA model), with
// its hash table kept between calls. op-geth's makes a fresh 8,192-entry table (32 kB) per
// transaction and clears it, most of the function's time for a transaction of a hundred
// bytes: a thirtieth of a 100-call eth_simulateV1. Here the table is pooled, and an entry
// written by an earlier input reads as zero, as in a fresh table, because each entry
// carries the call's generation (flzTable). The loop is op-geth's, statement for statement;
// TestFastLZLen compares the two.
func fastLZLen(ib []byte) uint32 {
	t := flzTables.Get().(*flzTable)
	defer flzTables.Put(t)
	return t.compressLen(ib)
}

// compressLen is the FastLZ size of ib, computed on t.
func (t *flzTable) compressLen(ib []byte) uint32 {
	t.next()
	n := uint32(0)
	u24 := func(i uint32) uint32 { return flzU24(ib, i) }
	cmp := func(p uint32, q uint32, e uint32) uint32 {
		l := uint32(0)
		for e -= q; l < e; l++ {
			if ib[p+l] != ib[q+l] {
				e = 0
			}
		}
		return l
	}
	literals := func(r uint32) {
		n += 0x21 * (r / 0x20)
		r %= 0x20
		if r != 0 {
			n += r + 1
		}
	}
	match := func(l uint32) {
		l--
		n += 3 * (l / 262)
		if l%262 >= 6 {
			n += 3
		} else {
			n += 2
		}
	}
	hash := flzHash
	setNextHash := func(ip uint32) uint32 {
		t.set(hash(u24(ip)), ip)
		return ip + 1
	}
	a := uint32(0)
	ipLimit := uint32(len(ib)) - 13
	if len(ib) < 13 {
		ipLimit = 0
	}
	for ip := a + 2; ip < ipLimit; {
		r := uint32(0)
		d := uint32(0)
		for {
			s := u24(ip)
			h := hash(s)
			r = t.get(h)
			t.set(h, ip)
			d = ip - r
			if ip >= ipLimit {
				break
			}
			ip++
			if d <= 0x1fff && s == u24(r) {
				break
			}
		}
		if ip >= ipLimit {
			break
		}
		ip--
		if ip > a {
			literals(ip - a)
		}
		l := cmp(r+3, ip+3, ipLimit+9)
		match(l)
		ip = setNextHash(setNextHash(ip + l))
		a = ip
	}
	literals(uint32(len(ib)) - a)
	return n
}

func flzU24(ib []byte, i uint32) uint32 {
	return uint32(ib[i]) | (uint32(ib[i+1]) << 8) | (uint32(ib[i+2]) << 16)
}

func flzHash(v uint32) uint32 {
	return ((2654435769 * v) >> 19) & 0x1fff
}

// flzTable is FastLZ's hash table of 8,192 positions, reused between inputs. Each entry
// holds the generation of the input that wrote it in its high 32 bits and the position in
// its low 32: an entry of an older generation is an empty (zero) entry. When the
// generation counter wraps, the table is cleared once.
type flzTable struct {
	entries [8192]uint64
	gen     uint32 // the current input's; entries of generation 0 are never current
}

// flzTables are the tables of the inputs in progress.
var flzTables = sync.Pool{New: func() any { return new(flzTable) }}

// next starts a new input: every entry reads as zero.
func (t *flzTable) next() {
	t.gen++
	if t.gen == 0 {
		t.entries = [8192]uint64{}
		t.gen = 1
	}
}

func (t *flzTable) get(h uint32) uint32 {
	if e := t.entries[h]; uint32(e>>32) == t.gen {
		return uint32(e)
	}
	return 0
}

func (t *flzTable) set(h, ip uint32) {
	t.entries[h] = uint64(t.gen)<<32 | uint64(ip)
}
