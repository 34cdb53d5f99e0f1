//go:build !linux

package kvstore

// canLowerThreads: elsewhere a priority belongs to the process, not to one thread.
func canLowerThreads() bool { return false }

// lowerThread is never called where threads have no priorities of their own.
func lowerThread() {}
