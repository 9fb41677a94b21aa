package official_test

import (
	"testing"

	"github.com/mcpres/mcpres/internal/jsontest"
	"github.com/mcpres/mcpres/validator/official"
)

// testValidator shares one compiled schema set between tests.
func testValidator(t testing.TB) *official.Validator {
	t.Helper()
	return official.New(jsontest.Schemas(t))
}

var (
	parse   = jsontest.Parse
	compact = jsontest.Compact
	edit    = jsontest.Edit
	text    = jsontest.Text
)
