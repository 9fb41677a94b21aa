// Package report renders an MCP-RES document and the verdict computed for
// it as one self-contained HTML page for people: the reviewers who decide
// whether to trust a server's reliability evidence.
//
// Render is pure: it takes the parsed document and results that were
// already computed — the validator.Result of `mcpres validate`, or the
// attest.Result of `mcpres attest verify` — and returns HTML bytes. It
// computes no verdict of its own; the only derivation it shows beside them
// is validator.DeriveClass, the function the validator itself uses.
//
// # What a report shows
//
// The verdict first (valid or not; each diagnostic with what its check
// means and where in the document it looks, the detail of the first failing
// check, the schema errors with their JSON Pointers); for an attested
// bundle the authenticity level; the evidence class and, for a valid
// document only, the passing integrity-bound observations it rests on; for
// an attested bundle how the level was derived (envelopes, keys,
// identities, policy id and version, evaluation time) and a table of each
// envelope's transparency check (log, entry, tree size, quorum) and of
// each witness cosignature (its time, whether it counted). Absent values
// are shown as "—". Tables wrap their cells so that no page scrolls
// sideways or is cut off in print; on a narrow screen each row becomes a
// card.
// For a v0.2 conformance bundle, on its own or inside an attested bundle:
// subject and scenario, the operation graph as an SVG DAG (parents, faults,
// recovery policies, retries; negative controls and failing operations
// marked), an observation timeline, coverage surfaces, the trial summary
// with a min/median/p95 chart and the integrity manifest. Every report ends
// with the limits of a result (MCP-RES v0.2.0 §9). Other kinds (v0.1
// bundles, migration results, official attachments, profile and OAuth
// evaluations) get the verdict and a structured view of the document.
//
// # Hostile input
//
// Every string from the document goes through html/template's contextual
// escaping; in addition control characters, NULs and bidirectional
// overrides are shown as visible ⟨U+XXXX⟩ markers (so text cannot reorder
// itself on screen) and long strings are cut with a note. Document strings
// never become URLs or attributes other than text. The page has no
// JavaScript and a Content-Security-Policy meta element (CSP) that forbids
// scripts and every fetch: default-src 'none'; style-src 'unsafe-inline';
// img-src data:. The output is also well-formed XML (a polyglot), which
// the tests and the fuzz target check.
//
// # Size
//
// Graphs of more than MaxDrawnOperations operations collapse to a summary
// (counts by kind and outcome) with the longest parent chain drawn, its
// middle elided, and tables are capped with a note, so the largest bundle
// the strict reader accepts renders in well under a second into a few
// hundred kilobytes (BenchmarkRender, TestRenderLimitBundleSize).
package report
