package profile_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/profile"
)

const (
	cSchema         = profile.CodeSchemaInvalid
	cManifest       = profile.CodeManifestInvalid
	cUnknown        = profile.CodeManifestUnknown
	cRevision       = profile.CodeRevisionUnsupported
	cManifestDigest = profile.CodeManifestDigestMismatch
	cDigest         = profile.CodeDigestMismatch
	cCoverage       = profile.CodeCoverageMismatch
	cRemote         = profile.CodeRemoteTargetUnreviewed
	cReached        = profile.CodePropertyNotReached
	cOutcome        = profile.CodeOutcomeMismatch
	cNegative       = profile.CodeNegativeControlMissing
	cReason         = profile.CodeWrongReason
	cCleanup        = profile.CodeCleanupIncomplete
	cFixture        = profile.CodeTestFixtureOverclaim
	cResult         = profile.CodeResultMismatch
)

// profileCodes is the registry of REFERENCE §5.8, in check order.
var profileCodes = []string{cSchema, cManifest, cUnknown, cRevision, cManifestDigest, cDigest, cCoverage,
	cRemote, cReached, cOutcome, cNegative, cReason, cCleanup, cFixture, cResult}

type faultCase struct {
	name string
	doc  func(t testing.TB) *canonjson.Value // nil: base
	// edits are pointer/JSON pairs; the evaluation is re-sealed afterwards
	// unless noReseal.
	edits    []string
	noReseal bool
	set      func(t testing.TB) *profile.Set // nil: exampleSet
	want     string                          // "" = valid
	detail   string
	notCode  string // wrong-reason control: must not produce this code
	// valid results only
	derived, status, scope string
}

func base(t testing.TB) *canonjson.Value {
	return ownEval(t, exampleSpec, "2026-07-28", evalOpts{})
}

func with(spec manifestSpec, revision string, o evalOpts) func(testing.TB) *canonjson.Value {
	return func(t testing.TB) *canonjson.Value { return ownEval(t, spec, revision, o) }
}

// setWith returns the example set plus one extra file.
func setWith(name, content string) func(testing.TB) *profile.Set {
	return func(t testing.TB) *profile.Set {
		files := []profile.File{{Name: name, Data: []byte(content)}}
		for _, s := range []manifestSpec{exampleSpec, identitySpec, oauthStandinSpec} {
			files = append(files, profile.File{Name: s.file, Data: pretty(t, ownManifest(s))})
		}
		return profile.NewSet(files...)
	}
}

// setEdited returns the example set with the example manifest edited.
func setEdited(edits ...string) func(testing.TB) *profile.Set {
	return func(t testing.TB) *profile.Set {
		return profile.NewSet(
			profile.File{Name: exampleSpec.file, Data: pretty(t, edit(t, ownManifest(exampleSpec), edits...))},
			profile.File{Name: identitySpec.file, Data: pretty(t, ownManifest(identitySpec))},
		)
	}
}

var zeros = strings.Repeat("0", 64)

