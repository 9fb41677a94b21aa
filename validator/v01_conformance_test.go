package validator

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpres/mcpres/internal/canonjson"
)

// TestUpstreamV01Catalog runs every v0.1.0 upstream vector through the Go
// API — BundleV01 directly and Document's dispatch on schemaVersion — and
// compares valid and diagnostics exactly (REFERENCE §9.1, §9.3).
func TestUpstreamV01Catalog(t *testing.T) {
	dir := upstreamDir(t, "v0.1.0")
	entries := loadCatalog(t, dir)
	if len(entries) != 25 {
		t.Fatalf("catalog has %d entries, want 25", len(entries))
	}
	val := New()
	for _, e := range entries {
		t.Run(e.ID, func(t *testing.T) {
			raw, doc, err := canonjson.ReadFile(filepath.Join(dir, e.Path))
			if err != nil {
				t.Fatal(err)
			}
			if got := canonjson.BytesDigest(raw); got != e.FileSha256 {
				t.Fatalf("file SHA-256 = %s, catalog says %s", got, e.FileSha256)
			}
			for name, validate := range map[string]func(*canonjson.Value) (Result, error){
				"BundleV01": val.BundleV01, "Document": val.Document,
			} {
				r, err := validate(doc)
				if err != nil {
					t.Fatalf("%s aborted: %v", name, err)
				}
				if r.Valid != (len(e.ExpectedDiagnostics) == 0) || !slices.Equal(r.Diagnostics, e.ExpectedDiagnostics) {
					t.Errorf("%s: got valid=%t %v (%s), want %v", name, r.Valid, r.Diagnostics, r.Detail, e.ExpectedDiagnostics)
				}
				if (len(r.SchemaErrors) > 0) != slices.Equal(r.Diagnostics, []string{CodeSchemaInvalid}) {
					t.Errorf("%s: schemaErrors %v with diagnostics %v", name, r.SchemaErrors, r.Diagnostics)
				}
			}
		})
	}
}
