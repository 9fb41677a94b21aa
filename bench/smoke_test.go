package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestQuickSmoke is `go run ./bench --quick` (CI's smoke check of the
// measurement tool), run in process: it builds the programs, runs every
// workload once at tiny sizes and must succeed, print every row of the
// table with its floor or anchor and ratio and goal cells computed from
// its runs, keep its files in the temporary directory (here in
// t.TempDir()) and remove them, check every server it started listened
// on 127.0.0.1 only, and leave no process running. A workload whose
// programs are not installed (SoftHSM2, MariaDB, versitygw, Fulcio and
// timestamp-server, a cached Rekor v2) prints why instead of its rows,
// and only then.
func TestQuickSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the bench's smoke check builds every program and runs every workload (1-2 min)")
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	statSources(t, root)
	// The bench's directory; the go commands it runs keep theirs in
	// $TMPDIR (keyless/keylesstest's machine-wide lock is there).
	tmp := t.TempDir()
	cached := rekorCache()
	cachedBefore := fileStamp(cached)

	var stdout, stderr bytes.Buffer
	err = run([]string{"--quick", "--tmp", tmp}, &stdout, &stderr)
	t.Logf("stderr:\n%s", stderr.String())
	if err != nil {
		t.Fatalf("bench --quick: %v\nstdout:\n%s", err, stdout.String())
	}

	// What is installed decides which rows there are.
	env := smokeEnv{
		dsn:     os.Getenv("MCPRES_TEST_MYSQL_DSN") != "",
		keyless: hasProgram("fulcio") && hasProgram("timestamp-server"),
		rekor:   cached != "" && checkRekorBinary(cached) == nil,
		token:   tokenTools(),
	}
	env.s3 = env.dsn && hasProgram("versitygw")
	rows := tableRows(t, stdout.String())
	want := env.rows()
	if len(rows) != len(want) {
		t.Errorf("%d rows, want %d:\n%s", len(rows), len(want), stdout.String())
	}
	for i, w := range want {
		if i >= len(rows) {
			t.Errorf("missing row %d: %s", i, w.workload)
			continue
		}
		w.check(t, rows[i])
	}
	for _, skip := range env.skips() {
		if !strings.Contains(stderr.String(), skip) {
			t.Errorf("stderr does not say %q", skip)
		}
	}
	if n := env.servers(); !strings.Contains(stderr.String(), "bench: "+strconv.Itoa(n)+" server(s) found listening on 127.0.0.1 only, then stopped\n") {
		t.Errorf("want %d servers checked on 127.0.0.1 and stopped", n)
	}

	// Its files: in the temporary directory, removed at the end.
	m := regexp.MustCompile(`bench: building into (\S+)\n`).FindStringSubmatch(stderr.String())
	if m == nil || filepath.Dir(m[1]) != tmp {
		t.Errorf("the bench's directory %q is not in --tmp %s", m, tmp)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left in --tmp: %v", left)
	}
	if after := fileStamp(cached); after != cachedBefore {
		t.Errorf("--quick changed the cached Rekor v2 server %s: %s, then %s", cached, cachedBefore, after)
	}
	if kids := children(t); len(kids) > 0 {
		t.Errorf("processes left running: %v", kids)
	}
}

// statSources stats every file of the checkout, so that go test's cache
// answers "(cached)" for the smoke check only while none of the programs
// it builds, nor their testdata, changed (the cache keys a test on the
// files it opens or stats itself, not on those its subprocesses read).
func statSources(t *testing.T, root string) {
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			os.Stat(p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// rekorCache is where the bench caches Rekor v2's server ("" without a
// cache directory).
func rekorCache() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "mcpres-bench", "rekor-server-posix-"+rekorVersion)
}

func fileStamp(p string) string {
	st, err := os.Stat(p)
	if err != nil {
		return "absent"
	}
	return st.ModTime().String() + " " + strconv.FormatInt(st.Size(), 10)
}

func hasProgram(name string) bool { _, ok := findProgram(name); return ok }

func tokenTools() bool {
	if _, err := os.Stat(softHSMModule); err != nil {
		return false
	}
	return hasProgram("softhsm2-util") && hasProgram("pkcs11-tool")
}

// smokeEnv is what the smoke run had installed.
type smokeEnv struct{ dsn, keyless, rekor, token, s3 bool }

