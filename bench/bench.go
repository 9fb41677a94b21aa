package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// bench holds what the workloads share: the built binaries, the
// fixtures, the rows printed so far.
type bench struct {
	c       config
	tmp     string
	bin     map[string]string // program name → built binary
	root    string            // the module's root
	timeBin string            // /usr/bin/time, when present
	invalid int               // rows measured at a load above the cores
	rows    int
	servers int       // servers stopped after a check that they listened on 127.0.0.1 only
	out     io.Writer // the table
	log     io.Writer // what the bench does, skips and failures
}

// programs built for the workloads: the module's commands and the floors.
var programs = map[string]string{
	"mcpres":         "./cmd/mcpres",
	"mcpres-loadgen": "./cmd/mcpres-loadgen",
	"mcpres-pkcs11":  "./cmd/mcpres-pkcs11",
	// mcpres runs it, found next to itself, for keyless verification.
	"mcpres-sigstore": "./cmd/mcpres-sigstore",
	"floor":           "./bench/floor",
	"tesseraposix":    "./bench/tesseraposix",
	"noadmit":         "./bench/noadmit",
	"monitorlog":      "./bench/monitorlog",
	"monitorfloor":    "./bench/monitorfloor",
}

func newBench(c config, stdout, stderr io.Writer) (*bench, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(c.tmp, "mcpres-bench-")
	if err != nil {
		return nil, err
	}
	b := &bench{c: c, tmp: tmp, root: root, bin: map[string]string{}, out: stdout, log: stderr}
	if _, err := os.Stat("/usr/bin/time"); err == nil {
		b.timeBin = "/usr/bin/time"
	}
	fmt.Fprintf(b.log, "bench: building into %s\n", tmp)
	args := []string{"build", "-o", filepath.Join(tmp, "bin") + string(filepath.Separator)}
	for name, pkg := range programs {
		args = append(args, pkg)
		b.bin[name] = filepath.Join(tmp, "bin", name)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		b.close()
		return nil, fmt.Errorf("go build: %v\n%s", err, out)
	}
	// The object-storage log is in an mcpres built with -tags mcpres_s3
	// only (cmd/mcpres/logs3_aws.go): the s3 workload runs that one.
	b.bin["mcpres-s3"] = filepath.Join(tmp, "bin", "mcpres-s3")
	cmd = exec.Command("go", "build", "-tags", "mcpres_s3", "-o", b.bin["mcpres-s3"], "./cmd/mcpres")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		b.close()
		return nil, fmt.Errorf("go build -tags mcpres_s3: %v\n%s", err, out)
	}
	return b, nil
}

// moduleRoot is the directory of the go.mod of this checkout.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run bench inside the mcpres checkout (go run ./bench)")
	}
	return filepath.Dir(mod), nil
}

func (b *bench) close() {
	if b.c.keep {
		fmt.Fprintf(b.log, "bench: kept %s\n", b.tmp)
		return
	}
	os.RemoveAll(b.tmp)
}

// path returns a path in the temporary directory.
func (b *bench) path(elem ...string) string {
	return filepath.Join(append([]string{b.tmp}, elem...)...)
}

// src returns a path in the checkout.
func (b *bench) src(rel string) string { return filepath.Join(b.root, rel) }

