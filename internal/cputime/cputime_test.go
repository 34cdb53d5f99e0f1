package cputime

import (
	"crypto/sha256"
	"testing"
)

// TestProcessGrows checks that work done on this goroutine shows in the process's CPU time.
func TestProcessGrows(t *testing.T) {
	before := Process(t)
	sum := sha256.Sum256(nil)
	for Process(t) <= before {
		for range 10000 {
			sum = sha256.Sum256(sum[:])
		}
	}
}
