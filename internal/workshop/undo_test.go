package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/workshop/course"
)

// TestResetUndo: reset keeps every file it replaces or deletes, and the
// hints shown for the step, so reset -undo puts the step back as it was.
func TestResetUndo(t *testing.T) {
	t.Parallel()
	learner := gitFixture(t) // 02-unsolved/double.go committed by the learner, scratch.go untracked
	write(t, learner, "02-unsolved/extra.go", "package double // committed, not in the starter\n")
	gitIn(t, learner, "add", "02-unsolved/extra.go")
	gitIn(t, learner, "commit", "-q", "-m", "extra")
	write(t, learner, "02-unsolved/double.go", "package double // changed after my commit\n")
	write(t, learner, "02-unsolved/notes/todo.txt", "an untracked folder\n")
	if err := os.Remove(filepath.Join(learner, "02-unsolved/README.md")); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		if err := os.Symlink("double.go", filepath.Join(learner, "02-unsolved/link.go")); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(learner, "02-unsolved/notes/run.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	before := tree(t, filepath.Join(learner, "02-unsolved"))

	a, stdout, stderr := testApp(t, learner, "")
	hints := `{"02-unsolved/1": 2, "01-solved/1": 1}`
	if err := os.WriteFile(filepath.Join(a.stateDir, "hints.json"), []byte(hints), 0o644); err != nil {
		t.Fatal(err)
	}
	if code := a.reset(ctx(t), []string{"-y", "02"}); code != exitOK {
		t.Fatalf("reset -y 02 = %d, want %d; stderr: %s", code, exitOK, stderr)
	}
	if got := stdout.String(); !contains2(got, "delete   02-unsolved/extra.go", "reset -undo 02 brings them back") {
		t.Errorf("reset's plan:\n%s\nwant extra.go (committed, not in the starter) under delete, and the way back named", got)
	}
	if got := read(t, learner, "02-unsolved/extra.go"); got != "(missing)" {
		t.Errorf("extra.go after reset = %q, want it deleted", got)
	}
	if got := shownHints(t, a); got["02-unsolved/1"] != 0 || got["01-solved/1"] != 1 {
		t.Errorf("hints shown after reset 02 = %v, want 02's forgotten and 01's kept", got)
	}

	stdout.Reset()
	if code := a.reset(ctx(t), []string{"-undo", "-y", "02"}); code != exitOK {
		t.Fatalf("reset -undo -y 02 = %d, want %d; stderr: %s", code, exitOK, stderr)
	}
	after := tree(t, filepath.Join(learner, "02-unsolved"))
	if len(after) != len(before) {
		t.Errorf("after reset -undo, 02-unsolved holds %v, want %v", keys(after), keys(before))
	}
	for name, want := range before {
		if after[name] != want {
			t.Errorf("after reset -undo, %s = %q, want %q (as before the reset)", name, after[name], want)
		}
	}
	if runtime.GOOS != "windows" {
		if info, err := os.Stat(filepath.Join(learner, "02-unsolved/notes/run.sh")); err != nil {
			t.Errorf("notes/run.sh after reset -undo: %v, want it back", err)
		} else if info.Mode().Perm() != 0o755 {
			t.Errorf("notes/run.sh after reset -undo has mode %v, want -rwxr-xr-x back", info.Mode())
		}
	}
	if got := shownHints(t, a); got["02-unsolved/1"] != 2 {
		t.Errorf("hints shown for 02 task 1 after reset -undo = %d, want 2 back", got["02-unsolved/1"])
	}

	stderr.Reset()
	if code := a.reset(ctx(t), []string{"-undo", "-y", "02"}); code != exitRed {
		t.Errorf("a second reset -undo -y 02 = %d, want %d: the one reset kept is undone", code, exitRed)
	}
	if got := stderr.String(); !contains2(got, "no reset of 02-unsolved is kept", "") {
		t.Errorf("second undo's error = %q, want it to say no reset is kept", got)
	}
}

// TestResetUndoDeclined: undo asks first; no answer is a usage error that
// names -y, and a "no" changes nothing.
func TestResetUndoDeclined(t *testing.T) {
	t.Parallel()
	learner := gitFixture(t)
	a, _, _ := testApp(t, learner, "")
	if code := a.reset(ctx(t), []string{"-y", "02"}); code != exitOK {
		t.Fatalf("reset -y 02 = %d", code)
	}
	starter := read(t, learner, "02-unsolved/double.go")
	for answer, want := range map[string]int{"": exitUsage, "n\n": exitOK} {
		a.stdin = strings.NewReader(answer)
		if code := a.reset(ctx(t), []string{"-undo", "02"}); code != want {
			t.Errorf("reset -undo 02 answered %q = %d, want %d", answer, code, want)
		}
		if got := read(t, learner, "02-unsolved/double.go"); got != starter {
			t.Errorf("double.go after a declined undo = %q, want the starter still", got)
		}
	}
}

// TestStateDir: the state lives in git's common folder, which a worktree
// shares with its clone, or in a gitignored .workshop folder outside git.
func TestStateDir(t *testing.T) {
	t.Parallel()
	learner := gitFixture(t)
	want := filepath.Join(learner, ".git", course.StateDirName)
	if got := course.StateDir(ctx(t), learner); !sameFile(got, want) {
		t.Errorf("StateDir(clone) = %s, want %s", got, want)
	}
	wt := filepath.Join(filepath.Dir(learner), "wt")
	gitIn(t, learner, "worktree", "add", "-q", wt)
	if got := course.StateDir(ctx(t), wt); !sameFile(filepath.Dir(got), filepath.Dir(want)) || filepath.Base(got) != course.StateDirName {
		t.Errorf("StateDir(worktree) = %s, want the clone's %s", got, want)
	}
	plain := t.TempDir()
	if got, want := course.StateDir(ctx(t), plain), filepath.Join(plain, course.LocalStateDir); got != want {
		t.Errorf("StateDir(no git) = %s, want %s", got, want)
	}
}

func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA != nil || errB != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(fa, fb)
}

