package launch

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

// The test binary plays every part: the lab (childEnv=lab), and the runner
// that launches it (childEnv=runner).
const childEnv = "WORKSHOP_LAUNCH_TEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "lab":
		os.Exit(labChild(os.Args[1:]))
	case "runner":
		lab = testLab
		os.Setenv(childEnv, "lab") //nolint:errcheck // for the lab it starts
		os.Exit(Lab(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// testLab is the test binary as the lab.
func testLab() []string { return []string{os.Args[0]} }

// labChild is a fake lab: "exit N" exits N and prints its arguments;
// "wait" says "waiting", then waits for a signal with Go's default
// handling (SIGTERM ends it) for at most 20s, and exits 3.
func labChild(args []string) int {
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

func TestLabPassesArgumentsAndExitCode(t *testing.T) {
	t.Setenv(childEnv, "lab")
	defer func(f func() []string) { lab = f }(lab)
	lab = testLab
	for _, code := range []int{0, 1, 2, 130} {
		var out, errOut bytes.Buffer
		got := Lab(t.Context(), []string{"exit", strconv.Itoa(code)}, &out, &errOut)
		assert.Equal(t, code, got, "go tool workshop load's exit code when the lab exits %d; stderr: %s", code, errOut.String())
		assert.Equal(t, fmt.Sprintf("lab exit %d\n", code), out.String(), "what the lab printed, with the arguments it was given")
	}
}

func TestLabCannotStart(t *testing.T) {
	defer func(f func() []string) { lab = f }(lab)
	lab = func() []string { return []string{t.TempDir() + "/no-such-go"} }
	var errOut bytes.Buffer
	assert.Equal(t, 1, Lab(t.Context(), nil, io.Discard, &errOut), "exit code when the lab cannot start")
	assert.Contains(t, errOut.String(), "go tool lab", "the message names the command to run instead")
}

// A SIGTERM sent to the runner alone (kill PID) reaches the lab, and the
// runner exits as the lab did: 143, the shell's 128+15.
func TestLabGetsTheRunnersSignal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("os.Process.Signal sends no SIGTERM on Windows")
	}
	cmd := exec.Command(os.Args[0], "wait")
	cmd.Env = append(os.Environ(), childEnv+"=runner")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start(), "starting the runner")
	// The child of the runner is the lab: it says so once it waits.
	waiting := make(chan bool, 1)
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
// package of the lab, hey or x/net.
func TestRunnerDoesNotLinkTheLab(t *testing.T) {
	const runner = "github.com/icecreamcorp/go-cancellation-workshop/internal/workshop"
	out, err := exec.Command(GoCommand(), "list", "-deps", runner).CombinedOutput()
	require.NoError(t, err, "go list -deps %s: %s", runner, out)
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{runner[:strings.LastIndex(runner, "/")] + "/load", "github.com/rakyll/hey", "golang.org/x/net", "crypto/tls"} {
			if dep == banned || strings.HasPrefix(dep, banned+"/") && dep != banned+"/launch" {
				assert.Fail(t, "the runner links the lab", "go list -deps %s lists %s: the lab is go tool lab, which go tool workshop load runs", runner, dep)
			}
		}
	}
}
