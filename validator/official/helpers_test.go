package official_test

import (
	"testing"

	"github.com/mcpres/mcpres/canonjson/canonjsontest"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/official"
)

// sharedCore compiles the embedded schemas once per test binary, on first
// use, for every test.
var sharedCore = validator.New()

// testValidator shares one compiled schema set between tests.
func testValidator(t testing.TB) *official.Validator {
	t.Helper()
	return official.New(sharedCore)
}

var (
	parse   = canonjsontest.Parse
	compact = canonjsontest.Compact
	edit    = canonjsontest.Edit
	text    = canonjsontest.Text
)