// tree maps every file and link under dir to its content (a link to
// "-> target").
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.Type()&os.ModeSymlink != 0 {
			target, err := os.Readlink(path)
			out[filepath.ToSlash(rel)] = "-> " + target
			return err
		}
		b, err := os.ReadFile(path)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func shownHints(t *testing.T, a *app) map[string]int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(a.stateDir, "hints.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]int
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func contains2(s, a, b string) bool {
	return strings.Contains(s, a) && strings.Contains(s, b)
}

// TestResetRefusesNamesItCannotKeep: a name that is not UTF-8 would not
// come back from kept.json as it is (JSON turns the byte into U+FFFD), so
// reset refuses it, naming it, before it touches anything.
func TestResetRefusesNamesItCannotKeep(t *testing.T) {
	t.Parallel()
	learner := gitFixture(t)
	bad := "02-unsolved/bad\xffname.go"
	if err := os.WriteFile(filepath.Join(learner, filepath.FromSlash(bad)), []byte("x"), 0o644); err != nil {
		t.Skipf("this file system takes no name that is not UTF-8: %v", err)
	}
	write(t, learner, "02-unsolved/sub/f", "n\n")
	before := tree(t, filepath.Join(learner, "02-unsolved"))

	a, stdout, stderr := testApp(t, learner, "")
	if code := a.reset(ctx(t), []string{"-y", "02"}); code != exitRed {
		t.Errorf("reset -y 02 with %q in the step = %d, want %d (refused)", bad, code, exitRed)
	}
	if got := stderr.String(); !contains2(got, `"02-unsolved/bad\xffname.go"`, "nothing changed") {
		t.Errorf("reset's error = %q, want the name quoted and nothing changed said", got)
	}
	if got := tree(t, filepath.Join(learner, "02-unsolved")); !maps.Equal(got, before) {
		t.Errorf("02-unsolved after the refused reset holds %v, want %v, untouched", keys(got), keys(before))
	}
	if entries, _ := os.ReadDir(filepath.Join(a.stateDir, "reset")); len(entries) != 0 {
		t.Errorf("the refused reset kept %d folders, want none", len(entries))
	}
	if strings.Contains(stdout.String(), "\xff") {
		t.Errorf("reset printed a name that is not UTF-8 as it is:\n%s\nwant it quoted", stdout)
	}
}

// TestResetCannotKeep: a reset that cannot keep what it would replace (here
// a file stands where its folder for kept copies goes) changes nothing: not
// the step's files, not the hints shown.
func TestResetCannotKeep(t *testing.T) {
	t.Parallel()
	learner := gitFixture(t)
	a, _, stderr := testApp(t, learner, "")
	write(t, a.stateDir, "hints.json", `{"02-unsolved/1": 2}`)
	write(t, a.stateDir, "reset", "in the way\n")
	before := tree(t, filepath.Join(learner, "02-unsolved"))

	if code := a.reset(ctx(t), []string{"-y", "02"}); code != exitRed {
		t.Errorf("reset -y 02 with nowhere to keep the files = %d, want %d", code, exitRed)
	}
	if !strings.Contains(stderr.String(), "nothing changed") {
		t.Errorf("reset's error = %q, want it to say nothing changed", stderr)
	}
	if got := tree(t, filepath.Join(learner, "02-unsolved")); !maps.Equal(got, before) {
		t.Errorf("02-unsolved after the failed reset holds %v, want %v, untouched", got, before)
	}
	if got := shownHints(t, a); got["02-unsolved/1"] != 2 {
		t.Errorf("hints shown for 02 task 1 after the failed reset = %d, want 2 still", got["02-unsolved/1"])
	}
}

// TestUndoTrustsNothingItReadsBack: a kept.json that names a file outside
// the step, a step path that is not the step's, or a kept copy that is gone
// or changed, is refused whole: nothing deleted, non-zero exit.
func TestUndoTrustsNothingItReadsBack(t *testing.T) {
	t.Parallel()
	cases := map[string]func(t *testing.T, k map[string]any, dir string){
		"path ..": func(t *testing.T, k map[string]any, dir string) {
			k["path"], k["absent"] = "..", []string{"../victim"}
		},
		"absent outside the step": func(t *testing.T, k map[string]any, dir string) {
			k["absent"] = []string{"02-unsolved/../victim"}
		},
		"absolute": func(t *testing.T, k map[string]any, dir string) {
			k["absent"] = []string{filepath.Join(filepath.Dir(dir), "victim")}
		},
		"another step": func(t *testing.T, k map[string]any, dir string) {
			k["path"], k["absent"] = "01-solved", []string{"01-solved/calc.go"}
		},
		"does not parse": func(t *testing.T, k map[string]any, dir string) {
			k["saved"] = []string{"02-unsolved/scratch.go"}
		},
		"kept copy gone": func(t *testing.T, k map[string]any, dir string) {
			if err := os.Remove(filepath.Join(dir, "files/02-unsolved/scratch.go")); err != nil {
				t.Fatal(err)
			}
		},
		"kept copy changed": func(t *testing.T, k map[string]any, dir string) {
			write(t, dir, "files/02-unsolved/double.go", "package double // not what was kept\n")
		},
	}
	for name, tamper := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			learner := gitFixture(t)
			victim := filepath.Join(filepath.Dir(learner), "victim")
			write(t, filepath.Dir(learner), "victim", "not the workshop's\n")
			a, _, stderr := testApp(t, learner, "")
			if code := a.reset(ctx(t), []string{"-y", "02"}); code != exitOK {
				t.Fatalf("reset -y 02 = %d; stderr: %s", code, stderr)
			}
			kept, _ := filepath.Glob(filepath.Join(a.stateDir, "reset", "02-unsolved", "*", "kept.json"))
			if len(kept) != 1 {
				t.Fatalf("kept.json files after one reset: %v, want one", kept)
			}
			var k map[string]any
			data, err := os.ReadFile(kept[0])
			if err == nil {
				err = json.Unmarshal(data, &k)
			}
			if err != nil {
				t.Fatal(err)
			}
			tamper(t, k, filepath.Dir(kept[0]))
			data, _ = json.Marshal(k)
			if err := os.WriteFile(kept[0], data, 0o644); err != nil {
				t.Fatal(err)
			}
			before, other := tree(t, filepath.Join(learner, "02-unsolved")), read(t, learner, "01-solved/calc.go")

			stderr.Reset()
			if code := a.reset(ctx(t), []string{"-undo", "-y", "02"}); code != exitRed {
				t.Errorf("reset -undo -y 02 with a kept.json tampered (%s) = %d, want %d (refused)", name, code, exitRed)
			}
			if !strings.Contains(stderr.String(), "nothing changed") {
				t.Errorf("undo's error = %q, want it to say nothing changed", stderr)
			}
			if got := read(t, filepath.Dir(learner), "victim"); got != "not the workshop's\n" {
				t.Errorf("%s after the refused undo = %q, want it untouched", victim, got)
			}
			if got := tree(t, filepath.Join(learner, "02-unsolved")); !maps.Equal(got, before) {
				t.Errorf("02-unsolved after the refused undo holds %v, want %v, untouched", got, before)
			}
			if got := read(t, learner, "01-solved/calc.go"); got != other {
				t.Errorf("01-solved/calc.go after the refused undo = %q, want %q", got, other)
			}
		})
	}
}
