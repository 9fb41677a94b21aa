package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// The witnessed fixture, its policy and the evaluation time at which its
// WITNESSED claim verifies.
const (
	witnessedBundle = "testdata/attestation/witnessed.json"
	witnessedPolicy = "testdata/attestation/witnessed.trust-policy.json"
	evaluatedAt     = "2026-08-27T18:05:00.000Z"
)

// batchGoal is issue 37's bound on batch verification: at most 1.25 times
// the floor's CPU (issue 26 asked 1.5).
const batchGoal = 1.25

// minBatchRuns is the fewest runs of a batch row and of its floor. A pair
// of runs costs one to three seconds, and on a shared machine the best of
// five still depends on when the neighbours were busy: the best of more
// runs is a better estimate of each program's own cost, for both alike.
const minBatchRuns = 15

// batchRuns is the number of runs of a batch row: --runs, at least
// minBatchRuns (one with --quick).
func (b *bench) batchRuns() int {
	if b.c.quick {
		return 1
	}
	return max(b.c.runs, minBatchRuns)
}

// copies writes n copies of the file src into a new directory and
// returns it.
func (b *bench) copies(name, src string, n int) (string, error) {
	dir := b.path(name)
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	data, err := os.ReadFile(b.src(src))
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("bundle-%06d.json", i)), data, 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

func (b *bench) verifyArgs(target string) []string {
	return []string{"attest", "verify", "--policy", b.src(witnessedPolicy), "--evaluated-at", evaluatedAt, "--require-level", "WITNESSED", target}
}

// batch: attest verify of a directory of witnessed bundles against the
// floor program on the same files, CPU time.
func (b *bench) batch() error {
	dir, err := b.copies("batch", witnessedBundle, b.c.files)
	if err != nil {
		return err
	}
	args := b.verifyArgs(dir)
	want := []byte(fmt.Sprintf("%d\n", b.c.files))
	mc, fl, load, err := b.pair(b.batchRuns(), func() (sample, error) {
		s, err := b.run("mcpres", args)
		if err == nil && bytes.Count(s.stdout, []byte("\n")) != b.c.files {
			err = fmt.Errorf("attest verify printed %d results for %d files", bytes.Count(s.stdout, []byte("\n")), b.c.files)
		}
		return s, err
	}, func() (sample, error) {
		s, err := b.run("floor", []string{dir})
		if err == nil && !bytes.Equal(s.stdout, want) {
			err = fmt.Errorf("the floor checked %q files, want %d", s.stdout, b.c.files)
		}
		return s, err
	})
	if err != nil {
		return err
	}
	ratio, goal := cpuRatio(mc, fl, batchGoal)
	b.row(fmt.Sprintf("`mcpres attest verify --policy P DIR`, %s witnessed bundles, CPU (user+sys)", thousands(b.c.files)),
		bestMedian(mc.cpus())+fmt.Sprintf(" (wall %s)", seconds(median(mc.walls()))),
		"`bench/floor DIR` (read, `json.Valid`, 4× SHA-256, 2× Ed25519 per file): "+bestMedian(fl.cpus()),
		ratio, goal, load)
	return nil
}

// batchMemory: the batch's peak memory at two sizes, ten times apart.
func (b *bench) batchMemory() error {
	small, large := b.c.files, 10*b.c.files
	if b.c.quick {
		large = 2 * small
	}
	var rss [2]int64
	load := 0.0
	for i, n := range []int{small, large} {
		dir, err := b.copies(fmt.Sprintf("memory-%d", n), witnessedBundle, n)
		if err != nil {
			return err
		}
		s, _, l, err := b.pair(1, func() (sample, error) { return b.run("mcpres", b.verifyArgs(dir)) }, nil)
		if err != nil {
			return err
		}
		rss[i], load = s.maxRSS(), max(load, l)
		os.RemoveAll(dir)
	}
	ratio := float64(rss[1]) / float64(rss[0])
	ok := "met"
	if ratio > 1.25 {
		ok = "not met"
	}
	b.row(fmt.Sprintf("same, peak RSS, %s and %s files", thousands(small), thousands(large)),
		mib(rss[0])+"; "+mib(rss[1]), "–", fmt.Sprintf("%.2f× for %d× the files", ratio, large/small),
		fmt.Sprintf("flat: ≤ 1.25× (%s)", ok), load)
	return nil
}

