package oauth_test

import (
	"flag"
	"github.com/mcpres/mcpres/canonjson/canonjsontest"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator/profile"
)

var update = flag.Bool("update", false, "rewrite testdata/oauth from the corpus builder")

// corpusDir is the committed OAuth corpus (REFERENCE §9.5).
var corpusDir = filepath.Join("..", "..", "testdata", "oauth")

// examplesSet is the committed own profile set of the profile corpus,
// relative to corpusDir; it holds the PROVISIONAL stand-in.
const examplesSet = "../profile/sets/examples"

// upstreamOAuthRawSha256 is the raw file SHA-256 of the upstream
// oauth-boundary-v1.json (REFERENCE §3.5.3): a digest an evaluation must
// not bind, since manifestSha256 is canonical.
const upstreamOAuthRawSha256 = "9cc044cc17a4018bc26051525e4d0985d543bb643c40deac11c9201c315aed28"

// A corpusCase is one catalogued evaluation; profiles is a set directory
// relative to the corpus, or "" for the upstream v0.2.0 set (read from
// ../shared by the tests, never committed).
type corpusCase struct {
	id, profiles string
	doc          *canonjson.Value
	want         string
	derived      string
}

func corpus(t testing.TB) ([]corpusCase, map[string][]byte) {
	t.Helper()
	var cases []corpusCase
	up := func(label, rev string, o evalOpts) *canonjson.Value {
		o.label, o.cases = label, upstreamCases()
		return evaluation(t, upstreamOAuth.manifestSha256, rev, o)
	}
	valid := func(id string, doc *canonjson.Value, derived string) {
		cases = append(cases, corpusCase{id: id, doc: doc, derived: derived})
	}
	valid("runtime-probe-2025-11-25", up("runtime-probe-2025-11-25", "2025-11-25", evalOpts{}), "PASS")
	valid("runtime-probe-2026-07-28", up("runtime-probe-2026-07-28", "2026-07-28", evalOpts{}), "PASS")
	valid("test-fixture-incomplete", up("test-fixture-incomplete", "2026-07-28", evalOpts{fixtures: 3}), "INCOMPLETE")

	invalid := func(id, want string, o evalOpts, edits ...string) {
		doc := edit(t, up(id, "2026-07-28", o), edits...)
		if want != cDigest {
			reseal(t, doc)
		}
		cases = append(cases, corpusCase{id: id, doc: doc, want: want})
	}
	// cases[8] is pkce-s256, cases[5] access-token-audience, cases[10]
	// exact-redirect-uri, cases[24] refresh-token-rotation-when-claimed.
	invalid("wrong-reason", cReason, evalOpts{}, "/cases/8/negative/observedReasonCode", `"MCP_RES_OAUTH_EARLY_SYNTAX_REJECTION"`)
	invalid("property-not-reached", cReached, evalOpts{}, "/cases/5/negative/propertyReached", `false`)
	invalid("wrong-reason-control-missing", cControl, evalOpts{}, "/cases/10/wrongReasonMutant/observedReasonCode", `"MCP_RES_OAUTH_EXACT_REDIRECT_URI_REJECTED"`)
	invalid("external-provider", cExternal, evalOpts{}, "/fixture/realAuthorizationProvidersContacted", `1`)
	invalid("non-synthetic-credential", cSynthetic, evalOpts{}, "/fixture/syntheticCredentials", `false`)
	invalid("secret-persisted", cSecret, evalOpts{}, "/privacy/tokenMaterialPersisted", `true`)
	invalid("unsanitized-error", cUnsanitized, evalOpts{}, "/privacy/authorizationErrorsSanitized", `false`)
	invalid("cleanup-incomplete", cCleanup, evalOpts{}, "/cleanup/redirectListenerReleased", `false`)
	invalid("coverage-omission", cCoverage, evalOpts{}, "/cases/24", ``)
	invalid("digest-mismatch", cDigest, evalOpts{}, "/cases/3/positive/observedOutcome", `"REJECT"`)
	invalid("fixture-pass-overclaim", cFixture, evalOpts{fixtures: 1, result: "PASS"})
	// Further cases, one per remaining diagnostic.
	invalid("raw-token-in-evidence", cSchema, evalOpts{}, "/flow/accessToken", `"synthetic-access-token-0001"`)
	invalid("early-guard-as-coverage", cReason, evalOpts{},
		"/cases/8/negative/expectedReasonCode", `"MCP_RES_OAUTH_EARLY_SYNTAX_REJECTION"`,
		"/cases/8/negative/observedReasonCode", `"MCP_RES_OAUTH_EARLY_SYNTAX_REJECTION"`)
	invalid("outcome-mismatch", cOutcome, evalOpts{}, "/cases/0/negative/observedOutcome", `"NOT_OBSERVED"`)
	invalid("fail-never-validates", cResult, evalOpts{}, "/result", `"FAIL"`)
	invalid("raw-manifest-digest", cManifestDigest, evalOpts{}, "/profile/manifestSha256", `"`+upstreamOAuthRawSha256+`"`)

	// Own sets.
	files := map[string][]byte{
		"sets/experimental-standin/oauth-boundary-standin-v1.json": pretty(t, standinManifest(profile.StatusExperimental)),
		"sets/standin-2026-only/oauth-boundary-standin-v1.json":    pretty(t, standinManifest(profile.StatusProvisional, "2026-07-28")),
		"sets/no-oauth-manifest/unrelated-v1.json": pretty(t, edit(t, standinManifest(profile.StatusProvisional),
			"/id", `"mcp-res/mcpres-unrelated/v1"`)),
	}
	own := func(id, profiles string, doc *canonjson.Value, want, derived string) {
		cases = append(cases, corpusCase{id: id, profiles: profiles, doc: doc, want: want, derived: derived})
	}
	own("standin-2026-07-28", examplesSet, standinEval(t, "2026-07-28", evalOpts{label: "corpus"}), "", "PASS")
	own("experimental-identity-not-scored", "sets/experimental-standin",
		evaluation(t, digest(t, standinManifest(profile.StatusExperimental)), "2026-07-28", evalOpts{label: "corpus"}), cManifest, "")
	own("missing-manifest", "sets/no-oauth-manifest", standinEval(t, "2026-07-28", evalOpts{label: "corpus"}), cManifest, "")
	own("revision-unsupported", "sets/standin-2026-only",
		evaluation(t, digest(t, standinManifest(profile.StatusProvisional, "2026-07-28")), "2025-11-25", evalOpts{label: "corpus"}), cRevision, "")
	return cases, files
}

