package menutest

import (
	"testing"
	"testing/fstest"
)

// The check itself: it must catch the wrong answer, and let right ones through.
func TestDroppedSends(t *testing.T) {
	const drop = "select {\n\tcase results <- 1:\n\tdefault:\n\t}\n"
	for _, tc := range []struct {
		name, src string
		dropped   int
	}{
		{"make(chan T)", "results := make(chan int)\n" + drop, 1},
		{"make(chan T, 0)", "var results = make(chan int, 0)\n" + drop, 1},
		{"in another function", "go send(make(chan int))\n}\n\nfunc send(results chan int) {\n" + drop, 1},
		{"room for one", "results := make(chan int, 1)\n" + drop, 0},
		{"size not a literal", "results := make(chan int, n)\n" + drop, 0},
		{"plain send", "results := make(chan int)\ngo func() { results <- 1 }()\n", 0},
		{"no default case", "results := make(chan int)\nselect {\ncase results <- 1:\ncase <-results:\n}\n", 0},
		{"receive with a default", "results := make(chan int)\nselect {\ncase <-results:\ndefault:\n}\n", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "package p\n\nfunc fetch(n int) {\n" + tc.src + "}\n"
			fsys := fstest.MapFS{"fetch.go": {Data: []byte(src)}, "fetch_test.go": {Data: []byte("package p\n\nvar x = make(chan int)\n")}}
			if got, err := DroppedSends(fsys); err != nil || len(got) != tc.dropped {
				t.Errorf("got %d sends that can drop their value (%v), want %d, in:\n%s", len(got), err, tc.dropped, src)
			}
		})
	}
}
