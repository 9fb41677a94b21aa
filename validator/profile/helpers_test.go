package profile_test

import (
	"testing"

	"github.com/mcpres/mcpres/canonjson/canonjsontest"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/profile"
)

// sharedCore compiles the embedded schemas once per test binary, on first
// use, for every test.
var sharedCore = validator.New()

// testValidator shares one compiled schema set between tests.
func testValidator(t testing.TB) *profile.Validator {
	t.Helper()
	return profile.New(sharedCore)
}

var (
	parse   = canonjsontest.Parse
	compact = canonjsontest.Compact
	edit    = canonjsontest.Edit
	text    = canonjsontest.Text
)
