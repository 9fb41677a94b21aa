// Package validator is the core MCP-RES v0.2.0 validator: it validates
// mcp-res.conformance-bundle/0.2.0 documents exactly as REFERENCE §5.1
// orders the checks (Validator.Bundle), and owns what every document kind
// reports the same way: Result (built with Pass and Fail; a kind with
// mode members embeds it, see Result) and its upstream result object
// (Result.Value, REFERENCE §5.0), the abort *InputError
// (MCP_RES_INPUT_INVALID, exit status 2), and the compiled embedded schemas
// (Validator.Schemas, loaded once on first use).
//
// The other document kinds have their own packages, which depend on this
// one and never the reverse: validator/v01 (frozen v0.1.0 bundles),
// validator/migration (migration results), validator/official,
// validator/profile and validator/oauth; validator/schema is the JSON
// Schema engine. Package document detects a document's kind from its
// schemaVersion and chooses among them.
package validator