// A rowSpec is what a row of the table must be.
type rowSpec struct {
	workload string         // the workload (--only name)
	what     *regexp.Regexp // the workload cell
	// the floor / anchor cell; nil: the row says the workload could
	// not run, and why, with no figure
	anchor *regexp.Regexp
	ratio  *regexp.Regexp // the ratio cell
	goal   *regexp.Regexp // the goal cell
	// consistent, when set, checks the ratio against the figures of
	// the row: computed from the runs, not a placeholder.
	consistent func(t testing.TB, r []string)
}

var (
	dash     = regexp.MustCompile(`^–$`)
	verdict  = `\((met|not met)\)`
	boldTwo  = regexp.MustCompile(`^\*\*\d+\.\d\d×\*\* \(median \d+\.\d\d×\)$`)
	plainTwo = regexp.MustCompile(`^\d+\.\d\d×$`)
)

func re(s string) *regexp.Regexp { return regexp.MustCompile(s) }

func (e smokeEnv) rows() []rowSpec {
	rs := []rowSpec{
		{"batch", re("^`mcpres attest verify --policy P DIR`, 20 witnessed bundles, CPU"), re("^`bench/floor DIR` .*: \\d"), boldTwo, re(`^≤ 1\.25× ` + verdict + `$`),
			func(t testing.TB, r []string) { ratioOf(t, r, firstFigure(r[1]), afterColon(r[2]), r[3]) }},
		{"memory", re(`^same, peak RSS, 20 and 40 files$`), dash, re(`^\d+\.\d\d× for 2× the files$`), re(`^flat: ≤ 1\.25× ` + verdict + `$`),
			func(t testing.TB, r []string) { ratioOf(t, r, secondFigure(r[1]), firstFigure(r[1]), r[3]) }},
		{"validate", re("^`mcpres validate` of the (small upstream vector|example bundle)"), re(`^budget 25 ms`), re(`^\d+\.\d\d× the budget$`), re(`^≤ budget ` + verdict + `$`),
			func(t testing.TB, r []string) { ratioOf(t, r, firstFigure(r[1]), firstFigure(r[2]), r[3]) }},
		{"validate", re("^`mcpres validate` of the limit-sized bundle \\(\\d+\\.\\d MiB\\)"), re(`^its size$`), re(`^RSS \d+\.\d× the input$`), re(`^RSS ≤ 10× ` + verdict + `$`),
			func(t testing.TB, r []string) { ratioOf(t, r, secondFigure(r[1]), firstFigure(r[0]), r[3]) }},
		{"verify", re("^`mcpres attest verify --policy P` of one witnessed bundle"), re("^`validate` of the small bundle: \\d"), plainTwo, dash,
			func(t testing.TB, r []string) { ratioOf(t, r, firstFigure(r[1]), afterColon(r[2]), r[3]) }},
	}
	if e.keyless {
		rs = append(rs,
			rowSpec{"keyless", re("^`mcpres attest verify --policy P --trusted-root TR` of one keyless bundle"), re("^`--key PUB --identity ID` verify of the same bundle: \\d"), plainTwo, dash,
				func(t testing.TB, r []string) { ratioOf(t, r, firstFigure(r[1]), afterColon(r[2]), r[3]) }},
			rowSpec{"keyless", re("^`mcpres attest verify --policy P --trusted-root TR DIR`, 20 keyless bundles"), re("^`bench/floor --keyless` .*: \\d"), boldTwo, re(`^≤ 1\.50× ` + verdict + `$`),
				func(t testing.TB, r []string) { ratioOf(t, r, firstFigure(r[1]), afterColon(r[2]), r[3]) }},
			rowSpec{"keyless", re(`^keyless batch peak RSS, 80 vs 20 files$`), re(`^\d+\.\d MiB$`), plainTwo, re(`^flat, ≤ 1\.25× ` + verdict + `$`),
				func(t testing.TB, r []string) { ratioOf(t, r, firstFigure(r[1]), firstFigure(r[2]), r[3]) }})
	} else {
		rs = append(rs, rowSpec{workload: "keyless", what: re(`^keyless verification$`)})
	}
	rs = append(rs,
		rowSpec{"report", re("^`mcpres report` of the limit-sized bundle"), re("^`validate` of the same file: \\d"), plainTwo, dash,
			func(t testing.TB, r []string) { ratioOf(t, r, firstFigure(r[1]), afterColon(r[2]), r[3]) }},
		rowSpec{"posix", re("^`mcpres log serve --dir`, 16 clients, 2s"), re("^Tessera's POSIX driver alone .*: [\\d,]+/s, p50"), re(`^\*\*\d+\.\d\d×\*\*$`), re(`^≥ 0\.9× ` + verdict + `$`),
			func(t testing.TB, r []string) { ratioOf(t, r, firstFigure(r[1]), afterColon(r[2]), r[3]) }},
		rowSpec{"posix", re("^the same server without admission \\(`bench/noadmit`"), re(`^the same Tessera runs$`), re(`^\d+\.\d\d× \(log serve: \d+\.\d\d× of it\)$`), dash, nil})
	if e.rekor {
		rs = append(rs, rowSpec{"rekor", re("^`mcpres log serve --dir` beside Rekor v2 .*, 16 clients each, 2s \\(server built by an earlier run"), re(`^Rekor v2, .*: [\d,]+/s, p50`),
			re(`^\*\*\d+\.\d\d×\*\* \(best runs\); p99 `), re(`^≥ 1\.0× at a p99 no worse ` + verdict + `$`),
			func(t testing.TB, r []string) { ratioOf(t, r, afterColon(r[1]), afterColon(r[2]), r[3]) }})
	} else {
		rs = append(rs, rowSpec{workload: "rekor", what: re("^`mcpres log serve --dir` beside Rekor v2 ")})
	}
	if e.token {
		rs = append(rs, rowSpec{"token", re("^`mcpres log serve --dir` with its checkpoint key in a SoftHSM2 token"), re(`^the same with a key file: [\d,]+/s`),
			re(`^\*\*\d+\.\d\d×\*\* \(medians\)$`), re(`^≥ 0\.9× ` + verdict + `$`),
			func(t testing.TB, r []string) { ratioOf(t, r, firstFigure(r[1]), afterColon(r[2]), r[3]) }})
	}
	if e.dsn {
		rs = append(rs, rowSpec{"mysql", re("^`mcpres log serve --mysql` \\(.+\\), 16 clients, 2s$"), dash, dash, re(`^≥ 600/s with p99 ≤ 3\.00 s ` + verdict + `$`), nil})
	}
	if e.s3 {
		rs = append(rs, rowSpec{"s3", re("^`mcpres log serve --s3` \\(versitygw"), dash, dash,
			re(`^≥ 600/s with p99 ≤ 3\.00 s ` + verdict + `; 0 database queries per tile read: \d+\.\d{3} measured \([\d,]+ tile and bundle reads in `), nil})
	}
	return append(rs,
		rowSpec{"witness", re("^`mcpres witness serve`, one log"), dash, dash, dash, nil},
		rowSpec{"monitor", re("^`mcpres log monitor --once`, catching up on 40,000 entries"), re("^`bench/monitorfloor` .*: \\d"), boldTwo, re(`^≤ 1\.50× ` + verdict),
			func(t testing.TB, r []string) { ratioOf(t, r, firstFigure(r[1]), afterColon(r[2]), r[3]) }},
		rowSpec{"monitor", re(`^same, peak RSS, 4,000 and 40,000 entries$`), dash, re(`^\d+\.\d\d× for 10× the entries$`), re(`^flat: ≤ 1\.25× ` + verdict + `$`),
			func(t testing.TB, r []string) { ratioOf(t, r, secondFigure(r[1]), firstFigure(r[1]), r[3]) }},
		rowSpec{"monitor", re(`^same, interrupted \(SIGTERM after `), re(`^a whole catch-up: CPU `), re(`^-?\d+% of it saved$`), re(`^resumes where it stopped$`), nil})
}

