package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The test binary plays the lab (labChildEnv=lab) and the runner that
// launches it (labChildEnv=runner), before TestMain.
const labChildEnv = "WORKSHOP_LOAD_TEST_CHILD"

func init() {
	switch os.Getenv(labChildEnv) {
	case "lab":
		os.Exit(fakeLab(os.Args[1:]))
	case "runner":
		labCommand = []string{os.Args[0]}
		os.Setenv(labChildEnv, "lab") //nolint:errcheck // for the lab it starts
		os.Exit(run(context.Background(), append([]string{"load"}, os.Args[1:]...), os.Stdout, os.Stderr))
	}
}

// fakeLab prints its arguments; "exit N" exits N; "wait" says "waiting",
// then waits for a signal with Go's default handling (SIGTERM ends it) for
// at most 20s, and exits 3.
func fakeLab(args []string) int {
	fmt.Println("lab", strings.Join(args, " "))
	if len(args) == 2 && args[0] == "exit" {
		n, _ := strconv.Atoi(args[1])
		return n
	}
	signal.Ignore(os.Interrupt) // as a lab that already heard the terminal's Ctrl-C
	fmt.Println("waiting")
	time.Sleep(20 * time.Second)
	return 3
}

func TestLoadPassesArgumentsAndExitCode(t *testing.T) {
	t.Setenv(labChildEnv, "lab")
	defer func(c []string) { labCommand = c }(labCommand)
	labCommand = []string{os.Args[0]}
	for _, code := range []int{0, 1, 2, 130} {
		var out, errOut bytes.Buffer
		got := run(t.Context(), []string{"load", "exit", strconv.Itoa(code)}, &out, &errOut)
		assert.Equal(t, code, got, "go tool workshop load's exit code when the lab exits %d; stderr: %s", code, errOut.String())
		assert.Equal(t, fmt.Sprintf("lab exit %d\n", code), out.String(), "what the lab printed, with the arguments it was given")
	}
	labCommand = []string{t.TempDir() + "/no-such-go"}
	var errOut bytes.Buffer
	assert.Equal(t, 1, run(t.Context(), []string{"load"}, io.Discard, &errOut), "exit code when the lab cannot start")
	assert.Contains(t, errOut.String(), "go tool lab", "the message names the command to run instead")
}

// A SIGTERM sent to the runner alone (kill PID) reaches the lab, and the
// runner exits as the lab did: 143, the shell's 128+15.
func TestLoadPassesSignalsOn(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("os.Process.Signal sends no SIGTERM on Windows")
	}
	cmd := exec.Command(os.Args[0], "wait")
	cmd.Env = append(os.Environ(), labChildEnv+"=runner")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start(), "starting the runner")
	waiting := make(chan bool, 1) // the runner's child, the lab, says so once it waits
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() && sc.Text() != "waiting" {
		}
		waiting <- sc.Text() == "waiting"
		io.Copy(io.Discard, stdout) //nolint:errcheck
	}()
	select {
	case ok := <-waiting:
		require.True(t, ok, "the lab ended before it waited; stderr: %s", &stderr)
	case <-time.After(15 * time.Second):
		cmd.Process.Kill() //nolint:errcheck
		require.FailNow(t, "the lab did not start within 15s")
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM), "sending SIGTERM to the runner")
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(15 * time.Second):
		cmd.Process.Kill() //nolint:errcheck
		<-exited
		require.FailNow(t, "the runner did not exit within 15s of SIGTERM: the signal did not reach the lab")
	}
	assert.Equal(t, 143, cmd.ProcessState.ExitCode(), "the runner's exit code after SIGTERM, passed on to the lab that it ended; stderr: %s", &stderr)
}

// The runner links none of the lab: go list -deps of the runner names no
// package of the lab, hey, x/net or crypto/tls. What both need is
// internal/gotest, and the lab links none of the runner either.
func TestRunnerDoesNotLinkTheLab(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on the PATH")
	}
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	require.NoError(t, err, "go list -deps .: %s", out)
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/icecreamcorp/go-cancellation-workshop/internal/load", "github.com/rakyll/hey", "golang.org/x/net", "crypto/tls"} {
			if dep == banned || strings.HasPrefix(dep, banned+"/") {
				assert.Fail(t, "the runner links the lab", "go list -deps lists %s: the lab is go tool lab, which go tool workshop load runs", dep)
			}
		}
	}
	out, err = exec.Command("go", "list", "-deps", "../load/cmd/lab").CombinedOutput()
	require.NoError(t, err, "go list -deps ../load/cmd/lab: %s", out)
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/icecreamcorp/go-cancellation-workshop/internal/workshop") {
			assert.Fail(t, "the lab links the runner", "go list -deps lists %s: what both need belongs in internal/gotest", dep)
		}
	}
}
