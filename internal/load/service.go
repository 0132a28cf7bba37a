package load

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// service is a workshop service running as a child process.
type service struct {
	cancel context.CancelFunc
	addr   string
	exited chan struct{} // closed when its output is read and the process has exited

	goroutines atomic.Int64 // the probe's last report: peak goroutines over its interval
	tail       []string     // the last lines it wrote, for error messages; read once exited is closed
}

var addrRE = regexp.MustCompile(`addr=(127\.0\.0\.1:\d+)`)

// startService runs bin with args and "-addr 127.0.0.1:0", and returns once
// it has logged the address it listens on (every workshop service logs
// "addr=HOST:PORT" with log/slog). Cancelling ctx, or calling stop, sends it
// an interrupt, as Ctrl-C does, and kills it if it has not exited 3s later.
func startService(ctx context.Context, name, bin string, args ...string) (*service, error) {
	ctx, cancel := context.WithCancel(ctx)
	cmd := exec.CommandContext(ctx, bin, append(args, "-addr", "127.0.0.1:0")...)
	cmd.Cancel = func() error {
		if runtime.GOOS == "windows" {
			return cmd.Process.Kill() // no interrupts between processes there
		}
		return cmd.Process.Signal(os.Interrupt)
	}
	cmd.WaitDelay = 3 * time.Second // exec kills it then, whether or not Wait runs yet
	cmd.Env = append(os.Environ(), probeEnv+"=1")
	// Stdout and stderr share one OS pipe, read here: no copying goroutine
	// of exec's in between, which on a busy machine delays the lab's proxy.
	out, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, err
	}
	s := &service{cancel: cancel, exited: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		s.read(out, addr)
		cmd.Wait() //nolint:errcheck // an interrupted service may exit 1: its tail says why
		close(s.exited)
	}()
	select {
	case s.addr = <-addr:
		return s, nil
	case <-s.exited:
		cancel()
		return nil, fmt.Errorf("%s exited before it said where it listens:\n%s", name, s.lastLines())
	case <-time.After(15 * time.Second):
		s.stop()
		return nil, fmt.Errorf("%s did not log addr=127.0.0.1:PORT within 15s:\n%s", name, s.lastLines())
	case <-ctx.Done():
		s.stop()
		return nil, ctx.Err()
	}
}

// read reads lines of the service's output to the end: the address, once,
// the probe's reports, and the last few lines of everything else.
func (s *service) read(r io.Reader, addr chan<- string) {
	sc := bufio.NewScanner(r)
	found := false
	for sc.Scan() {
		line := sc.Text()
		if n, ok := strings.CutPrefix(line, probePrefix); ok {
			if g, err := strconv.Atoi(n); err == nil {
				s.goroutines.Store(int64(g))
			}
			continue
		}
		if m := addrRE.FindStringSubmatch(line); m != nil && !found {
			addr <- m[1]
			found = true
		}
		s.tail = append(s.tail[max(len(s.tail)-19, 0):], line)
	}
	io.Copy(io.Discard, r) //nolint:errcheck // a line too long for the scanner: drain the rest
}

func (s *service) lastLines() string { return "\t" + strings.Join(s.tail, "\n\t") }

// stop interrupts the service and waits until it has exited.
func (s *service) stop() {
	s.cancel()
	<-s.exited
}