func faultCases(t testing.TB) []faultCase {
	bounded := evalOpts{claim: "BOUNDED_CHECK_SET", checks: []string{"bounded-retry", "speculative-prefetch"}}
	return []faultCase{
		{name: "full claim 2026-07-28", derived: "PASS", status: "PROVISIONAL", scope: "FULL_PROFILE"},
		{name: "full claim 2025-11-25 without the conditional check", doc: with(exampleSpec, "2025-11-25", evalOpts{}), derived: "PASS", status: "PROVISIONAL", scope: "FULL_PROFILE"},
		{name: "bounded claim with an experimental check", doc: with(exampleSpec, "2026-07-28", bounded), derived: "PASS", status: "PROVISIONAL", scope: "BOUNDED_CHECK_SET"},
		{name: "bounded claim of a conditional check on another revision", doc: with(exampleSpec, "2025-11-25", evalOpts{claim: "BOUNDED_CHECK_SET", checks: []string{"stateless-resume"}}), derived: "PASS", scope: "BOUNDED_CHECK_SET"},
		{name: "reviewed remote target", doc: with(exampleSpec, "2026-07-28", evalOpts{target: "REMOTE_HTTP"}), derived: "PASS"},
		{name: "fixture capped at INCOMPLETE", doc: with(exampleSpec, "2026-07-28", evalOpts{fixtures: 1}), derived: "INCOMPLETE"},
		{name: "all-fixture evaluation INCOMPLETE", doc: with(exampleSpec, "2026-07-28", evalOpts{source: "TEST_FIXTURE"}), derived: "INCOMPLETE"},
		{name: "sanitized official output", doc: with(exampleSpec, "2026-07-28", evalOpts{source: "SANITIZED_OFFICIAL_OUTPUT"}), derived: "PASS"},
		{name: "experimental identity manifest", doc: with(identitySpec, "2026-07-28", evalOpts{}), derived: "PASS", status: "EXPERIMENTAL", scope: "FULL_PROFILE"},
		{name: "cleanup not required, not observed", edits: []string{"/cleanup/required", `false`, "/cleanup/observed", `false`}, derived: "PASS"},

		// 1. Schema (a field claim names every element of MCP-RES §14).
		{name: "profile version 2.0.0", edits: []string{"/profile/version", `"2.0.0"`}, want: cSchema},
		{name: "profile id v2", edits: []string{"/profile/id", `"mcp-res/mcpres-example/v2"`}, want: cSchema},
		{name: "revision NOT_APPLICABLE", edits: []string{"/profile/protocolRevision", `"NOT_APPLICABLE"`}, want: cSchema},
		{name: "collapsed matrix: environment array", edits: []string{"/environment", `[{"platform":"linux","runtimeName":"node","runtimeVersion":"22.11.0"},{"platform":"win32","runtimeName":"node","runtimeVersion":"22.11.0"}]`}, want: cSchema},
		{name: "collapsed matrix: platform list", edits: []string{"/environment/platform", `"linux,win32,darwin"`}, want: cSchema},
		{name: "collapsed matrix: legs member", edits: []string{"/legs", `[{"platform":"win32"}]`}, want: cSchema},
		{name: "field claim without OS", edits: []string{"/environment/platform", ``}, want: cSchema},
		{name: "field claim without language", edits: []string{"/subject/implementationLanguage", ``}, want: cSchema},
		{name: "field claim without subject digest", edits: []string{"/subject/artifactSha256", ``}, want: cSchema},
		{name: "field claim without transport", edits: []string{"/scope/targetKind", ``}, want: cSchema},
		{name: "field claim without wrong-reason control", edits: []string{"/checks/0/negativeControl", ``}, want: cSchema},
		{name: "field claim without cleanup", edits: []string{"/cleanup", ``}, want: cSchema},
		{name: "field claim without evaluation integrity", edits: []string{"/evaluationSha256", ``}, noReseal: true, want: cSchema},
		{name: "claimed ids repeated", edits: []string{"/scope/claimedCheckIds/-", `"clean-shutdown"`}, want: cSchema, notCode: cCoverage},
		{name: "observed outcome PASS", edits: []string{"/checks/0/positive/observedOutcome", `"PASS"`}, want: cSchema},
		{name: "reason code outside the vocabulary", edits: []string{"/checks/0/negativeControl/observedReasonCode", `"EARLY_GUARD"`}, want: cSchema, notCode: cReason},
		{name: "registry-only target OFFLINE_MODEL is allowed", edits: []string{"/scope/targetKind", `"OFFLINE_MODEL"`}, derived: "PASS"},
		{name: "result FAIL is schema-valid", edits: []string{"/result", `"FAIL"`}, want: cResult, notCode: cSchema},

		// 2. Profile set.
		{name: "manifest schema-invalid", set: setEdited("/version", `"2.0.0"`), want: cManifest, detail: "schema-invalid"},
		{name: "experimental without provenance", set: setWith("zz-experimental.json", string(pretty(t, edit(t, ownManifest(identitySpec), "/id", `"mcp-res/other/v1"`, "/experimentalProvenance", ``)))), want: cManifest, detail: "without experimentalProvenance"},
		{name: "provisional with provenance", set: setEdited("/experimentalProvenance", string(compactOf(ownManifest(identitySpec).Get("experimentalProvenance")))), want: cManifest, detail: "with experimentalProvenance"},
		{name: "check id required and experimental", set: setEdited("/experimentalChecks/-", `"clean-shutdown"`), want: cManifest, detail: "listed twice"},
		{name: "check id required and conditional", set: setEdited("/conditionalChecks/0/id", `"bounded-retry"`), want: cManifest, detail: "listed twice"},
		{name: "duplicate manifest id", set: setWith("a-copy.json", string(pretty(t, ownManifest(exampleSpec)))), want: cManifest, detail: "also the id of"},
		{name: "unrelated broken manifest", set: setWith("broken.json", `{"schemaVersion":"mcp-res.reliability-profile-manifest/0.2.0"}`), want: cManifest, detail: "broken.json"},
		{name: "manifest with a float", set: setWith("float.json", `{"version":1.0}`), want: cManifest, detail: "unreadable"},
		{name: "manifest with a BOM", set: setWith("bom.json", "\ufeff{}"), want: cManifest, detail: "unreadable"},
		{name: "unreadable file", set: func(t testing.TB) *profile.Set {
			return profile.NewSet(profile.File{Name: "x.json", Err: errors.New("permission denied")})
		}, want: cManifest, detail: "permission denied"},
		{name: "set without the manifest", set: func(t testing.TB) *profile.Set { return ownSet(t, identitySpec) }, want: cUnknown, notCode: cManifest},

		// 3. Manifest known.
		{name: "unknown profile id", edits: []string{"/profile/id", `"mcp-res/nowhere/v1"`}, want: cUnknown, detail: "no manifest"},
		{name: "empty set", set: func(testing.TB) *profile.Set { return profile.NewSet() }, want: cUnknown, detail: "0 files"},
		{name: "known manifest, unsupported revision", doc: with(identitySpec, "2025-11-25", evalOpts{}), want: cRevision, notCode: cUnknown},

		// 4. Revision (version skew).
		{name: "version skew", doc: with(identitySpec, "2025-11-25", evalOpts{}), want: cRevision, detail: "supports 2026-07-28, not 2025-11-25"},
		{name: "supported revision, stale manifest digest", edits: []string{"/profile/manifestSha256", `"` + zeros + `"`}, want: cManifestDigest, notCode: cRevision},

		// 5. Manifest digest.
		{name: "digest of another manifest", edits: []string{"/profile/manifestSha256", `"` + digest(t, ownManifest(identitySpec)) + `"`}, want: cManifestDigest},
		{name: "raw file digest instead of canonical", edits: []string{"/profile/manifestSha256", `"` + canonjson.BytesDigest(pretty(t, ownManifest(exampleSpec))) + `"`}, want: cManifestDigest, detail: "digests to"},
		{name: "evaluation digest stale only", edits: []string{"/subject/version", `"1.4.1"`}, noReseal: true, want: cDigest, notCode: cManifestDigest},

		// 6. Evaluation digest.
		{name: "evaluation digest", edits: []string{"/evaluationSha256", `"` + zeros + `"`}, noReseal: true, want: cDigest},
		{name: "digest over a rewritten result", edits: []string{"/checks/0/negativeControl/observedOutcome", `"ACCEPT"`}, noReseal: true, want: cDigest, notCode: cNegative},
		{name: "coverage omission, digest fine", edits: []string{"/checks/3", ``, "/scope/claimedCheckIds/3", ``}, want: cCoverage, notCode: cDigest},

		// 7. Coverage.
		{name: "coverage omission", edits: []string{"/checks/3", ``, "/scope/claimedCheckIds/3", ``}, want: cCoverage, detail: "lacks stateless-resume"},
		{name: "claimed but not evaluated", edits: []string{"/checks/0", ``}, want: cCoverage, detail: "claimedCheckIds has clean-shutdown"},
		{name: "evaluated twice", edits: []string{"/checks/-", compactOf(base(t).Path("checks").Items[0])}, want: cCoverage, detail: "evaluated twice"},
		{name: "unregistered check in a bounded claim", doc: with(exampleSpec, "2026-07-28", evalOpts{claim: "BOUNDED_CHECK_SET", checks: []string{"bounded-retry", "made-up-check"}}), want: cCoverage, detail: "not registered"},
		{name: "full claim with an experimental check", doc: with(exampleSpec, "2026-07-28", evalOpts{checks: []string{"clean-shutdown", "bounded-retry", "malformed-input-rejected", "stateless-resume", "speculative-prefetch"}}), want: cCoverage, detail: "has speculative-prefetch"},
		{name: "full 2025-11-25 claim with the 2026-07-28 check", doc: with(exampleSpec, "2025-11-25", evalOpts{checks: []string{"clean-shutdown", "bounded-retry", "malformed-input-rejected", "stateless-resume"}}), want: cCoverage, detail: "has stateless-resume"},
		{name: "bounded subset", doc: with(exampleSpec, "2026-07-28", evalOpts{claim: "BOUNDED_CHECK_SET", checks: []string{"malformed-input-rejected"}}), derived: "PASS", scope: "BOUNDED_CHECK_SET"},
		{name: "full coverage, remote unreviewed", edits: []string{"/scope/targetKind", `"REMOTE_HTTP"`}, want: cRemote, notCode: cCoverage},

		// 8. Remote targets.
		{name: "remote target unreviewed", edits: []string{"/scope/targetKind", `"REMOTE_HTTP"`}, want: cRemote, detail: "without remoteOptIn"},
		{name: "remote without allowlist", doc: with(exampleSpec, "2026-07-28", evalOpts{target: "REMOTE_HTTP"}), edits: []string{"/scope/allowlistSha256", ``}, want: cRemote, detail: "allowlistSha256"},
		{name: "remote without review", doc: with(exampleSpec, "2026-07-28", evalOpts{target: "REMOTE_HTTP"}), edits: []string{"/scope/reviewedTargetSha256", ``}, want: cRemote, detail: "without reviewedTargetSha256"},
		{name: "remote reviewed for another target", doc: with(exampleSpec, "2026-07-28", evalOpts{target: "REMOTE_HTTP"}), edits: []string{"/scope/reviewedTargetSha256", `"` + zeros + `"`}, want: cRemote, detail: "reviewed as"},
		{name: "remote opt-in without remote target", edits: []string{"/scope/remoteOptIn", `true`}, derived: "PASS"},
		{name: "loopback without opt-in", edits: []string{"/scope/targetKind", `"LOOPBACK_HTTP"`}, derived: "PASS"},
		{name: "reviewed remote, property not reached", doc: with(exampleSpec, "2026-07-28", evalOpts{target: "REMOTE_HTTP"}), edits: []string{"/checks/1/positive/propertyReached", `false`}, want: cReached, notCode: cRemote},

		// 9. Observations.
		{name: "property not reached (positive)", edits: []string{"/checks/1/positive/propertyReached", `false`}, want: cReached, detail: "checks[1] (bounded-retry) positive"},
		{name: "property not reached (negative)", edits: []string{"/checks/2/negativeControl/propertyReached", `false`}, want: cReached, detail: "negativeControl"},
		{name: "reached, not observed", edits: []string{"/checks/0/positive/observedOutcome", `"NOT_OBSERVED"`}, want: cOutcome, notCode: cReached},
		{name: "positive rejected", edits: []string{"/checks/0/positive/observedOutcome", `"REJECT"`}, want: cOutcome, detail: "observed REJECT, expected ACCEPT"},
		{name: "positive expected NOT_OBSERVED impossible", edits: []string{"/checks/0/positive/expectedOutcome", `"NOT_OBSERVED"`}, want: cSchema},
		{name: "negative control accepted", edits: []string{"/checks/0/negativeControl/observedOutcome", `"ACCEPT"`}, want: cNegative, notCode: cOutcome},
		{name: "negative control missing", edits: []string{"/checks/0/negativeControl/observedOutcome", `"NOT_OBSERVED"`}, want: cNegative},
		{name: "negative control terminated", edits: []string{"/checks/2/negativeControl/observedOutcome", `"TERMINATE"`}, want: cNegative, notCode: cReason},
		{name: "wrong reason", edits: []string{"/checks/2/negativeControl/observedReasonCode", `"MCP_RES_EARLY_SCHEMA_GUARD"`}, want: cReason, detail: "negativeControl: reason MCP_RES_EARLY_SCHEMA_GUARD", notCode: cNegative},
		{name: "wrong reason on the positive", edits: []string{"/checks/0/positive/observedReasonCode", `"MCP_RES_CLEAN_SHUTDOWN_REJECTED"`}, want: cReason, detail: "positive"},
		{name: "positive before negative", edits: []string{"/checks/0/positive/observedReasonCode", `"MCP_RES_X_Y"`, "/checks/0/negativeControl/propertyReached", `false`}, want: cReason},
		{name: "checks in order", edits: []string{"/checks/0/negativeControl/observedOutcome", `"ACCEPT"`, "/checks/1/positive/propertyReached", `false`}, want: cNegative},
		{name: "matching non-property reasons pass", edits: []string{"/checks/0/negativeControl/expectedReasonCode", `"MCP_RES_ANY_REASON"`, "/checks/0/negativeControl/observedReasonCode", `"MCP_RES_ANY_REASON"`}, derived: "PASS"},

		// 10. Cleanup.
		{name: "cleanup incomplete", edits: []string{"/cleanup/observed", `false`}, want: cCleanup},
		{name: "cleanup fine, result FAIL", edits: []string{"/result", `"FAIL"`}, want: cResult, notCode: cCleanup},
		{name: "cleanup incomplete before fixture overclaim", doc: with(exampleSpec, "2026-07-28", evalOpts{fixtures: 1, result: "PASS"}), edits: []string{"/cleanup/observed", `false`}, want: cCleanup, notCode: cFixture},

		// 11. Result.
		{name: "fixture pass overclaim", doc: with(exampleSpec, "2026-07-28", evalOpts{fixtures: 1, result: "PASS"}), want: cFixture, detail: "stateless-resume", notCode: cResult},
		{name: "fixture positive pass overclaim", edits: []string{"/checks/0/positive/source", `"TEST_FIXTURE"`}, want: cFixture, detail: "clean-shutdown"},
		{name: "fixture with FAIL", doc: with(exampleSpec, "2026-07-28", evalOpts{fixtures: 1, result: "FAIL"}), want: cResult, notCode: cFixture},
		{name: "incomplete without fixture", edits: []string{"/result", `"INCOMPLETE"`}, want: cResult, detail: "derived result is PASS"},
	}
}

