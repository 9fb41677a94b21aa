// Package example embeds mcpres's example draft conformance bundle (an
// original fixture, not an upstream vector), for `mcpres demo` and tests.
// The repository's testdata/drafts/example.draft.json is kept identical by
// the bundle package's tests.
package example

import _ "embed"

//go:embed example.draft.json
var draft []byte

// Draft returns a copy of the example draft's bytes.
func Draft() []byte { return append([]byte(nil), draft...) }
