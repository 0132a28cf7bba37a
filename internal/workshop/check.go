package main

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/workshop/course"
)

// check runs go vet and the step's tests with -race, and shows the first
// failure.
func (a *app) check(ctx context.Context, args []string) int {
	if len(args) > 1 {
		return a.usageError("check takes one step at most: go tool workshop check [STEP]")
	}
	if len(args) == 1 && strings.HasPrefix(args[0], "-") {
		return a.usageError("check takes no flags (it runs go vet, then go test -race where it can, by itself): go tool workshop check [STEP]")
	}
	arg := ""
	if len(args) == 1 {
		arg = args[0]
	}
	step, err := a.stepArg(ctx, arg)
	if err != nil {
		return a.usageError("%v", err)
	}
	return a.checkStep(ctx, step)
}

func (a *app) checkStep(ctx context.Context, step course.Step) int {
	w := a.stdout
	fmt.Fprintf(w, "%s: go vet ./%s (every analyzer, lostcancel among them)\n", step.Name, step.Name)
	st, vetOut, raceNote, err := course.CheckStep(ctx, a.g, a.root, step, a.cache())
	if err != nil {
		fmt.Fprintf(a.stderr, "workshop: %v\n", err)
		return exitRed
	}
	if vetOut != "" {
		fmt.Fprintf(w, "\n✗ go vet ./%s failed — fix this first (the step does not compile, or vet found a bug the tests may not catch):\n%s\n",
			step.Name, indentText(limitLines(vetOut, 20), "    "))
		return exitRed
	}
	if raceNote != "" {
		fmt.Fprintf(w, "%s: go test ./%s — without -race: the race detector is not available here (%s)\n", step.Name, step.Name, raceNote)
	} else {
		fmt.Fprintf(w, "%s: go test -race ./%s\n", step.Name, step.Name)
	}
	tasks, _ := step.ReadTasks()
	title := map[int]string{}
	cmds := map[int][]string{}
	for _, tk := range tasks {
		title[tk.N], cmds[tk.N] = tk.Title, tk.Commands
	}
	fmt.Fprintln(w)
	for _, res := range st.Tasks {
		fmt.Fprintf(w, "  %s task %d  %s\n", mark(res.Done), res.N, title[res.N])
	}
	fmt.Fprintln(w)
	if st.Problem != "" && st.CrashTask == 0 {
		fmt.Fprintf(w, "✗ %s\n", indentText(st.Problem, "  ")[2:])
		return exitRed
	}
	if st.Finished() {
		fmt.Fprintf(w, "✓ %s is done: vet clean, every test green%s. Compare with solutions/%s, then: go tool workshop\n",
			step.Name, map[bool]string{true: "", false: " under -race"}[raceNote != ""], step.Name)
		return exitOK
	}
	for _, res := range st.Tasks {
		if res.Done || (st.CrashTask != 0 && res.N != st.CrashTask) {
			continue
		}
		fmt.Fprintf(w, "First failure — task %d: %s\n\n", res.N, title[res.N])
		race := false
		switch {
		case st.CrashTask == res.N:
			fmt.Fprintln(w, indentText(st.Problem, "  "))
		case res.Err != "":
			fmt.Fprintf(w, "  %s\n", res.Err)
		case len(res.Failed) > 0:
			text := failureText(st.Run, res.Failed[0])
			if strings.Contains(text, "WARNING: DATA RACE") {
				race = true
				fmt.Fprintln(w, "  A data race: two goroutines touch the same memory, at least one writes, and nothing")
				fmt.Fprintln(w, "  orders them (a mutex, a channel, an atomic). The two stacks say where:")
				fmt.Fprintln(w)
			}
			fmt.Fprintln(w, indentText(limitLines(text, 24), "  "))
		case len(res.Tests) == 0:
			fmt.Fprintf(w, "  its command selects no test: is course.yaml's run pattern right?\n")
		default:
			fmt.Fprintf(w, "  its tests did not pass (%s)\n", strings.Join(res.Tests, ", "))
		}
		fmt.Fprintln(w)
		for _, c := range cmds[res.N] {
			if race {
				c = withRace(c)
			}
			fmt.Fprintf(w, "Run it alone:  %s\n", a.command(step, c))
		}
		fmt.Fprintf(w, "Stuck?         %s\n", course.HintCommand(step, res.N))
		return exitRed
	}
	return exitRed
}

// withRace adds -race to a go test command that does not have it yet.
func withRace(cmd string) string {
	f := strings.Fields(cmd)
	if len(f) < 2 || f[0] != "go" || f[1] != "test" || slices.Contains(f, "-race") || slices.Contains(f, "-race=true") {
		return cmd
	}
	return strings.Replace(cmd, "go test", "go test -race", 1)
}

// failureText is what a failed test printed, without go test's chatter.
func failureText(run *course.TestRun, test string) string {
	if run == nil {
		return "(run go tool workshop check again to see it)"
	}
	var out []string
	for _, l := range run.ByTest[test] {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "=== RUN") || strings.HasPrefix(t, "=== PAUSE") || strings.HasPrefix(t, "=== CONT") || strings.HasPrefix(t, "=== NAME") {
			continue
		}
		out = append(out, strings.TrimRight(l, " "))
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

func limitLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n[… %d more lines: run the command below to see them all]", len(lines)-n)
}

// watch checks a step, then again each time one of its files changes. It
// polls (twice a second): no dependency, and the same on every OS.
func (a *app) watch(ctx context.Context, args []string) int {
	if len(args) > 1 {
		return a.usageError("watch takes one step at most: go tool workshop watch [STEP]")
	}
	if len(args) == 1 && strings.HasPrefix(args[0], "-") {
		return a.usageError("watch takes no flags: go tool workshop watch [STEP]")
	}
	named := len(args) == 1
	arg := ""
	if named {
		arg = args[0]
	}
	step, err := a.stepArg(ctx, arg)
	if err != nil {
		return a.usageError("%v", err)
	}
	const every = 500 * time.Millisecond
	for {
		code := a.checkStep(ctx, step)
		if ctx.Err() != nil {
			return exitOK
		}
		if code == exitOK && !named {
			if next, _, err := a.current(ctx); err == nil && next.Name != step.Name {
				fmt.Fprintf(a.stdout, "\n%s is done: watching %s now.\n", step.Name, next.Name)
				step = next
				continue
			}
		}
		fmt.Fprintf(a.stdout, "\nWatching %s: save a file to check again (Ctrl-C to stop).\n", step.Name)
		before := fingerprint(step.Dir)
		for {
			select {
			case <-ctx.Done():
				fmt.Fprintln(a.stdout)
				return exitOK
			case <-time.After(every):
			}
			if now := fingerprint(step.Dir); now != before {
				// Let an editor finish writing (some write in several steps).
				time.Sleep(every / 2)
				fmt.Fprintf(a.stdout, "\n──── %s changed ────\n", step.Name)
				break
			}
		}
	}
}

// fingerprint sums the names, sizes and times of a folder's files: it changes
// when one is saved, added or removed.
func fingerprint(dir string) string {
	var b strings.Builder
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if info, err := d.Info(); err == nil {
			fmt.Fprintf(&b, "%s|%d|%d\n", path, info.Size(), info.ModTime().UnixNano())
		}
		return nil
	})
	return b.String()
}
