// Package load is the load-test lab, `go tool lab` (which `go tool workshop
// load` runs): the talk's load tests in one command, and what the talk could
// not see. README.md says what it measures and how.
package load

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/gotest"
	"golang.org/x/term"
)

// Main runs the lab with its command-line arguments and returns the
// process's exit code, as README.md lists them.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	s, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "workshop load:", err)
		return 2
	}
	ctx, stop := onStopSignal(ctx)
	defer stop()
	report, err := lab(ctx, s, newProgress(stderr))
	var sig signalled
	switch {
	case errors.As(context.Cause(ctx), &sig):
		fmt.Fprintf(stderr, "\nworkshop load: stopped by signal %d (%v); everything it started is stopped and its files removed\n", sig.sig, sig.sig)
		return 128 + int(sig.sig)
	case err != nil:
		fmt.Fprintln(stderr, "\nworkshop load:", err)
		return 1
	}
	return finish(report, stdout, stderr)
}

// finish prints a report as text or JSON, writes its HTML file if asked,
// and returns the exit code: 1 when its figures do not hold together.
func finish(r *Report, stdout, stderr io.Writer) int {
	if r.Setup.JSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			fmt.Fprintln(stderr, "workshop load:", err)
			return 1
		}
		for _, w := range r.Warnings {
			fmt.Fprintln(stderr, "workshop load: warning:", w)
		}
	} else {
		writeText(stdout, r)
	}
	if file := r.Setup.HTML; file != "" {
		if err := os.WriteFile(file, []byte(renderHTML(r)), 0o644); err != nil {
			fmt.Fprintln(stderr, "workshop load:", err)
			return 1
		}
		fmt.Fprintf(stderr, "workshop load: wrote %s\n", file)
	}
	if len(r.Warnings) > 0 {
		return 1
	}
	return 0
}

func versionNames() []string {
	var names []string
	for _, v := range versions {
		names = append(names, v.Name)
	}
	return names
}