func compactOf(v *canonjson.Value) string {
	b, err := canonjson.Compact(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func checkResult(t testing.TB, r profile.Result, err error, c faultCase) {
	t.Helper()
	if err != nil {
		t.Fatalf("aborted: %v", err)
	}
	if c.want == "" {
		if !r.Valid || len(r.Diagnostics) != 0 {
			t.Fatalf("got %v (%s), want valid", r.Diagnostics, r.Detail)
		}
		for _, kv := range [][2]string{{c.derived, r.Derived}, {c.status, r.ProfileStatus}, {c.scope, r.ClaimScope}} {
			if kv[0] != "" && kv[0] != kv[1] {
				t.Errorf("result member %s, want %s", kv[1], kv[0])
			}
		}
		return
	}
	if r.Valid || !slices.Equal(r.Diagnostics, []string{c.want}) {
		t.Fatalf("got valid=%t %v (%s), want %s", r.Valid, r.Diagnostics, r.Detail, c.want)
	}
	if (c.want == cSchema) != (len(r.SchemaErrors) > 0) {
		t.Errorf("schema errors %v with %s", r.SchemaErrors, c.want)
	}
	if !strings.Contains(r.Detail, c.detail) {
		t.Errorf("detail %q does not name %q", r.Detail, c.detail)
	}
	if r.Extra != nil {
		t.Errorf("invalid result carries %v", r.Extra)
	}
}

func TestDiagnostics(t *testing.T) {
	val := testValidator(t)
	for _, c := range faultCases(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.notCode != "" && c.notCode == c.want {
				t.Fatalf("table error: control for %s expects it", c.notCode)
			}
			doc := base(t)
			if c.doc != nil {
				doc = c.doc(t)
			}
			doc = edit(t, doc, c.edits...)
			if !c.noReseal && doc.Has("evaluationSha256") {
				reseal(t, doc)
			}
			set := exampleSet(t)
			if c.set != nil {
				set = c.set(t)
			}
			r, err := val.Validate(doc, set)
			checkResult(t, r, err, c)
			r, err = val.Validate(parse(t, string(pretty(t, doc))), set)
			checkResult(t, r, err, c)
		})
	}
}

