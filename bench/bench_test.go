package main

import (
	"testing"
	"time"

	"github.com/mcpres/mcpres/tlog/loadgen"
)

// TestParseLoad: the bench reads the result line mcpres-loadgen and
// bench/tesseraposix print (loadgen.Result.String), and refuses a run in
// which nothing succeeded or a line it does not know.
func TestParseLoad(t *testing.T) {
	r := loadgen.Result{OK: 8590, Failed: map[int]int{503: 2}, Elapsed: 15 * time.Second, Rate: 572.6,
		P50: 1811 * time.Millisecond, P99: 2706 * time.Millisecond, Max: 3 * time.Second}
	l, err := parseLoad([]byte("mcpres-loadgen: …\n" + r.String() + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if l.ok != 8590 || l.rate != 573 || l.p50 != r.P50 || l.p99 != r.P99 || l.failed != "map[503:2]" {
		t.Fatalf("parsed %+v from %q", l, r.String())
	}
	none := loadgen.Result{Failed: map[int]int{0: 12}, Elapsed: time.Second}
	if _, err := parseLoad([]byte(none.String())); err == nil {
		t.Error("a run with no success was taken")
	}
	if _, err := parseLoad([]byte("12 submissions, fast\n")); err == nil {
		t.Error("a line of another format was taken")
	}
}

// TestBestMedian: the figures are the best and the median of the runs.
func TestBestMedian(t *testing.T) {
	ds := []time.Duration{5 * time.Second, 3 * time.Second, 4 * time.Second, 9 * time.Second}
	if best(ds) != 3*time.Second || median(ds) != 4500*time.Millisecond || median(ds[:3]) != 4*time.Second {
		t.Fatalf("best %v, median %v / %v", best(ds), median(ds), median(ds[:3]))
	}
	if got := bestMedian(ds); got != "best 3.00 s, median 4.50 s" {
		t.Fatalf("%q", got)
	}
	if thousands(1687) != "1,687" || thousands(20000) != "20,000" || thousands(600) != "600" {
		t.Fatal("thousands")
	}
}

// The lines the bench waits for are the ones the servers print (a changed
// line made `go run ./bench` fail to start the witness): the witness's
// base URL is taken without its slash, the log's URL as printed.
func TestReadyLines(t *testing.T) {
	w := "mcpres: witness bench.example/witness serving 1 log(s) at http://127.0.0.1:35907/ (POST /add-checkpoint); in a tlog policy its URL is that base URL: policy tlog add-witness FILE --name NAME --key W.vkey --url http://127.0.0.1:35907/"
	if m := witnessLine.FindStringSubmatch(w); m == nil || m[1] != "http://127.0.0.1:35907" {
		t.Errorf("witness line: %q", m)
	}
	l := "mcpres: log serve: serving log example.org/log on http://127.0.0.1:40571"
	if m := servingLine.FindStringSubmatch(l); m == nil || m[1] != "http://127.0.0.1:40571" {
		t.Errorf("log line: %q", m)
	}
	// Control: the old witness line (the endpoint printed as the URL) is not taken.
	if witnessLine.MatchString("mcpres: witness w serving 1 log(s) on http://127.0.0.1:1/add-checkpoint") {
		t.Error("the old witness line matched")
	}
}