func (b *bench) header() {
	rev := "unknown"
	if out, err := exec.Command("git", "-C", b.root, "rev-parse", "--short", "HEAD").Output(); err == nil {
		rev = strings.TrimSpace(string(out))
		if st, err := exec.Command("git", "-C", b.root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
			rev += " (modified)"
		}
	}
	mode := fmt.Sprintf("%d runs each, interleaved", b.c.runs)
	if b.c.quick {
		mode = "--quick: tiny sizes, one run each: a smoke check, these are not measurements"
	}
	fmt.Fprintf(b.out, "mcpres bench, %s, commit %s, %s %s/%s, %d cores; %s; load average now %s (1, 5, 15 min)\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), rev, runtime.Version(), runtime.GOOS, runtime.GOARCH, cores(), mode, loadText())
	fmt.Fprintln(b.out, "| workload | measured | floor / anchor (same run) | ratio | goal | load average |")
	fmt.Fprintln(b.out, "|---|---|---|---|---|---|")
}

func (b *bench) footer() {
	fmt.Fprintln(b.out)
	if b.invalid > 0 {
		fmt.Fprintf(b.out, "%d of %d figures were measured at a load average above the %d cores (other work shared the CPUs): they are marked not valid; measure again on a quiet machine.\n", b.invalid, b.rows, cores())
	} else if b.rows > 0 {
		fmt.Fprintf(b.out, "Every figure was measured at a load average at or below the %d cores.\n", cores())
	}
}

// row prints one table row; load is the highest load average sampled
// before the runs of the figure.
func (b *bench) row(workload, measured, anchor, ratio, goal string, load float64) {
	b.rows++
	l := fmt.Sprintf("%.1f", load)
	if load > float64(cores()) {
		b.invalid++
		l = fmt.Sprintf("**%.1f > %d cores: not valid**", load, cores())
	}
	if b.c.quick {
		l += " (quick)"
	}
	fmt.Fprintf(b.out, "| %s | %s | %s | %s | %s | %s |\n", workload, measured, anchor, ratio, goal, l)
}

// settledLoad waits, at most --settle, for the 1-minute load average to
// fall to the number of cores, and returns it. The bench's own runs raise
// the load average (a log service run keeps both cores busy for its
// whole duration, and the average decays over a minute), so that without
// waiting the figure after a heavy one would be marked not valid for the
// load the bench made itself; a load that does not fall in that time is
// other work, and the figure is marked.
func (b *bench) settledLoad() float64 {
	l := loadavg()
	if l <= float64(cores()) || b.c.settle <= 0 {
		return l
	}
	fmt.Fprintf(b.log, "bench: load average %.1f > %d cores: waiting at most %v for it to fall\n", l, cores(), b.c.settle)
	for deadline := time.Now().Add(b.c.settle); time.Now().Before(deadline); {
		time.Sleep(2 * time.Second)
		if l = loadavg(); l <= float64(cores()) {
			break
		}
	}
	return l
}

// loadavg returns the 1-minute load average (0 where unknown).
func loadavg() float64 {
	v, _ := parseLoadavg(readLoadavg())
	return v
}

// loadText is the 1-, 5- and 15-minute load averages ("unknown" where
// unknown).
func loadText() string {
	_, s := parseLoadavg(readLoadavg())
	return s
}

func readLoadavg() []byte {
	data, _ := os.ReadFile("/proc/loadavg")
	return data
}

// parseLoadavg reads /proc/loadavg ("0.52 0.58 0.59 1/467 12345"): the
// 1-minute load average (0 when it cannot be read) and the three
// averages as the header prints them ("unknown" unless all three are
// numbers).
func parseLoadavg(data []byte) (one float64, text string) {
	f := strings.Fields(string(data))
	load := func(i int) (float64, bool) {
		if i >= len(f) {
			return 0, false
		}
		v, err := strconv.ParseFloat(f[i], 64)
		return v, err == nil && v >= 0 && !math.IsNaN(v) && !math.IsInf(v, 0)
	}
	one, ok := load(0)
	if !ok {
		one = 0
	}
	for i := range 3 {
		if _, ok := load(i); !ok {
			return one, "unknown"
		}
	}
	return one, strings.Join(f[:3], ", ")
}

// A sample is one run of a process.
type sample struct {
	cpu, wall time.Duration
	rss       int64 // peak resident set, KiB
	stdout    []byte
}

// run runs name (a built program) with args to completion and measures
// it; a non-zero exit is an error unless ok allows the code.
func (b *bench) run(name string, args []string, ok ...int) (sample, error) {
	rssFile := b.path("rss")
	prog, pargs := b.bin[name], args
	if b.timeBin != "" {
		prog, pargs = b.timeBin, append([]string{"-f", "%M", "-o", rssFile, b.bin[name]}, args...)
	}
	cmd := exec.Command(prog, pargs...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Dir = b.tmp
	start := time.Now()
	err := cmd.Run()
	s := sample{wall: time.Since(start), stdout: stdout.Bytes()}
	var ee *exec.ExitError
	if errors.As(err, &ee) && slices.Contains(ok, ee.ExitCode()) {
		err = nil
	}
	if err != nil {
		return s, fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, tail(stderr.String()))
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		s.rss = ru.Maxrss
	}
	if b.timeBin != "" {
		data, err := os.ReadFile(rssFile)
		if err != nil {
			return s, err
		}
		if s.rss, err = parseTimeRSS(data); err != nil {
			return s, err
		}
	}
	return s, nil
}

// parseTimeRSS reads what /usr/bin/time -f %M -o FILE wrote: the peak
// resident set in KiB, on the last line (a line before it says when the
// program exited non-zero or was killed).
func parseTimeRSS(data []byte) (int64, error) {
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0, fmt.Errorf("/usr/bin/time wrote %q", data)
	}
	v, err := strconv.ParseInt(f[len(f)-1], 10, 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("/usr/bin/time wrote %q", data)
	}
	return v, nil
}

