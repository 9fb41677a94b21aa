package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/floor"
)

// batchFiles is how many copies of the witnessed fixture the batch
// benchmarks verify.
const batchFiles = 1000

// witnessedDir writes batchFiles copies of the witnessed fixture (two
// envelopes, 20 KB) to a temporary directory and returns their paths in
// lexical order and the fixture's bytes.
func witnessedDir(b *testing.B) ([]string, []byte) {
	b.Helper()
	src, err := os.ReadFile(filepath.Join(attestFixtures, "witnessed.json"))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	paths := make([]string, batchFiles)
	for i := range paths {
		paths[i] = filepath.Join(dir, fmt.Sprintf("bundle-%04d.json", i))
		if err := os.WriteFile(paths[i], src, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return paths, src
}

// reportCPU reports the process CPU time (user + system, every goroutine
// including the garbage collector's) per operation as cpu-ns/op. Wall
// time on a shared machine is noisy; the ratio of two cpu-ns/op figures
// from the same run is not.
func reportCPU(b *testing.B, start time.Duration) {
	if start < 0 {
		return // no process CPU clock on this platform
	}
	b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkBatchVerify1000 verifies a directory of 1,000 small attested
// bundles (the witnessed fixture: two envelopes, a 0.2.0 policy) through
// the CLI, as a release gate would: all cores, results in input order.
// Target: at most 1.6x BenchmarkFloor's cpu-ns/op in the same run
// (issue 16).
func BenchmarkBatchVerify1000(b *testing.B) {
	paths, _ := witnessedDir(b)
	policy := filepath.Join(attestFixtures, "witnessed.trust-policy.json")
	args := []string{"attest", "verify", "--policy", policy, "--evaluated-at", "2026-08-27T18:05:00.000Z", "--require-level", "WITNESSED", filepath.Dir(paths[0])}
	b.ReportAllocs()
	b.ResetTimer()
	start := processCPU()
	for b.Loop() {
		var out bytes.Buffer
		if code := run(args, strings.NewReader(""), &out, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
		if n := bytes.Count(out.Bytes(), []byte("\n")); n != batchFiles {
			b.Fatalf("%d results, want %d", n, batchFiles)
		}
	}
	reportCPU(b, start)
}

// BenchmarkFloor does, on the same 1,000 files and on all cores, only the
// work that verifying them cannot avoid: read each file (with the strict
// reader's file rules), scan its syntax once (encoding/json.Valid), hash it
// four times with SHA-256 and verify two Ed25519 signatures. Compare its
// cpu-ns/op with BenchmarkBatchVerify1000's from the same run:
//
//	go test -run '^$' -bench 'BatchVerify1000|Floor' -benchmem ./cmd/mcpres
func BenchmarkFloor(b *testing.B) {
	paths, src := witnessedDir(b)
	sigs, err := floor.Signatures(src)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := processCPU()
	for b.Loop() {
		if err := floor.Run(paths, sigs, canonjson.ReadFileBytes); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}
