// Command verdicttime measures how long go tool workshop watch takes from a
// save to its verdicts: the first (the quick run: the task in progress's
// tests alone, without -race) and the full one (go vet, every test with
// -race). It works on a copy of the repository's files, so the checkout is
// never touched: per step, it starts watch, waits for its first run (which
// warms the build cache for the copy), then saves a Go file of the step
// with new content, n times (each 2s after the last run ended), and times
// each save.
//
//	go run ./internal/workshop/verdicttime [-n 3] [STEP…]   # default: 01 05 06
//
// The figures depend on the machine and its load: it prints the load
// average (Linux) beside them.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

func main() {
	n := flag.Int("n", 3, "saves per step")
	flag.Parse()
	steps := flag.Args()
	if len(steps) == 0 {
		steps = []string{"01", "05", "06"}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, steps, *n); err != nil {
		fmt.Fprintf(os.Stderr, "verdicttime: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, steps []string, n int) error {
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return fmt.Errorf("go list -m: %v (run it inside the workshop's repository)", err)
	}
	src := strings.TrimSpace(string(root))
	tmp, err := os.MkdirTemp("", "verdicttime-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	dst := filepath.Join(tmp, "repo")
	if err := copyTree(src, dst); err != nil {
		return fmt.Errorf("copying the repository: %v", err)
	}
	bin := filepath.Join(tmp, "workshop")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./internal/workshop")
	build.Dir, build.Stderr = dst, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building the runner: %v", err)
	}
	fmt.Printf("load before: %s\n", loadAvg())
	fmt.Printf("%-6s %-5s %14s %14s\n", "step", "save", "first verdict", "full verdict")
	var firsts, fulls []time.Duration
	for _, step := range steps {
		f, u, err := measure(ctx, bin, dst, step, n)
		if err != nil {
			return fmt.Errorf("step %s: %v", step, err)
		}
		for i := range f {
			fmt.Printf("%-6s %-5d %13.2fs %13.2fs\n", step, i+1, f[i].Seconds(), u[i].Seconds())
		}
		firsts, fulls = append(firsts, f...), append(fulls, u...)
	}
	fmt.Printf("median: first verdict %.2fs, full verdict %.2fs (%d saves)\n", median(firsts).Seconds(), median(fulls).Seconds(), len(firsts))
	fmt.Printf("load after: %s\n", loadAvg())
	return nil
}

// measure runs watch on one step of the copy, and times n saves.
func measure(ctx context.Context, bin, dir, step string, n int) (first, full []time.Duration, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "watch", step)
	cmd.Dir = dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	defer func() { cancel(); _ = cmd.Wait() }()
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	wait := func(prefix string) (time.Time, error) {
		timeout := time.After(5 * time.Minute)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					return time.Time{}, fmt.Errorf("watch ended before printing %q", prefix)
				}
				if strings.HasPrefix(l, prefix) {
					return time.Now(), nil
				}
			case <-timeout:
				return time.Time{}, fmt.Errorf("no %q within 5 minutes", prefix)
			case <-ctx.Done():
				return time.Time{}, ctx.Err()
			}
		}
	}
	if _, err := wait("Watching "); err != nil { // the first run: warms the copy's build cache
		return nil, nil, err
	}
	file, err := goFile(dir, step)
	if err != nil {
		return nil, nil, err
	}
	orig, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, err
	}
	for i := 1; i <= n; i++ {
		// A learner reads a verdict before saving again: the save comes 2s
		// after the last run ended, not in the instant it ends, when the go
		// command and the test binary it ran are still exiting.
		time.Sleep(2 * time.Second)
		content := fmt.Sprintf("%s\n// verdicttime: save %d\n", orig, i)
		start := time.Now()
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			return nil, nil, err
		}
		q, err := wait("Quick run (")
		if err != nil {
			return nil, nil, err
		}
		f, err := wait("Full run: ")
		if err != nil {
			return nil, nil, err
		}
		first, full = append(first, q.Sub(start)), append(full, f.Sub(start))
		if _, err := wait("Watching "); err != nil {
			return nil, nil, err
		}
	}
	return first, full, nil
}

// goFile is the first non-test Go file of the step's folder.
func goFile(dir, step string) (string, error) {
	matches, _ := filepath.Glob(filepath.Join(dir, step+"-*", "*.go"))
	sort.Strings(matches)
	for _, m := range matches {
		if !strings.HasSuffix(m, "_test.go") {
			return m, nil
		}
	}
	return "", fmt.Errorf("no Go file in step %s", step)
}

// copyTree copies the files git knows of (tracked, and untracked but not
// ignored), as they are in the work tree.
func copyTree(src, dst string) error {
	out, err := exec.Command("git", "-C", src, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		return fmt.Errorf("git ls-files: %v", err)
	}
	for _, name := range strings.Split(string(out), "\x00") {
		if name == "" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			continue // deleted in the work tree
		}
		path := filepath.Join(dst, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
	}
	return exec.Command("git", "-C", dst, "init", "-q").Run()
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown (no /proc/loadavg)"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return fmt.Sprintf("%s %s %s (1, 5, 15 min; %d CPUs)", f[0], f[1], f[2], numCPU())
}

func numCPU() int { return runtime.NumCPU() }
