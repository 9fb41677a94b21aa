package migration_test

import (
	"path/filepath"
	"testing"

	"github.com/mcpres/mcpres/internal/canonjson"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/migration"
)

// FuzzMigrationResult: no panic; errors only *InputError; one diagnostic
// when invalid.
func FuzzMigrationResult(f *testing.F) {
	fuzzSeeds(f, filepath.Join(migrationCorpusDir, "valid", "valid-migration.json"),
		filepath.Join(migrationCorpusDir, "invalid", "invalid-embedded-source.json"))
	val := validator.New()
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := canonjson.Parse(data)
		if err != nil {
			return
		}
		r, err := migration.New(val).Validate(doc)
		checkFuzzResult(t, r, err, migration.CodeSchemaInvalid)
	})
}
