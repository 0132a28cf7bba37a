package main

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gitFixture makes an upstream repository of the fixture course and a
// learner's clone of it, and returns the clone's path.
func gitFixture(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on the PATH")
	}
	base := t.TempDir()
	upstream := filepath.Join(base, "upstream")
	require.NoError(t, os.CopyFS(upstream, os.DirFS(fixture(t))), "copying the fixture")
	gitIn(t, upstream, "init", "-q")
	gitIn(t, upstream, "add", ".")
	gitIn(t, upstream, "commit", "-q", "-m", "the workshop")
	learner := filepath.Join(base, "learner")
	gitIn(t, base, "clone", "-q", upstream, learner)
	// The learner works on step 02, commits it, and keeps notes.
	write(t, learner, "02-unsolved/double.go", "package double\n\nfunc Double(n int) int { return n + n }\n")
	write(t, learner, "notes.md", "My notes.\n")
	gitIn(t, learner, "commit", "-q", "-am", "my work")
	write(t, learner, "02-unsolved/scratch.go", "package double\n")
	write(t, learner, "01-solved/calc.go", "package calc // my change to another step\n")
	write(t, learner, "untracked.txt", "outside the step\n")
	return learner
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
}

func TestReset(t *testing.T) {
	t.Parallel()
	learner := gitFixture(t)
	snapshot := func() map[string]string {
		return map[string]string{
			"02-unsolved/double.go":  read(t, learner, "02-unsolved/double.go"),
			"02-unsolved/scratch.go": read(t, learner, "02-unsolved/scratch.go"),
			"01-solved/calc.go":      read(t, learner, "01-solved/calc.go"),
			"notes.md":               read(t, learner, "notes.md"),
			"untracked.txt":          read(t, learner, "untracked.txt"),
		}
	}
	before := snapshot()

	t.Run("nothing changes without a yes", func(t *testing.T) {
		for _, answer := range []string{"\n", "n\n", "no\n", "whatever\n", "N"} {
			a, stdout, _ := testApp(t, learner, answer)
			assert.Equal(t, exitOK, a.reset(ctx(t), []string{"02"}), "reset 02 answered %q: declining is no failure", answer)
			assert.Contains(t, stdout.String(), "Go ahead? [y/N]", "reset asks first")
			assert.Contains(t, stdout.String(), "Nothing changed.", "and says when it did nothing")
			assert.Equal(t, before, snapshot(), "files after reset 02 answered %q", answer)
		}
	})

	t.Run("no answer at all is a usage error that names -y", func(t *testing.T) {
		a, stdout, stderr := testApp(t, learner, "")
		assert.Equal(t, exitUsage, a.reset(ctx(t), []string{"02"}), "reset 02 with stdin closed")
		assert.Contains(t, stdout.String(), "Nothing changed.", "reset says it did nothing")
		assert.Contains(t, stderr.String(), "go tool workshop reset -y 02", "and how a script resets without asking")
		assert.Equal(t, before, snapshot(), "files after reset 02 with no answer")
	})

	t.Run("reset needs a step", func(t *testing.T) {
		a, _, _ := testApp(t, learner, "y\n")
		assert.Equal(t, exitUsage, a.reset(ctx(t), nil), "reset without a step")
		assert.Equal(t, exitUsage, a.reset(ctx(t), []string{"09"}), "reset of a step that does not exist")
		assert.Equal(t, before, snapshot(), "files after usage errors")
	})

	t.Run("yes restores the step's starter as upstream has it, and nothing else", func(t *testing.T) {
		a, stdout, stderr := testApp(t, learner, "y\n")
		require.Equal(t, exitOK, a.reset(ctx(t), []string{`.\02-unsolved\`}), "reset of the step named as on Windows; stderr: %s", stderr)
		out := stdout.String()
		assert.Contains(t, out, "restore  02-unsolved/double.go", "the plan lists the file to restore")
		assert.Contains(t, out, "delete   02-unsolved/scratch.go", "and the file to delete")
		after := snapshot()
		assert.Equal(t, fixtureFiles["02-unsolved/double.go"], after["02-unsolved/double.go"],
			"the starter comes back from upstream, not from the learner's own commit")
		assert.Equal(t, "(missing)", after["02-unsolved/scratch.go"], "a file the starter does not have is gone")
		for _, name := range []string{"01-solved/calc.go", "notes.md", "untracked.txt"} {
			assert.Equal(t, before[name], after[name], "%s is outside the step: reset must not touch it", name)
		}

		stdout.Reset()
		assert.Equal(t, exitOK, a.reset(ctx(t), []string{"02"}), "reset of a step that is its starter")
		assert.Contains(t, stdout.String(), "already its starter", "nothing to do")
	})

	t.Run("-y resets without asking", func(t *testing.T) {
		write(t, learner, "02-unsolved/double.go", "package double // changed again\n")
		a, _, _ := testApp(t, learner, "")
		assert.Equal(t, exitOK, a.reset(ctx(t), []string{"-y", "02"}), "reset -y 02")
		assert.Equal(t, fixtureFiles["02-unsolved/double.go"], read(t, learner, "02-unsolved/double.go"), "the starter is back")
	})
}

// TestResetFrom: the starter comes from upstream's branch before origin's,
// from the commit -from names, and, in a clone with neither remote, only
// from -from: without it reset changes nothing and says so.
func TestResetFrom(t *testing.T) {
	t.Parallel()
	learner := gitFixture(t)
	base := filepath.Dir(learner)
	fork := filepath.Join(base, "fork") // the workshop as upstream has it: another double.go
	gitIn(t, base, "clone", "-q", filepath.Join(base, "upstream"), fork)
	write(t, fork, "02-unsolved/double.go", "package double // upstream's starter\n")
	gitIn(t, fork, "commit", "-q", "-am", "upstream's starter")
	gitIn(t, learner, "remote", "add", "upstream", fork)
	gitIn(t, learner, "fetch", "-q", "upstream")
	a, stdout, stderr := testApp(t, learner, "")

	require.Equal(t, exitOK, a.reset(ctx(t), []string{"-y", "02"}), "reset -y 02 with upstream and origin; stderr: %s", stderr)
	assert.Contains(t, stdout.String(), "as upstream/main has it", "reset names where the starter comes from")
	assert.Equal(t, "package double // upstream's starter\n", read(t, learner, "02-unsolved/double.go"), "upstream's starter, not origin's")

	require.Equal(t, exitOK, a.reset(ctx(t), []string{"-y", "-from", "origin/main", "02"}), "reset -y -from origin/main 02; stderr: %s", stderr)
	assert.Equal(t, fixtureFiles["02-unsolved/double.go"], read(t, learner, "02-unsolved/double.go"), "the starter as -from names it")

	gitIn(t, learner, "remote", "remove", "upstream")
	gitIn(t, learner, "remote", "remove", "origin")
	write(t, learner, "02-unsolved/double.go", "package double // my work\n")
	for _, args := range [][]string{{"-y", "02"}, {"-y", "-from", "nothing-by-this-name", "02"}} {
		stderr.Reset()
		assert.Equal(t, exitRed, a.reset(ctx(t), args), "reset %q in a clone without remotes", args)
		assert.Contains(t, stderr.String(), "nothing changed", "reset %q says it changed nothing", args)
		assert.Equal(t, "package double // my work\n", read(t, learner, "02-unsolved/double.go"), "double.go after reset %q", args)
	}
	assert.Contains(t, stderr.String(), `"nothing-by-this-name" is not a commit`, "-from a ref the clone does not have")
	stderr.Reset()
	a.reset(ctx(t), []string{"-y", "02"})
	assert.Contains(t, stderr.String(), "give -from a commit", "without a remote, reset says how to name the starter")
}

// TestResetOddNames: git quotes a name that is not plain ASCII, ends in a
// space or holds a quote, unless asked for -z; reset must delete each
// untracked file by its exact name, and an untracked repository whole.
func TestResetOddNames(t *testing.T) {
	t.Parallel()
	learner := gitFixture(t)
	odd := []string{"café.go", "nested/x.go"}
	if runtime.GOOS != "windows" { // names Windows does not allow
		odd = append(odd, `it's "quoted".go`, "trailing space.go ", "new\nline.go")
	}
	for _, name := range odd {
		write(t, learner, "02-unsolved/"+name, "package double\n")
	}
	gitIn(t, filepath.Join(learner, "02-unsolved", "nested"), "init", "-q")

	a, stdout, stderr := testApp(t, learner, "")
	require.Equal(t, exitOK, a.reset(ctx(t), []string{"-y", "02"}), "reset -y 02 with untracked %q; stderr: %s", odd, stderr)
	assert.Contains(t, stdout.String(), "delete   02-unsolved/café.go\n", "the plan names a file as it is")
	if runtime.GOOS != "windows" {
		assert.Contains(t, stdout.String(), `delete   "02-unsolved/trailing space.go "`, "the plan quotes a name a terminal would not show whole")
	}
	assert.Equal(t, []string{"README.md", "double.go", "double_test.go", "hints/task-1.md"}, files(t, filepath.Join(learner, "02-unsolved")),
		"files of 02-unsolved after reset -y 02: want the starter's only (git ls-files -z, names used as they are)")
}

// files lists the files under dir, with '/'.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	}), "listing %s", dir)
	return out
}

// TestStepsOfThisCloneOnly: a step is named by its number, its folder or a
// path to it; a path elsewhere, even one that ends in a step's name, names
// no step, and a step folder that links into another clone is refused.
func TestStepsOfThisCloneOnly(t *testing.T) {
	t.Parallel()
	learner := gitFixture(t)
	other := filepath.Join(filepath.Dir(learner), "other") // another clone, with work of its own
	gitIn(t, filepath.Dir(learner), "clone", "-q", filepath.Join(filepath.Dir(learner), "upstream"), other)
	write(t, other, "02-unsolved/double.go", "package double // the other clone's work\n")
	write(t, learner, "solutions/02-unsolved/double.go", "package double // not a step\n")

	a, _, stderr := testApp(t, learner, "y\n")
	for _, arg := range []string{"solutions/02-unsolved", "solutions/02-unsolved/", `solutions\02-unsolved`, filepath.Join(other, "02-unsolved")} {
		stderr.Reset()
		assert.Equal(t, exitUsage, a.reset(ctx(t), []string{"-y", arg}), "reset -y %s: a path that is no step of this clone (usage error)", arg)
		assert.Contains(t, stderr.String(), `the steps are 01-solved, 02-unsolved`, "reset -y %s: the error names the steps", arg)
	}
	assert.Equal(t, "package double // not a step\n", read(t, learner, "solutions/02-unsolved/double.go"), "solutions/02-unsolved after the refusals")

	require.NoError(t, os.RemoveAll(filepath.Join(learner, "02-unsolved")), "removing the learner's 02-unsolved")
	if err := os.Symlink(filepath.Join(other, "02-unsolved"), filepath.Join(learner, "02-unsolved")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	for name, cmd := range map[string]func(context.Context, []string) int{"reset": a.reset, "check": a.check, "hint": a.hint} {
		stderr.Reset()
		assert.Equal(t, exitUsage, cmd(ctx(t), []string{"02"}), "%s 02, a link to %s: want it refused (usage error)", name, other)
		assert.Contains(t, stderr.String(), "outside this clone", "%s 02: the error says why", name)
	}
	assert.Equal(t, "package double // the other clone's work\n", read(t, other, "02-unsolved/double.go"), "the other clone's work after reset -y 02 in this one")
}

// TestShownName: reset lists a name as it is when a terminal shows it whole,
// else quoted: a space at its end, a control character, a byte not UTF-8.
func TestShownName(t *testing.T) {
	for name, want := range map[string]string{"café.go": "café.go", "a b.go": "a b.go", "end ": `"end "`,
		"new\nline": `"new\nline"`, "bad\xffname.go": `"bad\xffname.go"`, "esc\x1b[2J": `"esc\x1b[2J"`} {
		assert.Equal(t, want, shownName(name), "shownName(%q)", name)
	}
}
