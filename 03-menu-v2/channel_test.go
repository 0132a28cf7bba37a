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
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err, "parsing %s", name)
		files = append(files, f)
	}
	for _, d := range droppedSends(files...) {
		pos := fset.Position(d.pos)
		assert.Fail(t, fmt.Sprintf("%s:%d: the send on %s — a channel made in %s by make(chan %s), with no room for a value — is in a select with a default case. "+
			"That send succeeds only if %s is already waiting in its own select; when the fetch finishes first — on a busy server it does — "+
			"the default case drops the result, and the menu answers 504 for a stock service that answered. "+
			"No test can make that race happen on demand, so this one reads the source "+
			"(task 2: give the channel room for one result, make(chan %s, 1), and send with a plain send)",
			pos.Filename, pos.Line, d.ch, d.fn, d.elem, d.fn, d.elem))
	}
}

// droppedSend is a send that can lose its value.
type droppedSend struct {
	pos  token.Pos
	fn   string // the function that made the channel
	ch   string // the channel's variable
	elem string // the type of its values
}

// droppedSends finds, in each function of files, every send in a select
// with a default case on a channel made with no room for a value —
// make(chan T) or make(chan T, 0) — in that function, or in a function that
// passes it to this one: to a function literal it calls (go func(out chan<-
// T) {…}(results)), or to a function or method of the package it calls (go
// s.send(results)). It goes by names, not types, and lets through any
// channel it does not see made that way.
func droppedSends(files ...*ast.File) []droppedSend {
	type made struct{ elem, fn string } // the type of its values; the function that made it
	var funcs []*ast.FuncDecl
	byName := map[string]*ast.FuncDecl{} // a method by its name alone: good enough here
	for _, f := range files {
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Body != nil {
				funcs = append(funcs, fn)
				byName[fn.Name.Name] = fn
			}
		}
	}
	unbuffered := map[*ast.FuncDecl]map[string]made{}
	for _, fn := range funcs {
		unbuffered[fn] = map[string]made{}
		for name, elem := range unbufferedChans(fn.Body) {
			unbuffered[fn][name] = made{elem, fn.Name.Name}
		}
	}
	// A channel handed on to a function of the package is the same channel
	// under its parameter's name; a few rounds follow it down a short chain.
	for range 3 {
		for _, fn := range funcs {
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				var callee *ast.FuncDecl
				switch fun := call.Fun.(type) {
				case *ast.Ident:
					callee = byName[fun.Name]
				case *ast.SelectorExpr:
					callee = byName[fun.Sel.Name]
				}
				if callee == nil {
					return true
				}
				params := paramNames(callee.Type)
				for i, arg := range call.Args {
					if id, ok := arg.(*ast.Ident); ok && i < len(params) {
						if m, ok := unbuffered[fn][id.Name]; ok {
							unbuffered[callee][params[i].Name] = m
						}
					}
				}
				return true
			})
		}
	}
	var found []droppedSend
	for _, fn := range funcs {
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
				if ch, ok := send.Chan.(*ast.Ident); ok {
					if m, ok := unbuffered[fn][ch.Name]; ok {
						found = append(found, droppedSend{send.Pos(), m.fn, ch.Name, m.elem})
					}
				}
			}
			return true
		})
	}
	return found
}

// paramNames lists the names of the parameters of a function of type ft.
func paramNames(ft *ast.FuncType) []*ast.Ident {
	var params []*ast.Ident
	for _, field := range ft.Params.List {
		params = append(params, field.Names...)
	}
	return params
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
				params := paramNames(lit.Type)
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
		{"finds it on a channel passed to a method", `
			results := make(chan stockResult)
			go s.send(results)
		}

		func (s *menuService) send(out chan<- stockResult) {
			select {
			case out <- stockResult{}:
			default:
			}`, 1},
		{"finds it on a channel passed on twice", `
			results := make(chan stockResult)
			go relay(results)
		}

		func relay(c chan stockResult) { send(c) }

		func send(out chan<- stockResult) {
			select {
			case out <- stockResult{}:
			default:
			}`, 1},
		{"lets a channel with room for one passed to a method through", `
			results := make(chan stockResult, 1)
			go s.send(results)
		}

		func (s *menuService) send(out chan<- stockResult) {
			select {
			case out <- stockResult{}:
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
