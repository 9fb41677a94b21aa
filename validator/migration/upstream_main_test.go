package migration_test

import (
	"testing"

	"github.com/mcpres/mcpres/internal/upstreamtest"
)

// TestMain says in one line how many conformance tests were skipped for
// want of ../shared (package internal/upstreamtest).
func TestMain(m *testing.M) { upstreamtest.Main(m) }