// skips are the lines of stderr that say why a workload printed no row.
func (e smokeEnv) skips() []string {
	var s []string
	if !e.token {
		s = append(s, "bench: token: skipped: ")
	}
	if !e.dsn {
		s = append(s, "bench: mysql: skipped: no MariaDB/MySQL server", "bench: s3: skipped: no MariaDB/MySQL server")
	} else if !e.s3 {
		s = append(s, "bench: s3: skipped: versitygw is not installed")
	}
	if !e.rekor {
		s = append(s, "bench: rekor: --quick does not build rekor-tiles")
	}
	return s
}

// servers is how many servers the run starts: log serve and noadmit;
// log serve and Rekor v2; log serve with each key; the MySQL log; the
// object-storage log twice and its gateway; the witness.
func (e smokeEnv) servers() int {
	n := 2 + 1
	if e.rekor {
		n += 2
	}
	if e.token {
		n += 2
	}
	if e.dsn {
		n++
	}
	if e.s3 {
		n += 3
	}
	return n
}

func (w rowSpec) check(t testing.TB, r []string) {
	t.Helper()
	if w.anchor == nil {
		if !w.what.MatchString(r[0]) || !strings.HasPrefix(r[1], "unavailable: ") || r[2] != "–" || r[3] != "–" || r[4] != "–" {
			t.Errorf("%s row: %q, want %s, unavailable: why, no figure", w.workload, r, w.what)
		}
		return
	}
	for i, c := range []struct {
		name string
		re   *regexp.Regexp
	}{{"workload", w.what}, {"floor / anchor", w.anchor}, {"ratio", w.ratio}, {"goal", w.goal}} {
		cell := r[[]int{0, 2, 3, 4}[i]]
		if !c.re.MatchString(cell) {
			t.Errorf("%s row %q: %s cell %q does not match %s", w.workload, r[0], c.name, cell, c.re)
		}
	}
	if r[1] == "" || r[1] == "–" {
		t.Errorf("%s row %q: nothing measured", w.workload, r[0])
	}
	if !strings.HasSuffix(r[5], " (quick)") && r[5] != "–" {
		t.Errorf("%s row %q: load cell %q", w.workload, r[0], r[5])
	}
	if w.consistent != nil {
		w.consistent(t, r)
	}
}

