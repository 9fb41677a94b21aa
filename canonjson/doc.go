// Package canonjson is the only way mcpres reads JSON and the only way it
// hashes JSON: every entry point of mcpres takes the *Value it parses.
//
// A program that validates, signs or verifies MCP-RES documents turns their
// bytes into a Value with Parse (or a file with ReadFile), hands it to
// document, bundle, attest or trustpolicy, and writes what they return with
// Pretty:
//
//	doc, err := canonjson.Parse(data) // strict: see Reading
//	if err != nil {
//		return err // a *SyntaxError: MCP_RES_INPUT_INVALID
//	}
//	r, err := document.New(nil).Validate(doc, document.Options{})
//
// # Values
//
// A Value is a JSON value as a tree: Kind says which of Null, Bool, Int,
// Number (a lenient read's non-integer token), String, Array or Object it
// is, and the field of that kind holds it. Objects keep their members in
// input order. Get and Path read members (nil when absent; every reader
// method accepts a nil *Value), Set, Delete and Without edit objects, Clone
// copies a tree, Equal compares two, and the New… functions build one.
// Unmarshal decodes a Value into a Go struct strictly (json tags; unknown
// members are errors), and FromGo converts Go data into a Value.
//
// # Reading
//
// Parse and ReadFile implement the strict input reader of the mcpres
// implementation reference (REFERENCE §1.5): strict UTF-8 without a byte
// order mark, RFC 8259 grammar, no trailing data, no duplicate keys (after
// unescaping), no unpaired surrogates (valid non-BMP characters are
// accepted), integers only (no fraction or exponent, |n| ≤ 2^53−1, -0 reads
// as 0), depth ≤ 128, ≤ 250,000 values and keys, strings ≤ 1,048,576 code
// points, files ≤ 16 MiB that are regular files and not symbolic links.
// Every failure is a *SyntaxError with a reason and a true byte offset; the
// validators report it as MCP_RES_INPUT_INVALID.
//
// A program that reads many documents one after another (a batch) parses
// each with an Arena: into the Values, members and items of the one before,
// after Reset. Strings are never reused; whatever outlives Reset is taken
// with Keep.
//
// Go's encoding/json is unsuitable for untrusted MCP-RES documents: it
// accepts duplicate keys, replaces lone surrogates with U+FFFD, accepts
// floats and loses member order.
//
// # Canonical form
//
// Canonical implements mcp-res-json-utf16-v1 (REFERENCE §1.2): no
// whitespace; members sorted by UTF-16 code units (not Go's byte order: a
// key with a character ≥ U+10000 sorts before one with U+E000–U+FFFF);
// integers in plain decimal; strings escaped as ECMAScript JSON.stringify
// does (only ", \, and U+0000–U+001F are escaped, with \b \t \n \f \r and
// lowercase \u00xx). Digest returns the lowercase hex SHA-256 of those bytes
// and their length; TextDigest hashes raw text (REFERENCE §1.3).
//
// # Output
//
// Compact and Pretty serialize in stored member order with the same string
// escaping (REFERENCE §1.6): compact for CLI results, the two-space
// JSON.stringify layout for written files.
package canonjson
