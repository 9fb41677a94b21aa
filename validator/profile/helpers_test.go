package profile_test

import (
	"testing"

	"github.com/mcpres/mcpres/internal/jsontest"
	"github.com/mcpres/mcpres/validator/profile"
)

// testValidator shares one compiled schema set between tests.
func testValidator(t testing.TB) *profile.Validator {
	t.Helper()
	return profile.New(jsontest.Schemas(t))
}

var (
	parse   = jsontest.Parse
	compact = jsontest.Compact
	edit    = jsontest.Edit
	text    = jsontest.Text
)
