package official_test

import (
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator/official"
)

// This file builds original test material in the shape of the official
// conformance tool's output (an array of check objects). The check names,
// texts and digests are mcpres's own; the digests are SHA-256 of labels
// (text), stand-ins for real package and requirement-set digests.

// toolCheck is one check object of a synthetic official tool output.
type toolCheck struct {
	id, status   string
	scenario     string // metadata.scenario; "" omits metadata
	errorMessage string // "" omits errorMessage
	details      string // JSON text of details; "" omits details
}

// toolOutput renders checks as the official tool writes them (pretty JSON).
func toolOutput(t testing.TB, checks ...toolCheck) []byte {
	t.Helper()
	items := make([]*canonjson.Value, len(checks))
	for i, c := range checks {
		o := canonjson.NewObject(
			canonjson.Member{Key: "id", Value: canonjson.NewString(c.id)},
			canonjson.Member{Key: "name", Value: canonjson.NewString("mcpres synthetic check " + c.id)},
			canonjson.Member{Key: "description", Value: canonjson.NewString("Synthetic check used by the mcpres test corpus.")},
			canonjson.Member{Key: "status", Value: canonjson.NewString(c.status)},
			canonjson.Member{Key: "timestamp", Value: canonjson.NewString("2026-08-27T18:00:00.000Z")},
		)
		if c.details != "" {
			o.Set("details", parse(t, c.details))
		}
		if c.errorMessage != "" {
			o.Set("errorMessage", canonjson.NewString(c.errorMessage))
		}
		if c.scenario != "" {
			o.Set("metadata", canonjson.NewObject(canonjson.Member{Key: "scenario", Value: canonjson.NewString(c.scenario)}))
		}
		items[i] = o
	}
	out, err := canonjson.Pretty(canonjson.NewArray(items...))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// baseChecks is a clean server run: four passing or informational checks.
var baseChecks = []toolCheck{
	{id: "initialize-handshake", status: "SUCCESS", details: `{"negotiatedRevision":"2025-11-25"}`},
	{id: "tools-list-schema", status: "SUCCESS", details: `{"tools":3}`},
	{id: "wire-schema-tools-call-request", status: "SUCCESS"},
	{id: "tools-call-error-shape", status: "INFO", details: `{"note":"isError result observed"}`},
}

// baseConfigText is the import configuration of the clean run.
func baseConfigText() string {
	return `{
  "schemaVersion": "mcpres.official-import-config/v1",
  "source": {
    "packageName": "@modelcontextprotocol/conformance",
    "packageVersion": "0.2.0-alpha.11",
    "packageSha256": "` + text("mcpres stand-in: official conformance package digest") + `",
    "repository": "https://github.com/modelcontextprotocol/conformance",
    "repositoryCommit": "74edef34d674f563537be8c6587cebaa58e830ca"
  },
  "protocolRevision": "2025-11-25",
  "requirementSet": {
    "revision": "2025-11-25",
    "sha256": "` + text("mcpres stand-in: requirement set 2025-11-25") + `"
  },
  "mode": "server",
  "suite": "server",
  "legs": { "client": "NOT_EXECUTED", "server": "EXECUTED" },
  "scenarioId": "tools-call",
  "observationCoverage": [
    { "surface": "MCP wire messages", "status": "INSTRUMENTED" },
    { "surface": "server process lifecycle", "status": "OBSERVED_INDIRECTLY" }
  ],
  "harness": { "exitCode": 0, "warnings": [] }
}`
}

// importDoc runs Import on output with the configuration cfg (a JSON
// document), failing the test on any error.
func importDoc(t testing.TB, output []byte, cfg *canonjson.Value) *canonjson.Value {
	t.Helper()
	c, err := testValidator(t).ParseImportConfig(cfg)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	doc, err := official.Import(output, c)
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	return doc
}

// base returns the clean run's output and its attachment.
func base(t testing.TB) ([]byte, *canonjson.Value) {
	t.Helper()
	out := toolOutput(t, baseChecks...)
	return out, importDoc(t, out, parse(t, baseConfigText()))
}

// baselined returns a run whose expected-failure baseline covers one
// FAILURE and one WARNING, both kept as the official tool reported them.
func baselined(t testing.TB) ([]byte, *canonjson.Value) {
	t.Helper()
	checks := append(append([]toolCheck{}, baseChecks...),
		toolCheck{id: "tools-call-cancellation", status: "FAILURE", errorMessage: "cancellation notification was not honoured within 2000 ms"},
		toolCheck{id: "resources-subscribe-ordering", status: "WARNING", details: `{"outOfOrder":1}`},
	)
	out := toolOutput(t, checks...)
	cfg := edit(t, parse(t, baseConfigText()), "/expectedFailureBaseline",
		`["tools-call:tools-call-cancellation","tools-call:resources-subscribe-ordering"]`)
	return out, importDoc(t, out, cfg)
}
