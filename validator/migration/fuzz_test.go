package migration_test

import (
	"path/filepath"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/migration"
	"github.com/mcpres/mcpres/validator/validatortest"
)

// FuzzMigrationResult: no panic; errors only *InputError; one diagnostic
// when invalid.
func FuzzMigrationResult(f *testing.F) {
	validatortest.FuzzSeeds(f, "../..", "v0.1.0", filepath.Join(migrationCorpusDir, "valid", "valid-migration.json"),
		filepath.Join(migrationCorpusDir, "invalid", "invalid-embedded-source.json"))
	val := validator.New()
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := canonjson.Parse(data)
		if err != nil {
			return
		}
		r, err := migration.New(val).Validate(doc)
		validatortest.CheckFuzzResult(t, r, err, migration.CodeSchemaInvalid)
	})
}
