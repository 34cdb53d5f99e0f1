package api

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// allowedWithin is, for each package of internal/api, the packages of internal/api its
// non-test files may import: imports point down (api → its concerns → core → param), and no
// concern imports another.
var allowedWithin = map[string][]string{
	".":         {"core", "chaindata", "execute", "events"},
	"core":      {"param"},
	"param":     {},
	"chaindata": {"core", "param"},
	"execute":   {"core", "param"},
	"events":    {"core", "param"},
}

// forbidden are the packages no package of internal/api imports: api knows neither the
// upstream's client nor the fork, and the dev methods that drive the sequencer are devapi's.
var forbidden = []string{"internal/fork", "internal/remote", "internal/sequencer", "internal/devapi", "cmd/"}

// TestImportsPointDown reads the imports of every non-test file of internal/api and its
// packages and refuses one that imports upwards, sideways between concerns, or a forbidden
// package.
func TestImportsPointDown(t *testing.T) {
	const self = "github.com/flashrpc/flashrpc/internal/api"
	dirs, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{".": true}
	for _, d := range dirs {
		if d.IsDir() && d.Name() != "testdata" {
			seen[d.Name()] = true
		}
	}
	for dir := range seen {
		allowed, ok := allowedWithin[dir]
		if !ok {
			t.Errorf("internal/api/%s is not in allowedWithin: say what it may import", dir)
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range file.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				for _, bad := range forbidden {
					if strings.Contains(path, "/flashrpc/flashrpc/"+bad) {
						t.Errorf("%s imports %s", f, path)
					}
				}
				if !strings.HasPrefix(path, self+"/") {
					continue
				}
				if sub := strings.TrimPrefix(path, self+"/"); !slices.Contains(allowed, sub) {
					t.Errorf("%s imports internal/api/%s, which internal/api/%s may not", f, sub, dir)
				}
			}
		}
	}
}
