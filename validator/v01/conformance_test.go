package v01_test

import (
	"slices"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/v01"
)

// TestUpstreamV01Catalog runs every v0.1.0 upstream vector through the Go
// API — package v01 directly and package document's dispatch on
// schemaVersion — and
// compares valid and diagnostics exactly (REFERENCE §9.1, §9.3).
func TestUpstreamV01Catalog(t *testing.T) {
	dir := upstreamDir(t, "v0.1.0")
	entries := loadCatalog(t, dir)
	if len(entries) != 25 {
		t.Fatalf("catalog has %d entries, want 25", len(entries))
	}
	val := validator.New()
	for _, e := range entries {
		t.Run(e.ID, func(t *testing.T) {
			doc := e.ReadVector(t, dir)
			for name, validate := range map[string]func(*canonjson.Value) (validator.Result, error){
				"v01": v01.New(val).Validate, "document": documentOf(val),
			} {
				r, err := validate(doc)
				if err != nil {
					t.Fatalf("%s aborted: %v", name, err)
				}
				if r.Valid != (len(e.ExpectedDiagnostics) == 0) || !slices.Equal(r.Diagnostics, e.ExpectedDiagnostics) {
					t.Errorf("%s: got valid=%t %v (%s), want %v", name, r.Valid, r.Diagnostics, r.Detail, e.ExpectedDiagnostics)
				}
				if (len(r.SchemaErrors) > 0) != slices.Equal(r.Diagnostics, []string{validator.CodeSchemaInvalid}) {
					t.Errorf("%s: schemaErrors %v with diagnostics %v", name, r.SchemaErrors, r.Diagnostics)
				}
			}
		})
	}
}
