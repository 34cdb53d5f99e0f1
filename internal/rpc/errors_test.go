package rpc

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestToError checks how method errors become JSON-RPC errors.
func TestToError(t *testing.T) {
	t.Parallel()
	coded := &Error{Code: CodeReverted, Message: "execution reverted", Data: "0x01"}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"*Error", coded, `{"code":3,"message":"execution reverted","data":"0x01"}`},
		{"wrapped *Error", fmt.Errorf("call: %w", coded), `{"code":3,"message":"execution reverted","data":"0x01"}`},
		{"joined *Error", errors.Join(errors.New("a"), coded), `{"code":3,"message":"execution reverted","data":"0x01"}`},
		{"plain", errors.New("boom"), `{"code":-32000,"message":"boom"}`},
		{"geth style", gethStyleError{}, `{"code":-38014,"message":"geth style","data":{"n":1}}`},
		{"wrapped geth style", fmt.Errorf("x: %w", gethStyleError{}), `{"code":-38014,"message":"x: geth style","data":{"n":1}}`},
		{"NewError", NewError(CodeLimitExceeded, "query exceeds max results %d", 10000), `{"code":-32005,"message":"query exceeds max results 10000"}`},
		{"InvalidParams", InvalidParams("invalid argument %d: %s", 0, "bad <hex>"), `{"code":-32602,"message":"invalid argument 0: bad \u003chex\u003e"}`},
		{"unencodable data", &Error{Code: 1, Message: "m", Data: make(chan int)}, `{"code":1,"message":"m"}`},
	}
	for _, tt := range tests {
		if got := appendError(nil, toError(tt.err)); string(got) != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestErrorMessage(t *testing.T) {
	t.Parallel()
	if got := (&Error{Code: -32000}).Error(); got != "json-rpc error -32000" {
		t.Errorf("empty message: Error() = %q", got)
	}
	if got := NewError(1, "no args").Error(); got != "no args" {
		t.Errorf("Error() = %q", got)
	}
}

// TestCodesInOneFile checks that errors.go is the only file of the package that builds an
// Error value or spells out a JSON-RPC code: the others use its constants, variables and
// constructors.
func TestCodesInOneFile(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if name == "errors.go" || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CompositeLit:
				if id, ok := n.Type.(*ast.Ident); ok && id.Name == "Error" {
					t.Errorf("%s: Error literal outside errors.go", fset.Position(n.Pos()))
				}
			case *ast.UnaryExpr:
				if lit, ok := n.X.(*ast.BasicLit); ok && n.Op == token.SUB && lit.Kind == token.INT {
					if v, _ := strconv.Atoi(lit.Value); v >= 32000 {
						t.Errorf("%s: error code -%s outside errors.go", fset.Position(n.Pos()), lit.Value)
					}
				}
			}
			return true
		})
	}
}
