package validator_test

import (
	"slices"
	"testing"

	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/validatortest"
)

func upstreamDir(t testing.TB, version string) string {
	t.Helper()
	return validatortest.UpstreamDir(t, "..", version)
}

var loadCatalog = validatortest.LoadCatalog

// TestUpstreamV02Catalog runs every v0.2.0 upstream vector through the Go
// API and compares valid and diagnostics exactly (REFERENCE §9.1).
func TestUpstreamV02Catalog(t *testing.T) {
	dir := upstreamDir(t, "v0.2.0")
	entries := loadCatalog(t, dir)
	if len(entries) != 25 {
		t.Fatalf("catalog has %d entries, want 25", len(entries))
	}
	val := validator.New()
	for _, e := range entries {
		t.Run(e.ID, func(t *testing.T) {
			doc := e.ReadVector(t, dir)
			r, err := val.Bundle(doc)
			if err != nil {
				t.Fatalf("aborted: %v", err)
			}
			if r.Valid != (len(e.ExpectedDiagnostics) == 0) || !slices.Equal(r.Diagnostics, e.ExpectedDiagnostics) {
				t.Errorf("got valid=%t %v (%s), want %v", r.Valid, r.Diagnostics, r.Detail, e.ExpectedDiagnostics)
			}
		})
	}
}