func tail(s string) string {
	if len(s) > 2000 {
		return "…" + s[len(s)-2000:]
	}
	return s
}

// A series is the samples of one program over the runs.
type series []sample

func (s series) cpus() []time.Duration {
	out := make([]time.Duration, len(s))
	for i, x := range s {
		out[i] = x.cpu
	}
	return out
}

func (s series) walls() []time.Duration {
	out := make([]time.Duration, len(s))
	for i, x := range s {
		out[i] = x.wall
	}
	return out
}

func (s series) maxRSS() int64 {
	var m int64
	for _, x := range s {
		m = max(m, x.rss)
	}
	return m
}

// best and median of durations.
func best(ds []time.Duration) time.Duration { return slices.Min(ds) }

// median is the median of ds (durations or rates).
func median[T time.Duration | float64](ds []T) T {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// pair runs a and then b, runs times, interleaved, and returns their
// samples and the highest load average seen before a run.
func (b *bench) pair(runs int, a, f func() (sample, error)) (series, series, float64, error) {
	var sa, sf series
	load := 0.0
	for range runs {
		for _, x := range []struct {
			fn  func() (sample, error)
			out *series
		}{{a, &sa}, {f, &sf}} {
			if x.fn == nil {
				continue
			}
			load = max(load, b.settledLoad())
			s, err := x.fn()
			if err != nil {
				return nil, nil, load, err
			}
			*x.out = append(*x.out, s)
		}
	}
	return sa, sf, load, nil
}

// seconds formats a duration for the table.
func seconds(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
}

func bestMedian(ds []time.Duration) string {
	if len(ds) == 1 {
		return seconds(ds[0])
	}
	return fmt.Sprintf("best %s, median %s", seconds(best(ds)), seconds(median(ds)))
}

func mib(kib int64) string { return fmt.Sprintf("%.1f MiB", float64(kib)/1024) }

// thousands writes n with thousands separators.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// cpuRatio compares a workload's CPU with its floor's: the ratio cell
// (best runs, and medians) and the goal cell (≤ goal, met or not, judged
// on the best runs).
func cpuRatio(w, floor series, goal float64) (ratio, goalCell string) {
	rb := float64(best(w.cpus())) / float64(best(floor.cpus()))
	rm := float64(median(w.cpus())) / float64(median(floor.cpus()))
	ok := "met"
	if rb > goal {
		ok = "not met"
	}
	return fmt.Sprintf("**%.2f×** (median %.2f×)", rb, rm), fmt.Sprintf("≤ %.2f× (%s)", goal, ok)
}
