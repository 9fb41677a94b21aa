package validator_test

import (
	"testing"

	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
)

// TestMaxSchemaErrors: a Validator made with MaxSchemaErrors lists at most
// that many schema errors and gives the same verdict; New lists them all.
func TestMaxSchemaErrors(t *testing.T) {
	b := bundletest.Example(t)
	empty := make([]*canonjson.Value, 50)
	for i := range empty {
		empty[i] = canonjson.NewObject()
	}
	ops := b.Path("evidence", "operations")
	ops.Items = append(empty, ops.Items...)
	all, err := validator.New().Bundle(b)
	if err != nil || all.Valid || len(all.SchemaErrors) < 50 {
		t.Fatalf("unlimited: %v, %d schema errors", err, len(all.SchemaErrors))
	}
	limited, err := validator.NewWith(validator.Options{MaxSchemaErrors: 10}).Bundle(b)
	if err != nil || limited.Valid || len(limited.SchemaErrors) != 10 || limited.Diagnostics[0] != all.Diagnostics[0] {
		t.Fatalf("limited: %v, %v, %d schema errors", err, limited.Diagnostics, len(limited.SchemaErrors))
	}
	// Control: the limit changes nothing for a valid bundle.
	if r, err := validator.NewWith(validator.Options{MaxSchemaErrors: 1}).Bundle(bundletest.Example(t)); err != nil || !r.Valid {
		t.Fatalf("a valid bundle under a limit: %v %v", err, r.Diagnostics)
	}
}