func TestEveryCodeHasCaseAndControl(t *testing.T) {
	fires, controls := map[string]int{}, map[string]int{}
	for _, c := range faultCases(t) {
		if c.want != "" {
			fires[c.want]++
			if c.notCode != "" {
				controls[c.notCode]++
			}
		}
	}
	for _, code := range profileCodes {
		if fires[code] == 0 {
			t.Errorf("%s: no row fires it", code)
		}
		if controls[code] == 0 {
			t.Errorf("%s: no wrong-reason control", code)
		}
	}
}

// TestResultObject checks the valid result object of REFERENCE §5.6.
func TestResultObject(t *testing.T) {
	r, err := testValidator(t).Validate(ownEval(t, identitySpec, "2026-07-28", evalOpts{fixtures: 1}), exampleSet(t))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"valid":true,"diagnostics":[],"schemaErrors":[],"result":"INCOMPLETE","profileStatus":"EXPERIMENTAL","claimScope":"FULL_PROFILE"}`
	if got := compact(t, r.Value()); got != want {
		t.Errorf("result %s\nwant   %s", got, want)
	}
}

// TestNoProfileSet: without a profile set a schema-valid evaluation cannot
// be evaluated (an InputError); a schema-invalid one is still diagnosed.
func TestNoProfileSet(t *testing.T) {
	val := testValidator(t)
	r, err := val.Validate(base(t), nil)
	var ie *validator.InputError
	// The reason is the package's own words; the command names its flag.
	if !errors.As(err, &ie) || ie.Reason != profile.NoProfileSet || strings.Contains(ie.Reason, "--") || r.Valid || r.Diagnostics != nil {
		t.Errorf("no set: %v %v", r, err)
	}
	r, err = val.Validate(edit(t, base(t), "/result", `"UNKNOWN"`), nil)
	if err != nil || !slices.Equal(r.Diagnostics, []string{cSchema}) {
		t.Errorf("schema-invalid without a set: %v %v", r.Diagnostics, err)
	}
}

// TestFieldMatrixRetainsLegs: a CI matrix is one evaluation per leg, each
// validated on its own (MCP-RES §14).
func TestFieldMatrixRetainsLegs(t *testing.T) {
	val, set := testValidator(t), exampleSet(t)
	seen := map[string]bool{}
	for _, platform := range []string{"linux", "win32", "darwin"} {
		for _, rt := range [][3]string{{"node", "22.11.0", "TYPESCRIPT"}, {"python", "3.13.1", "PYTHON"}} {
			doc := ownEval(t, exampleSpec, "2026-07-28", evalOpts{label: platform + rt[0], platform: platform, runtimeName: rt[0], runtimeVersion: rt[1], language: rt[2]})
			r, err := val.Validate(doc, set)
			if err != nil || !r.Valid {
				t.Fatalf("%s/%s: %v %v (%s)", platform, rt[0], err, r.Diagnostics, r.Detail)
			}
			sum := doc.Get("evaluationSha256").Str
			if seen[sum] {
				t.Errorf("%s/%s: two legs share evaluation digest %s", platform, rt[0], sum)
			}
			seen[sum] = true
		}
	}
}
