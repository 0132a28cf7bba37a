package solutions

// The instructor's deck (talk/*.slide, served by `go tool present`) quotes
// the solutions with `.code FILE /from/,/to/`: present reads the code when it
// serves the slide, so a slide never holds a pasted copy. This test keeps the
// deck honest: every slide file parses with present's own parser (which
// fails when a .code file or address no longer resolves, as it would in the
// room), every file an .iframe or .image names is there, and every slide
// renders with present's own templates.

import (
	"html/template"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/present"
)

func TestDeck(t *testing.T) {
	slides, err := filepath.Glob(filepath.Join("..", "talk", "*.slide"))
	if err != nil || len(slides) == 0 {
		t.Fatalf("no talk/*.slide found (err %v): the instructor's deck is missing", err)
	}
	tmpl := deckTemplates(t)
	for _, name := range slides {
		t.Run(filepath.Base(name), func(t *testing.T) {
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			ctx := present.Context{ReadFile: os.ReadFile}
			doc, err := ctx.Parse(strings.NewReader(string(src)), name, 0)
			if err != nil {
				t.Fatalf("%v (a .code address no longer matches its solution? fix the slide's /from/,/to/)", err)
			}
			codes := 0
			for _, s := range doc.Sections {
				for _, e := range s.Elem {
					switch e := e.(type) {
					case present.Code:
						codes++
						if n := strings.Count(string(e.Raw), "\n"); n == 0 || n > maxCodeLines {
							t.Errorf("slide %q: a .code of %s shows %d lines, want 1 to %d (does its address still fit the solution?)", s.Title, e.FileName, n, maxCodeLines)
						}
					case present.Iframe:
						mustExist(t, s.Title, name, e.URL)
					case present.Image:
						mustExist(t, s.Title, name, e.URL)
					}
				}
			}
			if codes == 0 {
				t.Errorf("no .code slide: the deck should quote the solutions")
			}
			if tmpl != nil {
				if err := doc.Render(io.Discard, tmpl); err != nil {
					t.Errorf("rendering with present's templates: %v", err)
				}
			}
		})
	}
}

// maxCodeLines is as much code as a slide shows at present's font size.
const maxCodeLines = 24

// mustExist fails unless a file a slide names (relative to the slide) exists.
func mustExist(t *testing.T, slide, deck, url string) {
	t.Helper()
	if strings.Contains(url, "://") {
		t.Errorf("slide %q: %s is on the network; the deck must work offline", slide, url)
		return
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(deck), url)); err != nil {
		t.Errorf("slide %q: %v", slide, err)
	}
}

// deckTemplates parses cmd/present's own templates from the module cache, as
// `go tool present` does; nil (and the render skipped) without a go command.
func deckTemplates(t *testing.T) *template.Template {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "golang.org/x/tools").Output()
	if err != nil {
		t.Logf("not rendering: go list -m golang.org/x/tools: %v", err)
		return nil
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "cmd", "present", "templates")
	tmpl := present.Template().Funcs(template.FuncMap{"playable": func(present.Code) bool { return false }})
	tmpl, err = tmpl.ParseFiles(filepath.Join(dir, "action.tmpl"), filepath.Join(dir, "slides.tmpl"))
	if err != nil {
		t.Fatalf("parsing present's templates in %s: %v", dir, err)
	}
	return tmpl
}
