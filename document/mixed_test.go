package document_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/canonjson/canonjsontest"
	"github.com/mcpres/mcpres/document"
	"github.com/mcpres/mcpres/internal/upstreamtest"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/oauth"
	"github.com/mcpres/mcpres/validator/profile"
)

// kindResult is what dispatch returns: the upstream result object, or an
// abort.
type kindResult struct {
	obj   *canonjson.Value
	diags []string
}

// dispatch validates doc with the one document-kind switch.
func dispatch(t testing.TB, val *document.Validator, doc *canonjson.Value, profiles *profile.Set) kindResult {
	t.Helper()
	r, err := val.Validate(doc, document.Options{Profiles: profiles, EvaluatedAt: "2026-12-01T00:00:00Z"})
	if err != nil {
		var ve *validator.InputError
		if !errors.As(err, &ve) {
			t.Fatalf("abort of type %T: %v", err, err)
		}
		return kindResult{diags: []string{validator.CodeInputInvalid}}
	}
	return kindResult{obj: r.Value(), diags: r.Diagnostics}
}

func strs(v *canonjson.Value) []string {
	out := []string{}
	for _, it := range v.Items {
		out = append(out, it.Str)
	}
	return out
}

func compact(t testing.TB, v *canonjson.Value) string { return canonjsontest.Compact(t, v) }

// TestMixedFolder validates a folder mixing every document kind — official
// attachments, profile evaluations, OAuth evaluations, a core bundle and
// unreadable input — with one profile set, and checks one correct result
// per file. With ../shared present, a second folder holds the evaluations
// bound to the upstream profile set.
func TestMixedFolder(t *testing.T) {
	root := filepath.Join("..", "testdata")
	type want struct {
		diags []string
		extra string // compact members after schemaErrors for valid results
	}
	run := func(t *testing.T, files map[string]want, profilesDir string) {
		dir := t.TempDir()
		for name := range files {
			src := name
			if data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(src))); err == nil {
				name = strings.ReplaceAll(src, "/", "__")
				if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		for name, content := range map[string]string{
			"core-empty.json":   `{"schemaVersion":"mcp-res.conformance-bundle/0.2.0"}`,
			"float.json":        `{"schemaVersion":"mcp-res.profile-evaluation/0.2.0","n":1.0}`,
			"unknown-kind.json": `{"schemaVersion":"mcp-res.reliability-profile-manifest/0.2.0"}`,
		} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		expected := map[string]want{
			"core-empty.json":   {diags: []string{validator.CodeVacuousNegativeControl}},
			"float.json":        {diags: []string{validator.CodeInputInvalid}},
			"unknown-kind.json": {diags: []string{validator.CodeVacuousNegativeControl}},
		}
		for name, w := range files {
			expected[strings.ReplaceAll(name, "/", "__")] = w
		}
		set, err := profile.LoadDir(profilesDir)
		if err != nil {
			t.Fatal(err)
		}
		val := document.New(nil)
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != len(expected) || len(files) < 5 {
			t.Fatalf("%d files, %d expectations", len(entries), len(expected))
		}
		for _, de := range entries {
			w, ok := expected[de.Name()]
			if !ok {
				t.Fatalf("no expectation for %s", de.Name())
			}
			var got kindResult
			if _, doc, err := canonjson.ReadFile(filepath.Join(dir, de.Name())); err != nil {
				got = kindResult{diags: []string{validator.CodeInputInvalid}}
			} else {
				got = dispatch(t, val, doc, set)
			}
			if w.diags == nil {
				w.diags = []string{}
			}
			if !slices.Equal(got.diags, w.diags) {
				t.Errorf("%s: %v, want %v", de.Name(), got.diags, w.diags)
				continue
			}
			if len(w.diags) == 0 {
				line := `{"valid":true,"diagnostics":[],"schemaErrors":[]`
				if w.extra != "" {
					line += "," + w.extra
				}
				if c := compact(t, got.obj); c != line+"}" {
					t.Errorf("%s: %s, want %s}", de.Name(), c, line)
				}
			}
		}
	}

	files := map[string]want{"bundles/example.json": {}}
	addCatalog := func(files map[string]want, kind, member string, keep func(e *canonjson.Value) bool, extra func(e *canonjson.Value) string) {
		_, cat, err := canonjson.ReadFile(filepath.Join(root, kind, "catalog.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range cat.Get("cases").Items {
			if !keep(e) {
				continue
			}
			w := want{diags: strs(e.Get("expectedDiagnostics"))}
			if len(w.diags) == 0 {
				w.extra = extra(e)
			}
			files[kind+"/"+e.Get(member).Str] = w
		}
	}
	officialExtra := func(e *canonjson.Value) string {
		return `"importStatus":"` + e.Get("importStatus").Str + `","officialCertificationClaim":false`
	}
	profileExtra := func(e *canonjson.Value) string {
		return `"result":"` + e.Get("result").Str + `","profileStatus":"` + e.Get("profileStatus").Str + `","claimScope":"` + e.Get("claimScope").Str + `"`
	}
	oauthExtra := func(e *canonjson.Value) string {
		return `"result":"` + e.Get("result").Str + `","securityCertificationClaim":false,"realAuthorizationProvidersContacted":0`
	}
	// No original bytes are given, so altered-output's one fault is unseen.
	addCatalog(files, "official", "attachment", func(e *canonjson.Value) bool { return e.Get("id").Str != "altered-output" }, officialExtra)
	examples := func(e *canonjson.Value) bool {
		p := e.Get("profiles")
		return p.Is(canonjson.String) && strings.HasSuffix(p.Str, "sets/examples")
	}
	addCatalog(files, "profile", "evaluation", examples, profileExtra)
	addCatalog(files, "oauth", "evaluation", examples, oauthExtra)
	files["profile/collapsed-matrix.json"] = want{diags: []string{profile.CodeSchemaInvalid}}
	files["oauth/raw-token-in-evidence.json"] = want{diags: []string{oauth.CodeSchemaInvalid}}
	t.Run("own profile set", func(t *testing.T) { run(t, files, filepath.Join(root, "profile", "sets", "examples")) })

	t.Run("upstream profile set", func(t *testing.T) {
		upstream := filepath.Dir(upstreamtest.Dir(t, "..", "v0.2.0/profiles"))
		files := map[string]want{"bundles/example.json": {}}
		onUpstream := func(e *canonjson.Value) bool { return e.Get("profiles").Is(canonjson.Null) }
		addCatalog(files, "profile", "evaluation", onUpstream, profileExtra)
		addCatalog(files, "oauth", "evaluation", onUpstream, oauthExtra)
		addCatalog(files, "official", "attachment", func(e *canonjson.Value) bool { return e.Get("id").Str == "clean" }, officialExtra)
		run(t, files, filepath.Join(upstream, "profiles"))
	})
}
