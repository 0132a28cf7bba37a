package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Task 2: the one wrong answer that running the menu cannot catch.
//
// A send in a select with a default case never blocks, so the goroutine
// always ends. But on a channel with no room for a value, that send succeeds
// only if fetchStockWithin is already waiting in its own select. When the
// fetch finishes first — rare on a quiet laptop, bound to happen on a busy
// server — the default case runs, the result is lost, and the menu answers
// 504 for a stock service that did answer. No test can make one goroutine
// slower than another on demand, so this test reads the source instead.
func TestResultIsNotDropped(t *testing.T) {
	names, err := filepath.Glob("*.go") // go test runs in the package's folder
	require.NoError(t, err, "listing the package's Go files")
	fset := token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err, "parsing %s", name)
		for _, d := range droppedSends(f) {
			pos := fset.Position(d.pos)
			assert.Fail(t, fmt.Sprintf("%s:%d: in %s, the send on %s — made by make(chan %s), with no room for a value — is in a select with a default case. "+
				"That send succeeds only if %s is already waiting in its own select; when the fetch finishes first — on a busy server it does — "+
				"the default case drops the result, and the menu answers 504 for a stock service that answered. "+
				"No test can make that race happen on demand, so this one reads the source "+
				"(task 2: give the channel room for one result, make(chan %s, 1), and send with a plain send)",
				pos.Filename, pos.Line, d.fn, d.ch, d.elem, d.fn, d.elem))
		}
	}
}

// droppedSend is a send that can lose its value.
type droppedSend struct {
	pos  token.Pos
	fn   string // the function that made the channel
	ch   string // the channel's variable
	elem string // the type of its values
}

// droppedSends finds, in each function of f, every send in a select with a
// default case on a channel the function made with no room for a value:
// make(chan T) or make(chan T, 0). It goes by names, not types, and lets
// through any channel it does not see made that way.
func droppedSends(f *ast.File) []droppedSend {
	var found []droppedSend
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		unbuffered := unbufferedChans(fn.Body)
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectStmt)
			if !ok || !hasDefault(sel) {
				return true
			}
			for _, clause := range sel.Body.List {
				send, ok := clause.(*ast.CommClause).Comm.(*ast.SendStmt)
				if !ok {
					continue
				}
				if ch, ok := send.Chan.(*ast.Ident); ok && unbuffered[ch.Name] != "" {
					found = append(found, droppedSend{send.Pos(), fn.Name.Name, ch.Name, unbuffered[ch.Name]})
				}
			}
			return true
		})
	}
	return found
}

// unbufferedChans maps each variable that body sets to make(chan T) or
// make(chan T, 0) to T — unless body also sets it to anything else — and
// each parameter of a function literal that body calls with one of them.
func unbufferedChans(body *ast.BlockStmt) map[string]string {
	made, other := map[string]string{}, map[string]bool{}
	passed := map[string]string{} // parameter: the variable passed to it
	// set records name = value; value is nil when it cannot be told.
	set := func(name, value ast.Expr) {
		if id, ok := name.(*ast.Ident); ok {
			if elem, ok := unbufferedMake(value); ok {
				made[id.Name] = elem
			} else {
				other[id.Name] = true
			}
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, name := range n.Lhs {
				set(name, nth(n.Rhs, i, len(n.Lhs)))
			}
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if len(n.Values) > 0 {
					set(name, nth(n.Values, i, len(n.Names)))
				}
			}
		case *ast.CallExpr: // go func(out chan<- T) {…}(results)
			if lit, ok := n.Fun.(*ast.FuncLit); ok {
				var params []*ast.Ident
				for _, field := range lit.Type.Params.List {
					params = append(params, field.Names...)
				}
				for i, arg := range n.Args {
					if id, ok := arg.(*ast.Ident); ok && i < len(params) {
						passed[params[i].Name] = id.Name
					}
				}
			}
		}
		return true
	})
	for name := range other {
		delete(made, name)
	}
	for param, arg := range passed {
		if elem := made[arg]; elem != "" && !other[param] {
			made[param] = elem
		}
	}
	return made
}

// nth returns the value set to the i-th of n names, or nil if the values are
// not one per name (a, b := f()).
func nth(values []ast.Expr, i, n int) ast.Expr {
	if len(values) != n {
		return nil
	}
	return values[i]
}

// unbufferedMake reports whether e is make(chan T) or make(chan T, 0), and
// returns T as written.
func unbufferedMake(e ast.Expr) (elem string, ok bool) {
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) == 0 || len(call.Args) > 2 {
		return "", false
	}
	if fun, ok := call.Fun.(*ast.Ident); !ok || fun.Name != "make" {
		return "", false
	}
	ch, ok := call.Args[0].(*ast.ChanType)
	if !ok {
		return "", false
	}
	if len(call.Args) == 2 {
		if size, ok := call.Args[1].(*ast.BasicLit); !ok || size.Value != "0" {
			return "", false // room for a value, or a size we cannot read: let it through
		}
	}
	return types.ExprString(ch.Value), true
}

// hasDefault reports whether sel has a default case.
func hasDefault(sel *ast.SelectStmt) bool {
	for _, clause := range sel.Body.List {
		if clause.(*ast.CommClause).Comm == nil {
			return true
		}
	}
	return false
}

// The check itself, on a few functions: it must catch the wrong answer, and
// let every right one through.
func TestDroppedSendsFinder(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		dropped    int
	}{
		{"finds a send with a default case on make(chan T)", `
			results := make(chan stockResult)
			go func() {
				select {
				case results <- stockResult{}:
				default:
				}
			}()`, 1},
		{"finds it on make(chan T, 0) and on a var", `
			var results = make(chan int, 0)
			select {
			case results <- 1:
			case <-done:
			default:
			}`, 1},
		{"finds it on a channel passed to a function literal", `
			results := make(chan stockResult)
			go func(out chan<- stockResult) {
				select {
				case out <- stockResult{}:
				default:
				}
			}(results)`, 1},
		{"lets a channel with room for one through", `
			results := make(chan stockResult, 1)
			go func() {
				select {
				case results <- stockResult{}:
				default:
				}
			}()`, 0},
		{"lets a variable also set to anything else through", `
			results, n := make(chan int), 1
			if n > 0 {
				results = make(chan int, n)
			}
			select {
			case results <- 1:
			default:
			}`, 0},
		{"lets a plain send through", `
			results := make(chan stockResult, 1)
			go func() { results <- stockResult{} }()`, 0},
		{"lets a select without a default case through", `
			results := make(chan stockResult)
			go func() {
				select {
				case results <- stockResult{}:
				case <-done:
				}
			}()`, 0},
		{"lets a size it cannot read through", `
			results := make(chan int, n)
			select {
			case results <- 1:
			default:
			}`, 0},
		{"lets a channel it did not see made through", `
			select {
			case done <- struct{}{}:
			default:
			}`, 0},
		{"lets a receive with a default case through", `
			results := make(chan int)
			select {
			case <-results:
			default:
			}`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "package p\n\nfunc fetch(done chan struct{}, n int) {" + tc.body + "\n}\n"
			f, err := parser.ParseFile(token.NewFileSet(), "fetch.go", src, 0)
			require.NoError(t, err, "parsing:\n%s", src)
			assert.Len(t, droppedSends(f), tc.dropped, "sends that can drop their value in:\n%s", src)
		})
	}
}
