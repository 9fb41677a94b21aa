package oauth_test

import (
	"testing"

	"github.com/mcpres/mcpres/internal/jsontest"
	"github.com/mcpres/mcpres/validator/oauth"
)

// testValidator shares one compiled schema set between tests.
func testValidator(t testing.TB) *oauth.Validator {
	t.Helper()
	return oauth.New(jsontest.Schemas(t))
}

var (
	parse   = jsontest.Parse
	compact = jsontest.Compact
	edit    = jsontest.Edit
	text    = jsontest.Text
)
