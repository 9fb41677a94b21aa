package floor_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/internal/floor"
)

// witnessed is the two-envelope fixture the bench and BenchmarkFloor use.
const witnessed = "../../testdata/attestation/witnessed.json"

func TestFloor(t *testing.T) {
	src, err := os.ReadFile(witnessed)
	if err != nil {
		t.Fatal(err)
	}
	sigs, err := floor.Signatures(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(good, src, 0o600)
	os.WriteFile(bad, src[:len(src)-2], 0o600)
	if err := floor.Run([]string{good, good}, sigs, os.ReadFile); err != nil {
		t.Fatalf("copies of the fixture: %v", err)
	}
	// Controls: a file that is not JSON fails the run; a tampered
	// signature fails when the signatures are prepared.
	if err := floor.Run([]string{good, bad}, sigs, os.ReadFile); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Fatalf("a truncated file: %v, want not JSON", err)
	}
	i := strings.Index(string(src), `"sig": "`) + len(`"sig": "`)
	if i < len(`"sig": "`) {
		t.Fatal("the fixture has no sig member")
	}
	tampered := []byte(string(src[:i]) + flip(src[i]) + string(src[i+1:]))
	if _, err := floor.Signatures(tampered); err == nil {
		t.Fatal("a tampered signature was prepared")
	}
}

func flip(c byte) string {
	if c == 'A' {
		return "B"
	}
	return "A"
}
