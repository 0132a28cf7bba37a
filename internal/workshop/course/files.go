package course

// The files of a step: its test files, and the TODO markers of its
// starter's sources.

import (
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// testFiles lists the names of the *_test.go files of a folder, sorted.
func testFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), "_test.go") {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// StarterTODOs scans the non-test .go files under a step's folder for
// TODO(task N) markers. File names are relative to the folder, with '/'.
func StarterTODOs(stepDir string) ([]Todo, error) {
	var todos []Todo
	err := filepath.WalkDir(stepDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != stepDir && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(stepDir, path)
		if err != nil {
			return err
		}
		todos = append(todos, ScanTODOs(filepath.ToSlash(rel), string(src))...)
		return nil
	})
	return todos, err
}

// TopLevelTests lists what `go test -list .` lists for the package in dir,
// without building it: the Test, Benchmark and Fuzz functions and the
// Examples with an output comment of the _test.go files the build
// constraints select, found as the go command finds them
// (cmd/go/internal/load/test.go; `go help testfunc`). A file that does not
// parse is an error: go test would not build either.
func TopLevelTests(dir string) ([]string, error) {
	pkg, err := build.ImportDir(dir, 0)
	if err != nil {
		return nil, err
	}
	var names []string
	fset := token.NewFileSet()
	for _, name := range append(pkg.TestGoFiles, pkg.XTestGoFiles...) {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil {
				continue
			}
			switch n := fn.Name.Name; {
			case n == "TestMain" && !takesPointerTo(fn, "T"): // func TestMain(m *testing.M) runs the tests; it is none
			case isTestName(n, "Test"), isTestName(n, "Benchmark"), isTestName(n, "Fuzz"):
				names = append(names, n)
			}
		}
		for _, ex := range doc.Examples(f) {
			if ex.Output != "" || ex.EmptyOutput { // an Example without output is compiled, never run
				names = append(names, "Example"+ex.Name)
			}
		}
	}
	return names, nil
}

// isTestName is the go command's isTest: the prefix, then nothing or
// anything but a lower-case letter ("Testing" is no test).
func isTestName(name, prefix string) bool {
	if !strings.HasPrefix(name, prefix) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(name[len(prefix):])
	return len(name) == len(prefix) || !unicode.IsLower(r)
}

// takesPointerTo reports whether fn's only parameter is a *testing.<arg>
// (or *<arg>, for a dot import), as the go command's isTestFunc does.
func takesPointerTo(fn *ast.FuncDecl, arg string) bool {
	params := fn.Type.Params.List
	if fn.Type.Results != nil && len(fn.Type.Results.List) > 0 || len(params) != 1 || len(params[0].Names) > 1 {
		return false
	}
	ptr, ok := params[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	switch x := ptr.X.(type) {
	case *ast.Ident:
		return x.Name == arg
	case *ast.SelectorExpr:
		return x.Sel.Name == arg
	}
	return false
}
