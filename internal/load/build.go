package load

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// probeFile is compiled into every service the lab builds, with go build's
// -overlay flag: the sources on disk stay untouched. When the lab sets
// probeEnv, it samples runtime.NumGoroutine every 5ms and writes the peak of
// every 50ms to stderr, its own goroutine left out; without it, it does
// nothing.
const probeFile = `package main

import (
	"fmt"
	"os"
	"runtime"
	"time"
)

func init() {
	if os.Getenv("` + probeEnv + `") == "" {
		return
	}
	go func() {
		tick := time.NewTicker(5 * time.Millisecond)
		top, n := 0, 0
		for range tick.C {
			top = max(top, runtime.NumGoroutine()-1)
			if n++; n == 10 {
				fmt.Fprintf(os.Stderr, "` + probePrefix + `%d\n", top)
				top, n = 0, 0
			}
		}
	}()
}
`

const (
	probeEnv    = "WORKSHOP_LOAD_PROBE"
	probePrefix = "workshop-load-probe goroutines="
	probeName   = "zz_workshop_load_probe.go"
)

// build compiles the packages (directories relative to root, such as
// "solutions/01-stock-service") into dir in one go build, with the probe
// added to each, and returns the binaries' paths by step folder (the
// package's last element); a test of the lab's signals swaps in a fake.
var build = func(ctx context.Context, root, dir string, pkgs []string) (map[string]string, error) {
	probe := filepath.Join(dir, "probe.go.txt")
	if err := os.WriteFile(probe, []byte(probeFile), 0o644); err != nil {
		return nil, err
	}
	overlay := struct{ Replace map[string]string }{Replace: map[string]string{}}
	args := []string{"build", "-overlay", filepath.Join(dir, "overlay.json"), "-o", dir + string(filepath.Separator)}
	bins := map[string]string{}
	for _, pkg := range pkgs {
		abs := filepath.Join(root, filepath.FromSlash(pkg))
		overlay.Replace[filepath.Join(abs, probeName)] = probe
		args = append(args, "./"+pkg)
		bin := filepath.Join(dir, filepath.Base(abs))
		if runtime.GOOS == "windows" {
			bin += ".exe"
		}
		bins[filepath.Base(abs)] = bin
	}
	js, _ := json.Marshal(overlay) // strings only: it cannot fail
	if err := os.WriteFile(filepath.Join(dir, "overlay.json"), js, 0o644); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return bins, nil
}
