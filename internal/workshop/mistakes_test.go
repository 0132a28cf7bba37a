package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// mistakes shows a green task's catalog, each entry with the message its
// mutant gets, and refuses a task not yet green.
func TestMistakes(t *testing.T) {
	t.Parallel()
	a, stdout, stderr := testApp(t, fixture(t), "")

	assert.Equal(t, exitOK, a.mistakes(ctx(t), []string{"01", "1"}), "mistakes of a green task; stderr: %s", stderr)
	out := stdout.String()
	assert.Contains(t, out, "01-solved, task 1: Add two numbers — 1 wrong answers", "the task")
	assert.Contains(t, out, "1. Subtracts\n   The sign is wrong.", "the entry's title and prose")
	assert.Contains(t, out, "+func Add(a, b int) int { return a - b }", "its diff")
	assert.Contains(t, out, "Add(2, 3) = -1; want 5", "the message the tests give the mutant")

	stdout.Reset()
	assert.Equal(t, exitOK, a.mistakes(ctx(t), []string{"01"}), "mistakes of every green task of a step")
	assert.Contains(t, stdout.String(), "01-solved, task 2: Subtract — 0 wrong answers", "task 2 is green too, with no entry")

	stdout.Reset()
	assert.Equal(t, exitRed, a.mistakes(ctx(t), []string{"02", "1"}), "mistakes of a task not green")
	assert.Contains(t, stdout.String(), "Finish task 1 first: the catalog shows its answer", "a polite refusal")
	assert.NotContains(t, stdout.String(), "Adds two", "and no entry")

	stdout.Reset()
	assert.Equal(t, exitOK, a.mistakes(ctx(t), []string{"02"}), "mistakes of a step with no green task")
	assert.Contains(t, stdout.String(), "No task of 02-unsolved is green yet", "says so")
	assert.Equal(t, exitUsage, a.mistakes(ctx(t), []string{"02", "9"}), "a task that does not exist")
}
