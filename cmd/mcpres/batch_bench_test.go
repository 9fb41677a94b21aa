package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkBatchVerify1000 verifies a directory of 1,000 small attested
// bundles (the witnessed fixture: two envelopes, a 0.2.0 policy) through
// the CLI, as a release gate would: all cores, results in input order.
// Target: under 2 s per run on a 2-core machine.
func BenchmarkBatchVerify1000(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(attestFixtures, "witnessed.json"))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	for i := range 1000 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("bundle-%04d.json", i)), src, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	policy := filepath.Join(attestFixtures, "witnessed.trust-policy.json")
	args := []string{"attest", "verify", "--policy", policy, "--evaluated-at", "2026-08-27T18:05:00.000Z", "--require-level", "WITNESSED", dir}
	b.ResetTimer()
	for b.Loop() {
		var out bytes.Buffer
		if code := run(args, strings.NewReader(""), &out, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
		if n := bytes.Count(out.Bytes(), []byte("\n")); n != 1000 {
			b.Fatalf("%d results, want 1000", n)
		}
	}
}