func parseFlags(args []string, stderr io.Writer) (Setup, error) {
	s := Setup{CPUs: runtime.NumCPU(), GoVer: runtime.Version()}
	flags := flag.NewFlagSet("workshop load", flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.Usage = func() {
		fmt.Fprint(stderr, `usage: go tool workshop load [flags]

Starts the stock service and each menu version on loopback, loads each menu
with 100 connections (hey's requester), and prints the talk's table beside
the talk's figures, what happened behind the menu, and a chart. The default
run takes under a minute; -scale 1 -duration 60s is the talk's own setup.

`)
		flags.PrintDefaults()
	}
	flags.Float64Var(&s.Scale, "scale", 0.25, "multiply every duration by `s`: the menus' timeout and fail-fast cool-down (1s), the stock service's -max-delay (10s), the load (20s per version)")
	flags.DurationVar(&s.Duration, "duration", 0, "load each version for `d` (default 20s × scale)")
	flags.IntVar(&s.Conns, "c", 100, "concurrent `connections` to the menu")
	list := flags.String("versions", strings.Join(versionNames(), ","), "comma-separated `list` of versions to measure")
	flags.BoolVar(&s.Own, "own", false, "measure your own steps (01-stock-service, 02-menu-v1, …) instead of the solutions")
	flags.BoolVar(&s.JSON, "json", false, "print every figure as JSON instead of tables")
	flags.StringVar(&s.HTML, "html", "", "also write a self-contained HTML report, its chart as SVG, to `file`")
	if err := flags.Parse(args); err != nil {
		return s, err
	}
	switch {
	case flags.NArg() > 0:
		return s, fmt.Errorf("unexpected argument %q (flags only; -h lists them)", flags.Arg(0))
	case s.Scale <= 0 || s.Scale > 10:
		return s, fmt.Errorf("-scale %v: want more than 0 and at most 10", s.Scale)
	case s.Conns < 1:
		return s, fmt.Errorf("-c %d: want at least 1 connection", s.Conns)
	case s.Duration < 0:
		return s, fmt.Errorf("-duration %v: must be positive", s.Duration)
	}
	scaled := func(d time.Duration) time.Duration { return time.Duration(float64(d) * s.Scale) }
	s.Timeout, s.MaxDelay = scaled(time.Second), scaled(10*time.Second)
	if s.Duration == 0 {
		s.Duration = scaled(20 * time.Second)
	}
	for name := range strings.SplitSeq(*list, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(versionNames(), name) {
			return s, fmt.Errorf("-versions: unknown version %q; want some of %s", name, strings.Join(versionNames(), ","))
		}
		if !slices.Contains(s.Versions, name) {
			s.Versions = append(s.Versions, name)
		}
	}
	return s, nil
}

// Report is everything a run of the lab measured: what -json prints.
type Report struct {
	Setup    Setup     `json:"setup"`
	Build    float64   `json:"build_s"` // with -own, checking the steps' tests too
	Total    float64   `json:"total_s"`
	Results  []*Result `json:"results"`
	Goals    []Goal    `json:"goals"`
	Warnings []string  `json:"warnings,omitempty"` // figures that do not hold together: crossChecks
	Finished time.Time `json:"finished"`
}

// lab builds the services, measures each version in turn and returns the
// report.
func lab(ctx context.Context, s Setup, p *progress) (*Report, error) {
	began := time.Now()
	root, err := gotest.ModuleRoot(".") // the go.mod's folder that holds the working folder
	if err != nil {
		return nil, err
	}
	pkgs, err := servicePkgs(root, s)
	if err != nil {
		return nil, err
	}
	if s.Own {
		p.line("running your steps' tests (go test " + strings.Join(pkgs, " ") + ") …")
		if s.Unfinished, err = ownProgress(ctx, root, pkgs); err != nil {
			return nil, fmt.Errorf("running your steps' tests: %w", err)
		}
		if len(s.Unfinished) == 0 {
			p.done("every test of " + strings.Join(pkgs, ", ") + " passes")
		}
		for _, dir := range pkgs {
			if why, ok := s.Unfinished[dir]; ok {
				p.done(dir + ": " + why)
			}
		}
	}
	tmp, err := os.MkdirTemp("", "workshop-load-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	p.line(fmt.Sprintf("building %s …", strings.Join(pkgs, " ")))
	built := time.Now()
	bins, err := build(ctx, root, tmp, pkgs)
	if err != nil {
		return nil, err
	}
	p.done(fmt.Sprintf("built in %.1fs", time.Since(built).Seconds()))
	return measureAll(ctx, s, bins, p, began)
}

// servicePkgs returns the stock service and the menus s measures, as folders
// relative to root: solutions/01-stock-service, … or with -own
// 01-stock-service, …; an error, naming the fix, when one has no Go files
// (go build with the probe's overlay would fail in the linker, "function
// main is undeclared").
func servicePkgs(root string, s Setup) ([]string, error) {
	prefix := "solutions/"
	if s.Own {
		prefix = ""
	}
	pkgs := []string{prefix + stockDir}
	for _, v := range versions {
		if slices.Contains(s.Versions, v.Name) && !slices.Contains(pkgs, prefix+v.Dir) {
			pkgs = append(pkgs, prefix+v.Dir)
		}
	}
	for _, pkg := range pkgs {
		dir := filepath.Join(root, filepath.FromSlash(pkg))
		entries, _ := os.ReadDir(dir) // not a Glob: the clone's path may hold a [
		switch {
		case slices.ContainsFunc(entries, func(e os.DirEntry) bool { return strings.HasSuffix(e.Name(), ".go") }):
		case s.Own:
			return nil, fmt.Errorf("no Go files in %s: -own measures your step folders at the repository's root (%s)", dir, strings.Join(pkgs, ", "))
		default:
			return nil, fmt.Errorf("no %s in this clone: the lab measures the solutions; to measure your own steps instead: go tool workshop load -own", dir)
		}
	}
	return pkgs, nil
}

// measureAll measures each version of s in turn with the binaries bins.
// began is when the run began, for the report's timings.
func measureAll(ctx context.Context, s Setup, bins map[string]string, p *progress, began time.Time) (*Report, error) {
	r := &Report{Setup: s, Build: time.Since(began).Seconds()}
	for _, v := range versions {
		if !slices.Contains(s.Versions, v.Name) {
			continue
		}
		res, err := measure(ctx, s, v, bins, p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", v.Name, err)
		}
		for _, dir := range []string{stockDir, v.Dir} {
			if _, ok := s.Unfinished[dir]; ok {
				res.Unfinished = append(res.Unfinished, dir)
			}
		}
		p.done(fmt.Sprintf("%-13s %6d requests, %6.1f req/s, p99 %s; stock in flight peaked at %d",
			v.Name, res.Requests, res.ReqPerSec, ms(res.Latency.P99), res.PeakInFlight))
		r.Results = append(r.Results, res)
	}
	r.Goals = goals(r)
	r.Warnings = crossChecks(r)
	r.Total = time.Since(began).Seconds()
	r.Finished = time.Now().UTC().Truncate(time.Second)
	return r, nil
}

// progress shows the lab's progress: on a terminal as one line rewritten in
// place, elsewhere as a line per phase.
type progress struct {
	w        io.Writer
	terminal bool
}

func newProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	return &progress{w: w, terminal: ok && term.IsTerminal(int(f.Fd()))}
}

// line shows s until the next line; off a terminal, it prints it.
func (p *progress) line(s string) { p.write(s, "") }

// done prints s to stay.
func (p *progress) done(s string) { p.write(s, "\n") }

// update shows s on a terminal only: figures that change as the load runs.
func (p *progress) update(s string) {
	if p.terminal {
		p.write(s, "")
	}
}

func (p *progress) write(s, end string) {
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K%s%s", s, end)
	} else {
		fmt.Fprintln(p.w, s)
	}
}
