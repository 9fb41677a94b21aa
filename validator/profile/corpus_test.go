package profile_test

import (
	"flag"
	"github.com/mcpres/mcpres/canonjson/canonjsontest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator/profile"
)

var update = flag.Bool("update", false, "rewrite testdata/profile from the corpus builder")

// corpusDir is the committed profile corpus (REFERENCE §9.5).
var corpusDir = filepath.Join("..", "..", "testdata", "profile")

// examplesSet is the committed own profile set, relative to corpusDir.
const examplesSet = "sets/examples"

// A corpusCase is one catalogued evaluation. profiles is a set directory
// relative to the corpus, or "" for the upstream v0.2.0 set, which the
// evaluations bind by canonical digest (REFERENCE §3.5.3) and which the
// tests read from ../shared; the upstream files are never committed here.
type corpusCase struct {
	id, profiles string
	doc          *canonjson.Value
	want         string
	derived      string
	status       string
	scope        string
}

func upstreamSpec(t testing.TB, id string) manifestSpec {
	t.Helper()
	for _, s := range upstreamManifests {
		if s.id == id {
			return s
		}
	}
	t.Fatalf("no upstream manifest %s", id)
	return manifestSpec{}
}

// corpus builds every case deterministically.
func corpus(t testing.TB) ([]corpusCase, map[string][]byte) {
	t.Helper()
	var cases []corpusCase
	sets := map[string][]byte{}
	// One valid evaluation per upstream manifest and supported revision,
	// varying the claim, target, source and leg.
	variants := map[string]evalOpts{
		"async-operation-2026-07-28":        {target: "LOOPBACK_HTTP", platform: "darwin", runtimeName: "python", runtimeVersion: "3.13.1", language: "PYTHON"},
		"streamable-http-2025-11-25":        {target: "REMOTE_HTTP"},
		"streamable-http-2026-07-28":        {target: "LOOPBACK_HTTP"},
		"stdio-transport-2025-11-25":        {platform: "win32"},
		"extension-boundary-2026-07-28":     {claim: "BOUNDED_CHECK_SET", checks: []string{"extension-identifier", "apps-sandbox-startup", "apps-teardown"}},
		"operational-resilience-2025-11-25": {fixtures: 3},
		"operational-resilience-2026-07-28": {source: "SANITIZED_OFFICIAL_OUTPUT"},
		"token-exchange-2026-07-28":         {fixtures: 4},
	}
	for _, s := range upstreamManifests {
		for _, rev := range s.revisions {
			name := strings.Split(s.id, "/")[1]
			id := name + "-" + rev
			o := variants[id]
			o.label = id
			derived := "PASS"
			if o.fixtures > 0 {
				derived = "INCOMPLETE"
			}
			cases = append(cases, corpusCase{id: id, doc: evaluation(t, s, s.manifestSha256, rev, o),
				derived: derived, status: s.status, scope: or(o.claim, "FULL_PROFILE")})
		}
	}
	pr := upstreamSpec(t, "mcp-res/protocol-revision/v1")
	prEval := func(label string, o evalOpts) *canonjson.Value {
		o.label = label
		return evaluation(t, pr, pr.manifestSha256, "2026-07-28", o)
	}
	invalid := func(id, want string, doc *canonjson.Value, edits ...string) {
		doc = edit(t, doc, edits...)
		if want != cDigest {
			reseal(t, doc)
		}
		cases = append(cases, corpusCase{id: id, doc: doc, want: want})
	}
	invalid("property-not-reached", cReached, prEval("property-not-reached", evalOpts{}), "/checks/2/negativeControl/propertyReached", `false`)
	invalid("wrong-reason", cReason, prEval("wrong-reason", evalOpts{}), "/checks/2/negativeControl/observedReasonCode", `"MCP_RES_EARLY_SCHEMA_GUARD"`)
	invalid("negative-control-missing", cNegative, prEval("negative-control-missing", evalOpts{}), "/checks/5/negativeControl/observedOutcome", `"NOT_OBSERVED"`)
	sh := upstreamSpec(t, "mcp-res/streamable-http/v1")
	invalid("remote-target-unreviewed", cRemote, evaluation(t, sh, sh.manifestSha256, "2026-07-28", evalOpts{label: "remote-target-unreviewed", target: "REMOTE_HTTP"}),
		"/scope/reviewedTargetSha256", ``)
	invalid("cleanup-incomplete", cCleanup, prEval("cleanup-incomplete", evalOpts{}), "/cleanup/observed", `false`)
	invalid("fixture-pass-overclaim", cFixture, prEval("fixture-pass-overclaim", evalOpts{fixtures: 1, result: "PASS"}))
	invalid("coverage-omission", cCoverage, prEval("coverage-omission", evalOpts{}), "/checks/16", ``, "/scope/claimedCheckIds/16", ``)
	ao := upstreamSpec(t, "mcp-res/async-operation/v1")
	invalid("version-skew", cRevision, evaluation(t, ao, ao.manifestSha256, "2025-11-25", evalOpts{label: "version-skew"}))
	invalid("evaluation-digest", cDigest, prEval("evaluation-digest", evalOpts{}), "/checks/0/negativeControl/observedOutcome", `"ACCEPT"`)
	// Further cases, one per remaining diagnostic.
	invalid("collapsed-matrix", cSchema, prEval("collapsed-matrix", evalOpts{}),
		"/environment", `[{"platform":"linux","runtimeName":"node","runtimeVersion":"22.11.0"},{"platform":"win32","runtimeName":"node","runtimeVersion":"22.11.0"}]`)
	invalid("deferred-identity-profile", cUnknown, prEval("deferred-identity-profile", evalOpts{}), "/profile/id", `"mcp-res/workload-identity/v1"`)
	invalid("raw-manifest-digest", cManifestDigest, prEval("raw-manifest-digest", evalOpts{}), "/profile/manifestSha256", `"`+pr.rawSha256+`"`)
	invalid("outcome-mismatch", cOutcome, prEval("outcome-mismatch", evalOpts{}), "/checks/1/positive/observedOutcome", `"NOT_OBSERVED"`)
	invalid("fail-never-validates", cResult, prEval("fail-never-validates", evalOpts{}), "/result", `"FAIL"`)
	cb := upstreamSpec(t, "mcp-res/cache-behavior/v1")
	invalid("experimental-in-full-claim", cCoverage, evaluation(t, cb, cb.manifestSha256, "2026-07-28",
		evalOpts{label: "experimental-in-full-claim", checks: append(append([]string{}, cb.required...), cb.experimental...)}))

	// Own sets: the examples (also used by the OAuth corpus and the mixed
	// folder test) and one broken set.
	for _, s := range []manifestSpec{exampleSpec, identitySpec, oauthStandinSpec} {
		sets[examplesSet+"/"+s.file] = pretty(t, ownManifest(s))
	}
	sets["sets/experimental-without-provenance/"+identitySpec.file] = pretty(t, edit(t, ownManifest(identitySpec), "/experimentalProvenance", ``))
	cases = append(cases,
		corpusCase{id: "example-full-2026-07-28", profiles: examplesSet, doc: ownEval(t, exampleSpec, "2026-07-28", evalOpts{label: "corpus"}),
			derived: "PASS", status: "PROVISIONAL", scope: "FULL_PROFILE"},
		corpusCase{id: "example-experimental-identity", profiles: examplesSet, doc: ownEval(t, identitySpec, "2026-07-28", evalOpts{label: "corpus"}),
			derived: "PASS", status: "EXPERIMENTAL", scope: "FULL_PROFILE"},
		corpusCase{id: "experimental-without-provenance", profiles: "sets/experimental-without-provenance",
			doc: ownEval(t, identitySpec, "2026-07-28", evalOpts{label: "corpus"}), want: cManifest},
	)
	return cases, sets
}

