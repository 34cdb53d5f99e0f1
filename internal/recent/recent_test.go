package recent

import (
	"errors"
	"testing"
)

func TestList(t *testing.T) {
	l := New[string, int](2)
	made := 0
	get := func(key string, value int) int {
		t.Helper()
		v, err := l.Get(key, func() (int, error) { made++; return value, nil })
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if get("a", 1) != 1 || get("b", 2) != 2 || made != 2 {
		t.Fatal("first values")
	}
	if get("a", 10) != 1 || made != 2 { // kept, and now the most recent
		t.Fatal("a not kept")
	}
	get("c", 3) // drops b, the least recently used
	if get("a", 20) != 1 || get("b", 4) != 4 || made != 4 {
		t.Fatalf("eviction: made %d", made)
	}
	if _, err := l.Get("d", func() (int, error) { return 0, errors.New("no") }); err == nil {
		t.Fatal("error not returned")
	}
	if get("d", 5) != 5 {
		t.Fatal("a failed make was kept")
	}
	l.Reset()
	if get("d", 6) != 6 || get("a", 7) != 7 {
		t.Fatal("values kept across Reset")
	}
}
