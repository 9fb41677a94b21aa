package document_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/document"
	"github.com/mcpres/mcpres/validator"
)

func parse(t testing.TB, s string) *canonjson.Value {
	t.Helper()
	v, err := canonjson.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestDetect: each kind's exact schemaVersion selects it; near misses
// (another version, case, whitespace, a non-string, a nested member, a
// root that is not an object) are Unknown.
func TestDetect(t *testing.T) {
	kinds := map[string]document.Kind{
		bundle.SchemaVersionBundle:             document.Bundle,
		bundle.SchemaVersionBundleV01:          document.BundleV01,
		bundle.SchemaVersionAttestedBundle:     document.AttestedBundle,
		bundle.SchemaVersionMigrationResult:    document.MigrationResult,
		bundle.SchemaVersionOfficialAttachment: document.OfficialAttachment,
		bundle.SchemaVersionProfileEvaluation:  document.ProfileEvaluation,
		bundle.SchemaVersionOAuthEvaluation:    document.OAuthEvaluation,
	}
	for sv, want := range kinds {
		doc := canonjson.NewObject(canonjson.Member{Key: "schemaVersion", Value: canonjson.NewString(sv)})
		if got := document.Detect(doc); got != want {
			t.Errorf("Detect(%q) = %v, want %v", sv, got, want)
		}
		if got := want.SchemaVersion(); got != sv {
			t.Errorf("%v.SchemaVersion() = %q, want %q", want, got, sv)
		}
		for _, near := range []string{sv + " ", strings.ToUpper(sv), strings.Replace(sv, "/0.", "/9.", 1)} {
			doc := canonjson.NewObject(canonjson.Member{Key: "schemaVersion", Value: canonjson.NewString(near)})
			if got := document.Detect(doc); got != document.Unknown {
				t.Errorf("Detect(%q) = %v, want unknown", near, got)
			}
		}
	}
	for _, text := range []string{
		`{}`, `[]`, `null`, `"mcp-res.conformance-bundle/0.2.0"`,
		`{"schemaVersion":null}`, `{"schemaVersion":["mcp-res.conformance-bundle/0.2.0"]}`,
		`{"bundle":{"schemaVersion":"mcp-res.attested-conformance-bundle/0.2.0"}}`,
		`{"schemaVersion":"mcp-res.trust-policy/0.2.0"}`, `{"schemaVersion":"mcp-res.reliability-profile-manifest/0.2.0"}`,
	} {
		if got := document.Detect(parse(t, text)); got != document.Unknown {
			t.Errorf("Detect(%s) = %v, want unknown", text, got)
		}
	}
	if got := document.Kind(99).String(); got != "unknown" {
		t.Errorf("Kind(99).String() = %q", got)
	}
}

// TestCoreBundle: only an attested bundle gives its "bundle" member.
func TestCoreBundle(t *testing.T) {
	inner := `{"schemaVersion":"mcp-res.conformance-bundle/0.2.0","x":1}`
	att := parse(t, `{"schemaVersion":"mcp-res.attested-conformance-bundle/0.2.0","bundle":`+inner+`}`)
	if got, _ := canonjson.Compact(document.CoreBundle(att)); string(got) != inner {
		t.Errorf("attested: %s, want %s", got, inner)
	}
	if got := document.CoreBundle(parse(t, `{"schemaVersion":"mcp-res.attested-conformance-bundle/0.2.0"}`)); got != nil {
		t.Errorf("attested without bundle: %v, want nil", got)
	}
	// Control: the same "bundle" member under another kind is not unwrapped.
	other := parse(t, `{"schemaVersion":"mcp-res.conformance-bundle/0.2.0","bundle":`+inner+`}`)
	if got := document.CoreBundle(other); got != other {
		t.Errorf("bundle with a bundle member: unwrapped")
	}
}

// TestValidateAttested: an attested bundle goes to attest.Verify (without
// a policy), and Validate returns exactly its result; a core bundle never
// carries an Attestation.
func TestValidateAttested(t *testing.T) {
	const at = "2026-08-27T18:05:00.000Z" // the corpus evaluation time
	val := document.New(nil)
	for _, name := range []string{"signed-untrusted-allowed-at-signed-level.json", "wrong-key.json", "valid-signature-invalid-evidence.json"} {
		_, doc, err := canonjson.ReadFile(filepath.Join("..", "testdata", "attestation", name))
		if err != nil {
			t.Fatal(err)
		}
		want, werr := attest.Verify(doc, attest.Options{EvaluatedAt: at, Validator: validator.New()})
		got, gerr := val.Validate(doc, document.Options{EvaluatedAt: at})
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%s: error %v, attest.Verify says %v", name, gerr, werr)
		}
		if got.Kind != document.AttestedBundle || got.Attestation == nil {
			t.Fatalf("%s: kind %v, attestation %v", name, got.Kind, got.Attestation)
		}
		w, _ := canonjson.Compact(want.Value())
		g, _ := canonjson.Compact(got.Value())
		if string(g) != string(w) || got.Valid != want.Valid || strings.Join(got.Diagnostics, ",") != strings.Join(want.Diagnostics, ",") {
			t.Errorf("%s:\n got %s\nwant %s", name, g, w)
		}
	}
	// No evaluation time: attest.Verify refuses, and so does Validate.
	_, doc, err := canonjson.ReadFile(filepath.Join("..", "testdata", "attestation", "wrong-key.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := val.Validate(doc, document.Options{}); err == nil || !strings.Contains(err.Error(), "evaluation time") {
		t.Errorf("no EvaluatedAt: %v, want an evaluation-time error", err)
	}
	// Control: the bundle inside is a core bundle, validated without one.
	r, err := val.Validate(doc.Get("bundle"), document.Options{})
	if err != nil || r.Kind != document.Bundle || r.Attestation != nil || !r.Valid {
		t.Errorf("inner bundle: %+v, %v", r, err)
	}
}

// TestValidateAbort: a kind's abort is a *validator.InputError with a zero
// Result, whichever kind package raised it.
func TestValidateAbort(t *testing.T) {
	val := document.New(nil)
	for _, text := range []string{
		`{"schemaVersion":"mcp-res.conformance-bundle/0.1.0","evidence":{"operations":7}}`,
		`{"schemaVersion":"mcp-res.profile-evaluation/0.2.0"}`, // schema-invalid: diagnosed, not aborted
	} {
		r, err := val.Validate(parse(t, text), document.Options{})
		var ie *validator.InputError
		switch {
		case strings.Contains(text, "0.1.0"):
			if !errors.As(err, &ie) || r.Kind != document.Unknown || r.Diagnostics != nil {
				t.Errorf("%s: %+v, %v; want an InputError and a zero Result", text, r, err)
			}
		default:
			if err != nil || r.Valid || len(r.Diagnostics) != 1 || r.Kind != document.ProfileEvaluation {
				t.Errorf("%s: %+v, %v; want one diagnostic", text, r, err)
			}
		}
	}
}
