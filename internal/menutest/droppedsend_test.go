package menutest

import (
	"go/parser"
	"go/token"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The check itself, on a few functions: it must catch the wrong answer, and
// let every right one through.
func TestDroppedSends(t *testing.T) {
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
