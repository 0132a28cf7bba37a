package menutest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"strings"
)

// DroppedSends reads the Go files of a menu package in fsys (embedded by the
// test, so that -overlay applies) and describes each send in a select with a
// default case, if the package also makes an unbuffered channel anywhere:
// such a send loses the result whenever the fetch finishes before anyone
// waits, which no test can arrange on demand, so this reads the source.
func DroppedSends(fsys fs.FS) ([]string, error) {
	names, err := fs.Glob(fsys, "*.go")
	fset := token.NewFileSet()
	var sends []string
	unbuffered := ""
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			return nil, err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if fun, ok := n.Fun.(*ast.Ident); ok && fun.Name == "make" && isUnbuffered(n.Args) && unbuffered == "" {
					unbuffered = fset.Position(n.Pos()).String()
				}
			case *ast.SelectStmt:
				for _, c := range n.Body.List {
					if c.(*ast.CommClause).Comm == nil { // a default case
						for _, c := range n.Body.List {
							if send, ok := c.(*ast.CommClause).Comm.(*ast.SendStmt); ok {
								sends = append(sends, fset.Position(send.Pos()).String())
							}
						}
					}
				}
			}
			return true
		})
	}
	var found []string
	for _, at := range sends {
		if unbuffered != "" {
			found = append(found, fmt.Sprintf("%s: got a send in a select with a default case, and a channel with no room made at %s; "+
				"it drops the result whenever the fetch finishes before anyone waits for it, want make(chan T, 1) and a plain send", at, unbuffered))
		}
	}
	return found, err
}

// isUnbuffered reports whether make's args make a channel with no room; a
// size it cannot read is let through.
func isUnbuffered(args []ast.Expr) bool {
	if _, ok := args[0].(*ast.ChanType); !ok || len(args) == 1 {
		return ok
	}
	lit, ok := args[1].(*ast.BasicLit)
	return ok && lit.Value == "0"
}
