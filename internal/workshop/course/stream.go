package course

// Streaming `go test -json` over several packages: go test prints each
// package's events in the order the packages were named, so each step's
// verdict can be shown as soon as its tests end, not after every step's.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// TestJSONStream runs `go test -json args…` and calls done with each
// package's run as soon as the package's last event arrives (in the order
// go test prints them); it returns go's stderr and the runs of packages
// that never ended (a build of the whole command failing, a stop).
func (g Go) TestJSONStream(ctx context.Context, done func(*TestRun), args ...string) (stderr string, rest []*TestRun) {
	args = append([]string{"test", "-json"}, args...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = g.Dir
	if len(g.Env) > 0 {
		cmd.Env = append(os.Environ(), g.Env...)
	}
	cmd.WaitDelay = 10 * time.Second
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err.Error(), nil
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return err.Error(), nil
	}
	rest = streamPackages(out, done)
	_ = cmd.Wait()
	if g.Log != nil {
		g.Log("go "+strings.Join(args, " "), time.Since(start))
	}
	return errOut.String(), rest
}

// streamPackages reads a `go test -json` stream, gathering each package's
// lines, and parses and hands on each package when its final event (a
// pass, fail or skip without a test) comes. Lines that are not JSON, or
// name no package, belong to the next package that ends.
func streamPackages(r io.Reader, done func(*TestRun)) []*TestRun {
	pending := map[string]*bytes.Buffer{}
	var order []string
	var loose bytes.Buffer
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		pkg := ""
		if json.Unmarshal(line, &e) == nil && e.Action != "" {
			pkg = e.Package
			if pkg == "" && e.ImportPath != "" {
				pkg, _, _ = strings.Cut(e.ImportPath, " ")
			}
		}
		if pkg == "" {
			loose.Write(line)
			loose.WriteByte('\n')
			continue
		}
		buf, ok := pending[pkg]
		if !ok {
			buf = &bytes.Buffer{}
			pending[pkg] = buf
			order = append(order, pkg)
		}
		buf.Write(line)
		buf.WriteByte('\n')
		if e.Test == "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip") {
			for _, run := range ParseTestJSONPackages(buf) {
				if run.Package == pkg {
					for _, l := range strings.Split(strings.TrimSuffix(loose.String(), "\n"), "\n") {
						if l != "" {
							run.Output = append(run.Output, l)
							run.ByTest[""] = append(run.ByTest[""], l)
						}
					}
					done(run)
				}
			}
			loose.Reset()
			delete(pending, pkg)
		}
	}
	var rest []*TestRun
	for _, pkg := range order {
		if buf, ok := pending[pkg]; ok {
			rest = append(rest, ParseTestJSONPackages(io.MultiReader(buf, bytes.NewReader(loose.Bytes())))...)
		}
	}
	if len(rest) == 0 && loose.Len() > 0 {
		rest = ParseTestJSONPackages(&loose)
	}
	return rest
}

// StatusesEach is Statuses, calling each with every step's final status
// (vetted when its tasks pass) as soon as it is known, in the steps'
// order: the cached ones at once, the others as their tests end.
func StatusesEach(ctx context.Context, g Go, root string, steps []Step, cache Cache, progress func(string), each func(i int, st *StepStatus)) ([]*StepStatus, error) {
	modPath, err := ModulePath(root)
	if err != nil {
		return nil, err
	}
	statuses := make([]*StepStatus, len(steps))
	var stale []int
	for i, step := range steps {
		hash, err := StepHash(root, step)
		if err != nil {
			return nil, err
		}
		if st, ok := cache.Load(hash); ok {
			statuses[i] = st
			continue
		}
		statuses[i] = &StepStatus{Step: step.Name, Hash: hash}
		stale = append(stale, i)
	}
	next := 0 // the first step not handed to each yet
	var vetErr error
	finish := func(i int) {
		st := statuses[i]
		if st.TasksDone() && vetErr == nil {
			if _, ok := cache.LoadVet(st.Hash); !ok && progress != nil {
				progress(fmt.Sprintf("go vet ./%s: its tasks pass; is vet clean too? (once, until you change a file)", steps[i].Name))
			}
			v, err := Vet(ctx, g, root, steps[i], st.Hash, cache)
			if err != nil {
				vetErr = err
				return
			}
			st.Vet = v.Output
		}
		if each != nil {
			each(i, st)
		}
	}
	ready := make([]bool, len(steps))
	flush := func() {
		for next < len(steps) && ready[next] && vetErr == nil {
			finish(next)
			next++
		}
	}
	isStale := map[int]bool{}
	for _, i := range stale {
		isStale[i] = true
	}
	for i := range steps {
		ready[i] = !isStale[i]
	}
	flush()
	if len(stale) > 0 {
		var pkgs, names []string
		index := map[string]int{}
		for _, i := range stale {
			pkgs = append(pkgs, "./"+steps[i].Name)
			names = append(names, steps[i].Name)
			index[modPath+"/"+steps[i].Name] = i
		}
		if progress != nil {
			progress(fmt.Sprintf("running the tests of %s (once: the results are kept until you change a file)", strings.Join(names, ", ")))
		}
		g.Dir = root
		judged := func(run *TestRun, stderr string) {
			i, ok := index[run.Package]
			if !ok || ready[i] {
				return
			}
			judge(ctx, g, steps[i], statuses[i], run, stderr, "-vet=off")
			cache.Store(statuses[i])
			ready[i] = true
			flush()
		}
		// -vet=off: go vet runs on its own (Vet), so that a vet finding shows
		// as one, beside tests that pass, not as a build failure of every task.
		stderr, rest := g.TestJSONStream(ctx, func(run *TestRun) {
			if ctx.Err() == nil {
				judged(run, "")
			}
		}, append([]string{"-count=1", "-vet=off", "-timeout", "120s"}, pkgs...)...)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for _, run := range rest {
			judged(run, stderr)
		}
		for _, i := range stale {
			if !ready[i] {
				judged(newRun(modPath+"/"+steps[i].Name), stderr)
			}
		}
	}
	if vetErr != nil {
		return nil, vetErr
	}
	return statuses, nil
}

// FirstRun reports whether no step's results are cached yet: the runner's
// first run in this clone, likely on a build cache that holds nothing of it.
func FirstRun(root string, steps []Step, cache Cache) bool {
	for _, step := range steps {
		if hash, err := StepHash(root, step); err == nil {
			if _, ok := cache.Load(hash); ok {
				return false
			}
		}
	}
	return true
}