func corpusFiles(t testing.TB) map[string][]byte {
	t.Helper()
	cases, files := corpus(t)
	var entries []*canonjson.Value
	for _, c := range cases {
		files[c.id+".json"] = pretty(t, c.doc)
		profiles := canonjson.NewNull()
		if c.profiles != "" {
			profiles = str(c.profiles)
		}
		diags := []string{}
		if c.want != "" {
			diags = []string{c.want}
		}
		e := canonjson.NewObject(
			canonjson.Member{Key: "id", Value: str(c.id)},
			canonjson.Member{Key: "evaluation", Value: str(c.id + ".json")},
			canonjson.Member{Key: "profiles", Value: profiles},
			canonjson.Member{Key: "expectedDiagnostics", Value: stringArray(diags)},
		)
		if c.want == "" {
			e.Set("result", str(c.derived))
		}
		entries = append(entries, e)
	}
	files["catalog.json"] = pretty(t, canonjson.NewObject(
		canonjson.Member{Key: "schemaVersion", Value: str("mcp-res.oauth-test-catalog/0.2.0")},
		canonjson.Member{Key: "cases", Value: canonjson.NewArray(entries...)},
	))
	return files
}

func TestCorpusFiles(t *testing.T) {
	canonjsontest.SyncCorpus(t, corpusDir, corpusFiles(t), *update, "go test ./validator/oauth -run TestCorpusFiles -update")
}

// TestStandinMatchesCommittedSet: the PROVISIONAL stand-in built here is
// the file the profile corpus commits, so evaluations of either bind it.
func TestStandinMatchesCommittedSet(t *testing.T) {
	got, err := os.ReadFile(filepath.Join(corpusDir, examplesSet, "oauth-boundary-standin-v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(pretty(t, standinManifest(profile.StatusProvisional))) {
		t.Error("the stand-in differs from testdata/profile/sets/examples/oauth-boundary-standin-v1.json")
	}
}

func strs(v *canonjson.Value) []string {
	out := []string{}
	for _, it := range v.Items {
		out = append(out, it.Str)
	}
	return out
}

// TestCorpus validates every committed case as its catalog says, from disk.
func TestCorpus(t *testing.T) {
	_, cat, err := canonjson.ReadFile(filepath.Join(corpusDir, "catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	val := testValidator(t)
	var ids []string
	codes := map[string]bool{}
	upstreamValid := 0
	for _, e := range cat.Get("cases").Items {
		id := e.Get("id").Str
		ids = append(ids, id)
		want := strs(e.Get("expectedDiagnostics"))
		for _, d := range want {
			codes[d] = true
		}
		if len(want) == 0 && e.Get("profiles").Is(canonjson.Null) {
			upstreamValid++
		}
		t.Run(id, func(t *testing.T) {
			var set *profile.Set
			if p := e.Get("profiles"); p.Is(canonjson.String) {
				set, err = profile.LoadDir(filepath.Join(corpusDir, p.Str))
			} else {
				set, err = profile.LoadDir(upstreamProfiles(t))
			}
			if err != nil {
				t.Fatal(err)
			}
			_, doc, err := canonjson.ReadFile(filepath.Join(corpusDir, e.Get("evaluation").Str))
			if err != nil {
				t.Fatal(err)
			}
			r, err := val.Validate(doc, set)
			if err != nil {
				t.Fatal(err)
			}
			if r.Valid != (len(want) == 0) || !slices.Equal(r.Diagnostics, want) {
				t.Fatalf("got %v (%s), want %v", r.Diagnostics, r.Detail, want)
			}
			if r.Valid && r.Derived != e.Get("result").Str {
				t.Errorf("result %s, catalog says %s", r.Derived, e.Get("result").Str)
			}
		})
	}
	if upstreamValid != 3 {
		t.Errorf("%d valid upstream-bound cases, want 3", upstreamValid)
	}
	for _, name := range []string{"wrong-reason", "property-not-reached", "wrong-reason-control-missing", "external-provider",
		"non-synthetic-credential", "secret-persisted", "unsanitized-error", "cleanup-incomplete", "coverage-omission",
		"digest-mismatch", "fixture-pass-overclaim"} {
		if !slices.Contains(ids, name) {
			t.Errorf("catalog lacks the REFERENCE §9.5 case %s", name)
		}
	}
	for _, code := range oauthCodes {
		if !codes[code] {
			t.Errorf("no corpus case for %s", code)
		}
	}
}
