package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator/schema"
)

// TestResultSchemaMatchesOutput checks docs/result.schema.json against real
// output: every line printed by validate and attest verify (valid,
// invalid, input-invalid, gated, with --with-file) is an instance of it,
// and deliberately broken objects are not.
func TestResultSchemaMatchesOutput(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "result.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	set, err := schema.LoadFS(fstest.MapFS{"result.schema.json": {Data: raw}})
	if err != nil {
		t.Fatalf("docs/result.schema.json does not load: %v", err)
	}
	check := func(t *testing.T, stdout string) {
		t.Helper()
		for _, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
			v, err := canonjson.Parse([]byte(line))
			if err != nil {
				t.Fatalf("output line is not JSON: %v\n%s", err, line)
			}
			if errs := set.Validate("result", v); len(errs) > 0 {
				t.Errorf("output does not match docs/result.schema.json: %v\n%s", errs, line)
			}
		}
	}
	broken := t.TempDir()
	os.WriteFile(filepath.Join(broken, "x.json"), []byte(`{"a":`), 0o644)

	stdout, _, _ := runCLI(t, "validate", "--with-file", "../../testdata/bundles/example.json", filepath.Join(broken, "x.json"), "../../testdata/drafts/example.draft.json")
	check(t, stdout)
	stdout, _, _ = runCLI(t, "validate", "--with-file", "--profiles", "../../testdata/profile/sets/examples", "../../testdata/official",
		"../../testdata/profile/example-full-2026-07-28.json", "../../testdata/profile/example-experimental-identity.json",
		"../../testdata/oauth/standin-2026-07-28.json", "../../testdata/oauth/raw-token-in-evidence.json")
	check(t, stdout)
	for _, kind := range []string{`"importStatus"`, `"profileStatus"`, `"securityCertificationClaim"`} {
		if !strings.Contains(stdout, kind) {
			t.Errorf("the mixed run printed no %s result", kind)
		}
	}

	cat, err := os.ReadFile(filepath.Join(attestFixtures, "catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := canonjson.Parse(cat)
	for _, e := range c.Get("cases").Items {
		args := []string{"attest", "verify", "--evaluated-at", "2026-08-27T18:05:00.000Z"}
		if p := e.Get("trustPolicy"); p.Is(canonjson.String) {
			args = append(args, "--policy", filepath.Join(attestFixtures, p.Str), "--require-level-unsafe", "SIGNED", "--require-evidence-class", "FIXTURE_VERIFIED")
		}
		stdout, _, _ := runCLI(t, append(args, filepath.Join(attestFixtures, e.Get("wrapper").Str))...)
		check(t, stdout)
	}

	// The subject checks, passing and failing.
	e := newSubjectEnv(t)
	stdout, _, _ = runCLI(t, "attest", "verify", "--policy", e.policy, "--evaluated-at", "2026-08-27T18:05:00.000Z", "--artifact", e.artA,
		"--subject-digest", e.digA, "--subject-name", "io.github.acme/server-a", "--subject-version", "1.0.0", e.bundleA, e.bundleB)
	check(t, stdout)
	if !strings.Contains(stdout, `"subject":{"found":{"name":"io.github.acme/server-b"`) || !strings.Contains(stdout, `"check":"artifact"`) {
		t.Errorf("the subject run printed no subject checks:\n%s", stdout)
	}

	for name, obj := range map[string]string{
		"extra member":                   `{"valid":true,"diagnostics":[],"schemaErrors":[],"extra":1}`,
		"two diagnostics, no evaluation": `{"valid":false,"diagnostics":["MCP_RES_A","MCP_RES_B","MCP_RES_C"],"schemaErrors":[]}`,
		"input invalid without message":  `{"valid":false,"diagnostics":["MCP_RES_INPUT_INVALID"]}`,
		"unknown subject check":          `{"valid":true,"diagnostics":[],"schemaErrors":[],"evaluatedAt":"2026-08-27T18:05:00.000Z","evaluation":{"evaluatedAt":"2026-08-27T18:05:00.000Z","policySupplied":false,"policyId":null,"policyVersion":null,"envelopes":[],"distinctKeys":0,"notes":[]},"gate":{"passed":true,"subject":{"found":null,"checks":[{"check":"filename","expected":["x"],"found":null,"passed":true}]},"reasons":[]}}`,
		"bad level":                      `{"valid":true,"diagnostics":[],"schemaErrors":[],"authenticityClassification":"GOLD","evaluatedAt":"2026-08-27T18:05:00.000Z","evaluation":{"evaluatedAt":"2026-08-27T18:05:00.000Z","policySupplied":false,"policyId":null,"policyVersion":null,"envelopes":[],"distinctKeys":0,"notes":[]}}`,
	} {
		v, err := canonjson.Parse([]byte(obj))
		if err != nil {
			t.Fatal(err)
		}
		if len(set.Validate("result", v)) == 0 {
			t.Errorf("%s: the schema accepts %s", name, obj)
		}
	}
}