// tableRows returns the cells of each row of the table printed.
func tableRows(t *testing.T, out string) [][]string {
	var rows [][]string
	header := false
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "| ") {
			continue
		}
		if !header { // the header line
			header = true
			continue
		}
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(l, "| "), " |"), " | ")
		if len(cells) != 6 {
			t.Errorf("a row of %d cells: %s", len(cells), l)
			continue
		}
		rows = append(rows, cells)
	}
	return rows
}

// A figure is a number as a cell shows it, in seconds, per second or
// MiB, with half its last digit's place: the rounding it may carry.
type figure struct{ v, half float64 }

var figureRE = regexp.MustCompile(`(\d[\d,]*)(?:\.(\d+))? ?(ms|s|/s|MiB)\b`)

func figures(s string) []figure {
	var fs []figure
	for _, m := range figureRE.FindAllStringSubmatch(s, -1) {
		v, _ := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", "")+"."+m[2]+"0", 64)
		half := 0.5 * math.Pow10(-len(m[2]))
		if m[3] == "ms" {
			v, half = v/1000, half/1000
		}
		fs = append(fs, figure{v, half})
	}
	return fs
}

func firstFigure(s string) figure {
	if fs := figures(s); len(fs) > 0 {
		return fs[0]
	}
	return figure{}
}

func secondFigure(s string) figure {
	if fs := figures(s); len(fs) > 1 {
		return fs[1]
	}
	return figure{}
}

// afterColon is the first figure after the cell's last ": " (the figure
// of a described floor or anchor).
func afterColon(s string) figure {
	return firstFigure(s[strings.LastIndex(s, ": ")+2:])
}

// ratioOf checks that the first number of the ratio cell is a/b, within
// the rounding of a, b and the cell.
func ratioOf(t testing.TB, r []string, a, b figure, cell string) {
	t.Helper()
	m := regexp.MustCompile(`(\d+)\.(\d+)×`).FindStringSubmatch(cell)
	if m == nil || a.v <= 0 || b.v <= 0 {
		t.Errorf("row %q: no ratio of %v and %v in %q", r[0], a, b, cell)
		return
	}
	shown, _ := strconv.ParseFloat(m[1]+"."+m[2], 64)
	lo, hi := (a.v-a.half)/(b.v+b.half), (a.v+a.half)/(b.v-b.half)
	slack := 0.5 * math.Pow10(-len(m[2]))
	if shown < lo-slack || shown > hi+slack {
		t.Errorf("row %q: ratio %s is not %v / %v (%.3f–%.3f)", r[0], cell, a.v, b.v, lo, hi)
	}
}