// smallVector is the upstream small vector when the vectors are beside
// the checkout, else the example bundle (the same kind and size).
func (b *bench) smallVector() (string, string) {
	up := b.src("testdata/upstream/v0.2.0/valid/repeated-stable.json")
	if _, err := os.Stat(up); err == nil {
		return up, "the small upstream vector (15 KB)"
	}
	return b.src("testdata/bundles/example.json"), "the example bundle (16 KB)"
}

// limitBundle writes the bundle at the reader's limits (validator's
// TestWriteLimitBundle) once.
func (b *bench) limitBundle() (string, error) {
	p := b.path("limit.json")
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	cmd := exec.Command("go", "test", "-count=1", "-run", "^TestWriteLimitBundle$", "./validator")
	cmd.Dir = b.root
	cmd.Env = append(os.Environ(), "MCPRES_LIMIT_BUNDLE="+p)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("writing the limit-sized bundle: %v\n%s", err, out)
	}
	return p, nil
}

// startupBudget is DESIGN.md's budget for validate on the small vector,
// whole process.
const startupBudget = 25 * time.Millisecond

// validate: the small vector against the start-up budget; the limit-sized
// bundle, with its peak memory against 10 times its size.
func (b *bench) validate() error {
	small, what := b.smallVector()
	runs := max(b.c.runs, 5)
	if b.c.quick {
		runs = 1
	}
	s, _, load, err := b.pair(runs, func() (sample, error) { return b.run("mcpres", []string{"validate", small}) }, nil)
	if err != nil {
		return err
	}
	ok := "met"
	if median(s.walls()) > startupBudget {
		ok = "not met"
	}
	b.row("`mcpres validate` of "+what+", whole process, wall", bestMedian(s.walls())+"; CPU "+seconds(median(s.cpus())),
		"budget "+seconds(startupBudget)+" (DESIGN.md, start-up budget)", fmt.Sprintf("%.2f× the budget", float64(median(s.walls()))/float64(startupBudget)),
		"≤ budget ("+ok+")", load)

	limit, err := b.limitBundle()
	if err != nil {
		return err
	}
	st, err := os.Stat(limit)
	if err != nil {
		return err
	}
	s, _, load, err = b.pair(runs, func() (sample, error) { return b.run("mcpres", []string{"validate", limit}) }, nil)
	if err != nil {
		return err
	}
	ratio := float64(s.maxRSS()*1024) / float64(st.Size())
	ok = "met"
	if ratio > 10 {
		ok = "not met"
	}
	b.row(fmt.Sprintf("`mcpres validate` of the limit-sized bundle (%s), wall; peak RSS", mib(st.Size()/1024)),
		bestMedian(s.walls())+"; "+mib(s.maxRSS()), "its size", fmt.Sprintf("RSS %.1f× the input", ratio), "RSS ≤ 10× ("+ok+")", load)
	return nil
}

// verifyOne: attest verify of one witnessed bundle, whole process.
func (b *bench) verifyOne() error {
	runs := max(b.c.runs, 5)
	if b.c.quick {
		runs = 1
	}
	small, _ := b.smallVector()
	one := b.src(witnessedBundle)
	v, val, load, err := b.pair(runs, func() (sample, error) { return b.run("mcpres", b.verifyArgs(one)) },
		func() (sample, error) { return b.run("mcpres", []string{"validate", small}) })
	if err != nil {
		return err
	}
	b.row("`mcpres attest verify --policy P` of one witnessed bundle (21 KB, two envelopes), whole process, wall",
		bestMedian(v.walls())+"; CPU "+seconds(median(v.cpus())), "`validate` of the small bundle: "+bestMedian(val.walls()),
		fmt.Sprintf("%.2f×", float64(median(v.walls()))/float64(median(val.walls()))), "–", load)
	return nil
}

// report: the HTML report of the limit-sized bundle.
func (b *bench) report() error {
	limit, err := b.limitBundle()
	if err != nil {
		return err
	}
	runs := b.c.runs
	out := b.path("report.html")
	s, val, load, err := b.pair(runs, func() (sample, error) {
		os.Remove(out)
		return b.run("mcpres", []string{"report", limit, "-o", out})
	}, func() (sample, error) { return b.run("mcpres", []string{"validate", limit}) })
	if err != nil {
		return err
	}
	b.row("`mcpres report` of the limit-sized bundle, whole process, wall; peak RSS", bestMedian(s.walls())+"; "+mib(s.maxRSS()),
		"`validate` of the same file: "+bestMedian(val.walls()), fmt.Sprintf("%.2f×", float64(median(s.walls()))/float64(median(val.walls()))), "–", load)
	return nil
}
