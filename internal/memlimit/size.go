package memlimit

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sizeUnits are the suffixes ParseSize takes, as GOMEMLIMIT.
var sizeUnits = []struct {
	suffix string
	shift  uint
}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}}

// ParseSize parses a byte count such as 4294967296, 4096MiB or 4GiB, as GOMEMLIMIT takes it.
func ParseSize(s string) (int64, error) {
	num, shift := strings.TrimSpace(s), uint(0)
	for _, u := range sizeUnits {
		if v, ok := strings.CutSuffix(num, u.suffix); ok {
			num, shift = strings.TrimSpace(v), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("invalid size %q: want bytes, or a number with a KiB, MiB, GiB or TiB suffix", s)
	}
	return n << shift, nil
}

// FormatSize writes n in MiB (rounded down) from a GiB up, in bytes below.
func FormatSize(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%dMiB", n>>20)
	}
	return fmt.Sprintf("%dB", n)
}
