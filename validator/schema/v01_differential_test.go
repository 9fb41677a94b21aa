package schema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
)

// The v0.1 bundle schema and the migration-result schema, compared with
// santhosh-tekuri/jsonschema on mcpres's own v0.1 example and its migration
// (committed by the tests of validator/v01 and validator/migration) and on
// every mutation the sweep makes of them.

// readFixture reads "PKG/FILE" from the testdata of validator/PKG.
func readFixture(t testing.TB, rel string) *canonjson.Value {
	t.Helper()
	pkg, file, _ := strings.Cut(rel, "/")
	data, err := os.ReadFile(filepath.Join("..", pkg, "testdata", filepath.FromSlash(file)))
	if err != nil {
		t.Fatal(err)
	}
	return parse(t, string(data))
}

func TestDifferentialV01AndMigration(t *testing.T) {
	ours, ref := loadEmbedded(t), reference(t)
	bundle := readFixture(t, "v01/example.json")
	result := readFixture(t, "migration/valid/valid-migration.json")
	run := func(name string, f func(d *differ)) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := &differ{t: t, ours: ours, ref: ref}
			f(d)
			t.Logf("compared %d instances (%d invalid)", d.compared, d.invalid)
		})
	}
	run("v0.1 fixtures", func(d *differ) {
		for _, f := range []string{"v01/example.json", "v01/fixture-backed.json"} {
			v := readFixture(d.t, f)
			if errs := ours.Validate(V01ConformanceBundle, v); errs != nil {
				d.t.Errorf("%s: %v", f, errs)
			}
			d.compare(f, V01ConformanceBundle, v)
		}
	})
	for _, part := range []string{"/schemaVersion", "/evidence", "/statement", "/integrity"} {
		run("sweep v0.1 bundle "+part, func(d *differ) {
			if testing.Short() && part == "/evidence" {
				d.t.Skip("the evidence sweep takes seconds; run without -short")
			}
			sweep(d, V01ConformanceBundle, bundle, part)
		})
	}
	run("sweep migration result", func(d *differ) {
		if testing.Short() {
			d.t.Skip("the migration sweep takes seconds; run without -short")
		}
		for _, part := range []string{"/schemaVersion", "/source", "/target", "/migration", "/report"} {
			sweep(d, MigrationResult, result, part)
		}
		// originalBundle is open: sweep only its own level.
		ob := result.Get("originalBundle")
		for _, m := range ob.Members {
			for _, repl := range replacementsFor(m.Value) {
				d.compare("originalBundle/"+m.Key+" = "+repl, MigrationResult, mutate(d.t, result, "/originalBundle/"+escapeToken(m.Key), repl))
			}
			d.compare("delete originalBundle/"+m.Key, MigrationResult, mutate(d.t, result, "/originalBundle/"+escapeToken(m.Key), ""))
		}
		d.compare("originalBundle + unknown member", MigrationResult, mutate(d.t, result, "/originalBundle/zzUnknown", `1`))
	})
}

// The v0.1 bundle schema is not registered by schemaVersion (see
// V01ConformanceBundle); the migration result is.
func TestV01SchemaVersionsRegistration(t *testing.T) {
	s := loadEmbedded(t)
	if name, ok := s.NameForSchemaVersion("mcp-res.migration-result/0.2.0"); !ok || name != MigrationResult {
		t.Errorf("NameForSchemaVersion(migration result) = %q, %v", name, ok)
	}
	if _, ok := s.NameForSchemaVersion("mcp-res.conformance-bundle/0.1.0"); ok {
		t.Error("the v0.1 bundle maps to a schema by schemaVersion")
	}
	const v01Base = "https://aliengineering-byte.github.io/resilireplay/standards/mcp-res/v0.1.0/schemas/"
	if got := s.Schema(V01ConformanceBundle).ID(); got != v01Base+"conformance-bundle.schema.json" {
		t.Errorf("v0.1 $id = %s", got)
	}
}