// children lists the processes this one started that still run (not
// those exited and not yet waited for).
func children(t *testing.T) []string {
	procs, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(procs) == 0 {
		t.Logf("no /proc: the processes left are not checked (%v)", err)
		return nil
	}
	self := strconv.Itoa(os.Getpid())
	var kids []string
	for _, p := range procs {
		data, err := os.ReadFile(p)
		if err != nil {
			continue // exited meanwhile
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses
		s := string(data)
		i := strings.LastIndex(s, ")")
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		if f[1] == self && f[0] != "Z" {
			kids = append(kids, s[:i+1])
		}
	}
	return kids
}

// recorder is a testing.TB that keeps the errors it is given.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestSmokeRowChecks: the smoke's checks of a row take the rows of a
// real --quick run and refuse each fault: a ratio that is not the row's
// figures' (a placeholder), a floor missing, a goal not judged, a row
// with nothing measured, a row of another workload.
func TestSmokeRowChecks(t *testing.T) {
	batch := []string{"`mcpres attest verify --policy P DIR`, 20 witnessed bundles, CPU (user+sys)", "35 ms (wall 42 ms)",
		"`bench/floor DIR` (read, `json.Valid`, 4× SHA-256, 2× Ed25519 per file): 19 ms", "**1.87×** (median 1.87×)", "≤ 1.25× (not met)", "**5.8 > 2 cores: not valid** (quick)"}
	posix := []string{"`mcpres log serve --dir`, 16 clients, 2s, 16 KB bundles (entries of 437 B)", "1,096/s, p50 180 ms, p99 278 ms",
		"Tessera's POSIX driver alone (`bench/tesseraposix`), 16 in flight, the same entries: 88/s, p50 167 ms, p99 188 ms", "**12.45×**", "≥ 0.9× (met)", "0.4 (quick)"}
	memory := []string{"same, peak RSS, 20 and 40 files", "18.1 MiB; 19.7 MiB", "–", "1.09× for 2× the files", "flat: ≤ 1.25× (met)", "1.0 (quick)"}
	specs := smokeEnv{}.rows()
	find := func(prefix string) rowSpec {
		for _, s := range specs {
			if s.what.MatchString(prefix) {
				return s
			}
		}
		t.Fatalf("no spec for %q", prefix)
		return rowSpec{}
	}
	edit := func(r []string, i int, cell string) []string {
		r = append([]string(nil), r...)
		r[i] = cell
		return r
	}
	for _, c := range []struct {
		base, row []string // the row whose spec checks, the row checked
		want      string   // "" the row passes
	}{
		{batch, batch, ""},
		{posix, posix, ""},
		{memory, memory, ""},
		{batch, edit(batch, 3, "**1.00×** (median 1.00×)"), "ratio **1.00×** (median 1.00×) is not 0.035 / 0.019"},
		{batch, edit(batch, 3, "**1.95×** (median 1.95×)"), "is not 0.035 / 0.019"},
		{batch, edit(batch, 2, "–"), "floor / anchor cell"},
		{batch, edit(batch, 4, "≤ 1.25×"), "goal cell"},
		{batch, edit(batch, 1, "–"), "nothing measured"},
		{batch, edit(batch, 5, "0.4"), "load cell"},
		{batch, edit(batch, 0, "`mcpres attest verify --policy P DIR`, 1,000 witnessed bundles, CPU"), "workload cell"},
		{posix, edit(posix, 3, "**1.00×**"), "is not 1096 / 88"},
		{memory, edit(memory, 3, "1.25× for 2× the files"), "is not 19.7 / 18.1"},
	} {
		rec := &recorder{TB: t}
		find(c.base[0]).check(rec, c.row)
		got := strings.Join(rec.errs, "\n")
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%q: %q, want %q", c.row, got, c.want)
		}
	}
	// An unavailable row: the reason, no figure.
	rec := &recorder{TB: t}
	rowSpec{workload: "keyless", what: re(`^keyless verification$`)}.check(rec, []string{"keyless verification", "unavailable: no keyless fixture", "–", "–", "–", "0.0 (quick)"})
	rowSpec{workload: "keyless", what: re(`^keyless verification$`)}.check(rec, []string{"keyless verification", "12 ms", "–", "–", "–", "0.0 (quick)"})
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "unavailable: why") {
		t.Errorf("unavailable rows: %q", rec.errs)
	}
}

// TestChildren: a process this one started is found while it runs, and
// not once it is stopped and waited for.
func TestChildren(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	cmd := exec.Command("/bin/sh", "-c", "sleep 60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	kids := children(t)
	cmd.Process.Kill()
	cmd.Wait()
	if len(kids) != 1 || !strings.HasPrefix(kids[0], strconv.Itoa(cmd.Process.Pid)+" (") {
		t.Fatalf("running: %q", kids)
	}
	if kids := children(t); len(kids) > 0 {
		t.Fatalf("stopped: %q", kids)
	}
}
