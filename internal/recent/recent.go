package recent

import "sync"

// List holds up to its capacity of values, most recently used first. It is safe for
// concurrent use. Make one with New.
type List[K comparable, V any] struct {
	mu      sync.Mutex
	max     int
	entries []entry[K, V] // most recently used first
}

type entry[K comparable, V any] struct {
	key   K
	value V
}

// New returns a list that keeps the max most recently used values.
func New[K comparable, V any](max int) *List[K, V] {
	return &List[K, V]{max: max}
}

// Get returns the value of key, making it the most recently used. When the list does not hold
// it, create is called (with the list locked, so that one value is made per key) and its value
// kept, dropping the least recently used one when the list is full; an error is returned and
// nothing kept.
func (l *List[K, V]) Get(key K, create func() (V, error)) (V, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, e := range l.entries {
		if e.key == key {
			copy(l.entries[1:i+1], l.entries[:i])
			l.entries[0] = e
			return e.value, nil
		}
	}
	value, err := create()
	if err != nil {
		return value, err
	}
	if len(l.entries) < l.max {
		l.entries = append(l.entries, entry[K, V]{})
	}
	copy(l.entries[1:], l.entries)
	l.entries[0] = entry[K, V]{key, value}
	return value, nil
}

// Reset drops every value, for when they all went stale at once (the chain's state readers,
// when the path scheme merges its memory layers to disk).
func (l *List[K, V]) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	clear(l.entries)
	l.entries = l.entries[:0]
}
