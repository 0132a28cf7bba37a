package load

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
)

// The lab stopped by a signal, for real: the test binary runs `workshop
// load` as a child (labChild), whose fake build makes the test binary its
// services too (serviceChild); each service writes its pid down. Once the
// load is on, the test signals the lab, and wants every service gone, the
// lab's temporary folder removed and the exit code 128+N.
func TestLabStopsOnSignal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("os.Process.Signal sends no SIGINT, SIGTERM or SIGHUP on Windows")
	}
	leakcheck.Check(t)
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}, {syscall.SIGHUP, 129}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			tmp, pids := t.TempDir(), t.TempDir()
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), childEnv+"=lab", pidsEnv+"="+pids, "TMPDIR="+tmp)
			progress := &watchWriter{want: "loading", seen: make(chan struct{})}
			cmd.Stdout, cmd.Stderr = progress, progress
			require.NoError(t, cmd.Start(), "starting the lab")
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case <-progress.seen:
			case err := <-exited:
				require.FailNow(t, "the lab exited before its load began", "%v; its output:\n%s", err, progress)
			case <-time.After(30 * time.Second):
				cmd.Process.Kill() //nolint:errcheck
				<-exited
				require.FailNow(t, "the lab did not begin its load within 30s", "its output:\n%s", progress)
			}
			require.NoError(t, cmd.Process.Signal(tc.sig), "sending %v", tc.sig)
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill() //nolint:errcheck
				<-exited
				require.FailNow(t, "the lab did not exit within 30s of "+tc.sig.String(), "its output:\n%s", progress)
			}
			assert.Equal(t, tc.code, cmd.ProcessState.ExitCode(), "exit code of the lab after %v (-1: killed by it); want 128+%d: stop everything, then exit; its output:\n%s", tc.sig, tc.sig, progress)
			left, _ := os.ReadDir(tmp)
			assert.Empty(t, left, "the temporary folder after %v: want it removed", tc.sig)
			started, _ := os.ReadDir(pids)
			assert.Len(t, started, 2, "services started: the stock service and menu v1")
			for _, f := range started {
				pid, _ := strconv.Atoi(f.Name())
				if p, err := os.FindProcess(pid); err == nil && p.Signal(syscall.Signal(0)) == nil {
					p.Kill() //nolint:errcheck
					assert.Fail(t, "a service outlived the lab", "pid %d still ran after the lab exited on %v: want every process it started stopped", pid, tc.sig)
				}
			}
		})
	}
}

const (
	childEnv = "WORKSHOP_LOAD_TEST_CHILD"
	pidsEnv  = "WORKSHOP_LOAD_TEST_PIDS"
)

// labChild runs `go tool workshop load` as main does, with the test binary
// for every service.
func labChild() int {
	build = func(_ context.Context, _, dir string, _ []string) (map[string]string, error) {
		os.Setenv(childEnv, "service") //nolint:errcheck // the services this process starts
		exe, err := os.Executable()
		bins := map[string]string{stockDir: exe}
		for _, v := range versions {
			bins[v.Dir] = exe
		}
		return bins, errors.Join(err, os.WriteFile(filepath.Join(dir, "built"), nil, 0o644))
	}
	return Main(context.Background(), []string{"-versions", "v1", "-c", "1", "-duration", "1m", "-scale", "0.1"}, os.Stdout, os.Stderr)
}

// serviceChild is a service that answers {} to everything after 10ms,
// until an interrupt, or a minute if no one sends one.
func serviceChild() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err == nil {
		err = os.WriteFile(filepath.Join(os.Getenv(pidsEnv), strconv.Itoa(os.Getpid())), nil, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	srv := &http.Server{ReadHeaderTimeout: time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Millisecond):
			fmt.Fprint(w, "{}")
		}
	})}
	go srv.Serve(ln) //nolint:errcheck // ErrServerClosed
	fmt.Printf("level=INFO msg=listening addr=%s\n", ln.Addr())
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute):
	}
	srv.Close()
	return 0
}
