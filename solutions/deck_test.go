package solutions

// The instructor's deck (talk/*.slide, served by `go tool present`) quotes
// the solutions with `.code FILE /from/,/to/`: present reads the code when it
// serves the slide, so a slide never holds a pasted copy. This test keeps the
// deck honest: every slide file parses with present's own parser (which
// fails when a .code file or address no longer resolves, as it would in the
// room), every file an .iframe or .image names is there, and every slide
// renders with present's own templates. And talk/quotes.sum holds a
// fingerprint of what each .code shows: a change to a quoted solution line
// fails here until someone has read the slide around it again and run
//
//	go test ./solutions -run TestDeck -args -update-quotes

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"html/template"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/present"
)

var updateQuotes = flag.Bool("update-quotes", false, "rewrite talk/quotes.sum from the slides")

func TestDeck(t *testing.T) {
	slides, err := filepath.Glob(filepath.Join("..", "talk", "*.slide"))
	if err != nil || len(slides) == 0 {
		t.Fatalf("no talk/*.slide found (err %v): the instructor's deck is missing", err)
	}
	tmpl := deckTemplates(t)
	var quotes []string // "file: slide: .code command: fingerprint", in deck order
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
				lines := 0
				for _, e := range s.Elem {
					switch e := e.(type) {
					case present.Code:
						codes++
						n := strings.Count(string(e.Raw), "\n")
						if n == 0 {
							t.Errorf("slide %q: a .code of %s shows nothing", s.Title, e.FileName)
						}
						lines += n
						sum := sha256.Sum256(e.Raw)
						quotes = append(quotes, fmt.Sprintf("%s: %s: %s: %x", filepath.Base(name), s.Title, e.Cmd, sum[:8]))
						for l := range strings.Lines(string(e.Raw)) {
							if w := len(strings.ReplaceAll(strings.TrimRight(l, "\n"), "\t", "    ")); w > maxCodeColumns {
								t.Errorf("slide %q: a line of %s is %d columns, more than a slide shows (%d): %s", s.Title, e.FileName, w, maxCodeColumns, strings.TrimSpace(l))
							}
						}
					case present.Iframe:
						mustExist(t, s.Title, name, e.URL)
					case present.Image:
						mustExist(t, s.Title, name, e.URL)
					}
				}
				if lines > maxCodeLines {
					t.Errorf("slide %q: %d lines of code, more than a slide shows (%d): does its address still fit the solution?", s.Title, lines, maxCodeLines)
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
	checkQuotes(t, quotes)
}

// checkQuotes compares the deck's quotes with talk/quotes.sum, or rewrites it.
func checkQuotes(t *testing.T, quotes []string) {
	t.Helper()
	sum := filepath.Join("..", "talk", "quotes.sum")
	got := strings.Join(quotes, "\n") + "\n"
	if *updateQuotes {
		if err := os.WriteFile(sum, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(sum)
	if err != nil {
		t.Fatalf("%v: run go test ./solutions -run TestDeck -args -update-quotes", err)
	}
	wantLines := strings.Split(string(want), "\n")
	for i, q := range quotes {
		if i >= len(wantLines) || q != wantLines[i] {
			t.Errorf("the code this slide quotes changed: %s\nread the slide again, then: go test ./solutions -run TestDeck -args -update-quotes", q[:strings.LastIndex(q, ": ")])
			return
		}
	}
	if got != string(want) {
		t.Errorf("talk/quotes.sum lists quotes the deck no longer has: go test ./solutions -run TestDeck -args -update-quotes")
	}
}

// As much code as one slide shows at present's font size (seen in Chromium).
const (
	maxCodeLines   = 22
	maxCodeColumns = 95
)

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
