package menutest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"strings"
)

// DroppedSends reads the Go files of a menu package in fsys (a test embeds
// them: //go:embed *.go, so that go test -overlay sees what it builds) and
// describes each send that can drop its result: a send in a select with a
// default case, on a channel made with no room for a value.
//
// Such a send never blocks, so no goroutine leaks; but it succeeds only if
// the receiver is already waiting in its own select. When the fetch finishes
// first — rare on a quiet laptop, bound to happen on a busy server — the
// default case runs and the result is lost. No test can make one goroutine
// slower than another on demand, so this check reads the source.
func DroppedSends(fsys fs.FS) ([]string, error) {
	names, err := fs.Glob(fsys, "*.go")
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
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
		files = append(files, f)
	}
	var found []string
	for _, d := range droppedSends(files...) {
		pos := fset.Position(d.pos)
		found = append(found, fmt.Sprintf("%s:%d: got a send on %s, made by make(chan %s) in %s, in a select with a default case; "+
			"it drops the result whenever the fetch finishes before %s waits for it, want make(chan %s, 1) and a plain send",
			pos.Filename, pos.Line, d.ch, d.elem, d.fn, d.fn, d.elem))
	}
	return found, nil
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