func corpusFiles(t testing.TB) map[string][]byte {
	t.Helper()
	cases, files := corpus(t)
	var entries []*canonjson.Value
	for _, c := range cases {
		files[c.id+".json"] = pretty(t, c.doc)
		profiles := canonjson.NewNull()
		if c.profiles != "" {
			profiles = canonjson.NewString(c.profiles)
		}
		e := canonjson.NewObject(
			canonjson.Member{Key: "id", Value: str(c.id)},
			canonjson.Member{Key: "evaluation", Value: str(c.id + ".json")},
			canonjson.Member{Key: "profiles", Value: profiles},
			canonjson.Member{Key: "expectedDiagnostics", Value: stringArray(nonEmpty(c.want))},
		)
		if c.want == "" {
			e.Set("result", str(c.derived))
			e.Set("profileStatus", str(c.status))
			e.Set("claimScope", str(c.scope))
		}
		entries = append(entries, e)
	}
	files["catalog.json"] = pretty(t, canonjson.NewObject(
		canonjson.Member{Key: "schemaVersion", Value: str("mcp-res.profile-test-catalog/0.2.0")},
		canonjson.Member{Key: "cases", Value: canonjson.NewArray(entries...)},
	))
	return files
}

func nonEmpty(s string) []string {
	if s == "" {
		return []string{}
	}
	return []string{s}
}

func TestCorpusFiles(t *testing.T) {
	canonjsontest.SyncCorpus(t, corpusDir, corpusFiles(t), *update, "go test ./validator/profile -run TestCorpusFiles -update")
}

func strs(v *canonjson.Value) []string {
	out := []string{}
	for _, it := range v.Items {
		out = append(out, it.Str)
	}
	return out
}

// TestCorpus validates every committed case as its catalog says, from disk.
// Cases bound to the upstream set skip when ../shared is absent.
func TestCorpus(t *testing.T) {
	_, cat, err := canonjson.ReadFile(filepath.Join(corpusDir, "catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	val := testValidator(t)
	var ids []string
	codes := map[string]bool{}
	valid := 0
	for _, e := range cat.Get("cases").Items {
		id := e.Get("id").Str
		ids = append(ids, id)
		want := strs(e.Get("expectedDiagnostics"))
		for _, d := range want {
			codes[d] = true
		}
		if len(want) == 0 && e.Get("profiles").Is(canonjson.Null) {
			valid++
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
			if r.Valid {
				got := compactOf(canonjson.NewObject(r.Extra...))
				exp := compactOf(canonjson.NewObject(
					canonjson.Member{Key: "result", Value: e.Get("result")},
					canonjson.Member{Key: "profileStatus", Value: e.Get("profileStatus")},
					canonjson.Member{Key: "claimScope", Value: e.Get("claimScope")}))
				if got != exp {
					t.Errorf("members %s, catalog says %s", got, exp)
				}
			}
		})
	}
	if valid != 18 {
		t.Errorf("%d valid upstream-bound cases, want one per manifest and supported revision (18)", valid)
	}
	for _, name := range []string{"property-not-reached", "wrong-reason", "negative-control-missing", "remote-target-unreviewed",
		"cleanup-incomplete", "fixture-pass-overclaim", "coverage-omission", "version-skew", "evaluation-digest"} {
		if !slices.Contains(ids, name) {
			t.Errorf("catalog lacks the REFERENCE §9.5 case %s", name)
		}
	}
	for _, code := range profileCodes {
		if !codes[code] {
			t.Errorf("no corpus case for %s", code)
		}
	}
}
