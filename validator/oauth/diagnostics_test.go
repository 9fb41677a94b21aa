package oauth_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/upstreamtest"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/oauth"
	"github.com/mcpres/mcpres/validator/profile"
)

const (
	cSchema         = oauth.CodeSchemaInvalid
	cManifest       = oauth.CodeManifestInvalid
	cRevision       = oauth.CodeRevisionUnsupported
	cManifestDigest = oauth.CodeManifestDigestMismatch
	cDigest         = oauth.CodeDigestMismatch
	cCoverage       = oauth.CodeCoverageMismatch
	cExternal       = oauth.CodeExternalProviderContact
	cSynthetic      = oauth.CodeNonSyntheticCredential
	cReason         = oauth.CodeWrongReason
	cReached        = oauth.CodePropertyNotReached
	cOutcome        = oauth.CodeOutcomeMismatch
	cControl        = oauth.CodeWrongReasonControlMissing
	cSecret         = oauth.CodeSecretPersisted
	cUnsanitized    = oauth.CodeUnsanitizedError
	cCleanup        = oauth.CodeCleanupIncomplete
	cFixture        = oauth.CodeTestFixtureOverclaim
	cResult         = oauth.CodeResultMismatch
)

// oauthCodes is the registry of REFERENCE §5.8, in check order.
var oauthCodes = []string{cSchema, cManifest, cRevision, cManifestDigest, cDigest, cCoverage, cExternal,
	cSynthetic, cReason, cReached, cOutcome, cControl, cSecret, cUnsanitized, cCleanup, cFixture, cResult}

type faultCase struct {
	name     string
	doc      func(t testing.TB) *canonjson.Value // nil: base
	edits    []string
	noReseal bool
	set      func(t testing.TB) *profile.Set // nil: the stand-in set
	want     string
	detail   string
	notCode  string
	derived  string // valid results only
}

func base(t testing.TB) *canonjson.Value { return standinEval(t, "2026-07-28", evalOpts{}) }

func with(revision string, o evalOpts) func(testing.TB) *canonjson.Value {
	return func(t testing.TB) *canonjson.Value { return standinEval(t, revision, o) }
}

var zeros = strings.Repeat("0", 64)

func faultCases(t testing.TB) []faultCase {
	exp := func(t testing.TB) *profile.Set { return standinSet(t, standinManifest(profile.StatusExperimental)) }
	only2026 := func(t testing.TB) *profile.Set {
		return standinSet(t, standinManifest(profile.StatusProvisional, "2026-07-28"))
	}
	// A PKCE negative rejected by the early syntax guard, dressed up as
	// coverage of the property: expected and observed both name the guard.
	guardAsCoverage := []string{
		"/cases/0/negative/expectedReasonCode", `"` + oauth.EarlySyntaxRejection + `"`,
		"/cases/0/negative/observedReasonCode", `"` + oauth.EarlySyntaxRejection + `"`,
	}
	return []faultCase{
		{name: "full evaluation 2026-07-28", derived: "PASS"},
		{name: "full evaluation 2025-11-25", doc: with("2025-11-25", evalOpts{}), derived: "PASS"},
		{name: "fixture evidence is INCOMPLETE", doc: with("2026-07-28", evalOpts{fixtures: 2}), derived: "INCOMPLETE"},
		{name: "flow is not checked semantically", edits: []string{"/flow/redirectUri", `"https://client.example/callback"`}, derived: "PASS"},

		// 1. Schema: raw credential material and foreign profiles have no place.
		{name: "raw access token in the flow", edits: []string{"/flow/accessToken", `"synthetic-not-a-token"`}, want: cSchema},
		{name: "client secret in a case", edits: []string{"/cases/0/positive/clientSecret", `"x"`}, want: cSchema},
		{name: "plain PKCE", edits: []string{"/flow/codeChallengeMethod", `"plain"`}, want: cSchema},
		{name: "experimental identity profile scored as OAuth", edits: []string{"/profile/id", `"mcp-res/dpop/v1"`}, want: cSchema},
		{name: "security certification claimed", edits: []string{"/securityCertificationClaim", `true`}, want: cSchema},
		{name: "negative provider count", edits: []string{"/fixture/realAuthorizationProvidersContacted", `-1`}, want: cSchema, notCode: cExternal},
		{name: "scope with a space", edits: []string{"/flow/requestedScopes/0", `"mcp tools"`}, want: cSchema},
		{name: "mutant expects another diagnostic", edits: []string{"/cases/0/wrongReasonMutant/expectedDiagnostic", `"MCP_RES_OAUTH_OUTCOME_MISMATCH"`}, want: cSchema, notCode: cControl},
		{name: "reason outside the OAuth vocabulary", edits: []string{"/cases/0/negative/observedReasonCode", `"MCP_RES_PKCE_REJECTED"`}, want: cSchema},
		{name: "one real provider contacted", edits: []string{"/fixture/realAuthorizationProvidersContacted", `1`}, want: cExternal, notCode: cSchema},

		// 2. Manifest.
		{name: "no oauth-boundary manifest", set: func(t testing.TB) *profile.Set { return profile.NewSet() }, want: cManifest, detail: "has no mcp-res/oauth-boundary/v1"},
		{name: "experimental identity manifest never scored", set: exp, want: cManifest, detail: "not PROVISIONAL"},
		{name: "another manifest of the set is invalid", set: func(t testing.TB) *profile.Set {
			return standinSet(t, nil, profile.File{Name: "broken.json", Data: []byte(`{}`)})
		}, want: cManifest, detail: "broken.json"},
		{name: "oauth manifest unreadable", set: func(t testing.TB) *profile.Set {
			return profile.NewSet(profile.File{Name: "oauth-boundary-v1.json", Err: errors.New("permission denied")})
		}, want: cManifest, detail: "unreadable"},
		{name: "valid manifest, revision unsupported", doc: func(t testing.TB) *canonjson.Value {
			return evaluation(t, digest(t, standinManifest(profile.StatusProvisional, "2026-07-28")), "2025-11-25", evalOpts{})
		}, set: only2026, want: cRevision, notCode: cManifest},

		// 3. Revision.
		{name: "revision unsupported", doc: func(t testing.TB) *canonjson.Value {
			return evaluation(t, digest(t, standinManifest(profile.StatusProvisional, "2026-07-28")), "2025-11-25", evalOpts{})
		}, set: only2026, want: cRevision, detail: "supports 2026-07-28, not 2025-11-25"},
		{name: "supported revision, manifest digest wrong", set: only2026, want: cManifestDigest, notCode: cRevision},

		// 4. Manifest digest.
		{name: "manifest digest", edits: []string{"/profile/manifestSha256", `"` + zeros + `"`}, want: cManifestDigest},
		{name: "upstream digest against the stand-in", edits: []string{"/profile/manifestSha256", `"` + upstreamOAuth.manifestSha256 + `"`}, want: cManifestDigest},
		{name: "evaluation digest only", edits: []string{"/subject/version", `"0.9.3"`}, noReseal: true, want: cDigest, notCode: cManifestDigest},

		// 5. Evaluation digest.
		{name: "digest mismatch", edits: []string{"/evaluationSha256", `"` + zeros + `"`}, noReseal: true, want: cDigest},
		{name: "coverage omission, digest fine", edits: []string{"/cases/1", ``}, want: cCoverage, notCode: cDigest},

		// 6. Coverage.
		{name: "coverage omission", edits: []string{"/cases/1", ``}, want: cCoverage, detail: "no case for exact-redirect-uri"},
		{name: "conditional case missing", doc: with("2026-07-28", evalOpts{cases: standinRequired}), want: cCoverage, detail: "no case for refresh-token-rotation-when-claimed"},
		{name: "conditional case on the wrong revision", doc: with("2025-11-25", evalOpts{cases: standinCases("2026-07-28")}), want: cCoverage, detail: "not a required or 2025-11-25 conditional"},
		{name: "case twice", edits: []string{"/cases/-", compactOf(base(t).Get("cases").Items[0])}, want: cCoverage, detail: "appears twice"},
		{name: "case outside the manifest", doc: with("2026-07-28", evalOpts{cases: append(standinCases("2026-07-28"), "issuer-binding")}), want: cCoverage},
		{name: "full coverage, not loopback-only", edits: []string{"/fixture/loopbackOnly", `false`}, want: cExternal, notCode: cCoverage},

		// 7. External contact.
		{name: "external provider", edits: []string{"/fixture/loopbackOnly", `false`}, want: cExternal, detail: "not loopback-only"},
		{name: "external network requests", edits: []string{"/fixture/externalNetworkRequests", `3`}, want: cExternal, detail: "3 external network requests"},
		{name: "isolated, non-synthetic credentials", edits: []string{"/fixture/syntheticCredentials", `false`}, want: cSynthetic, notCode: cExternal},

		// 8. Synthetic credentials.
		{name: "non-synthetic credential", edits: []string{"/fixture/syntheticCredentials", `false`}, want: cSynthetic},
		{name: "external contact checked first", edits: []string{"/fixture/syntheticCredentials", `false`, "/fixture/externalNetworkRequests", `1`}, want: cExternal, notCode: cSynthetic},

		// 9a/9b. Property-specific reasons and both branches.
		{name: "wrong reason", edits: []string{"/cases/0/negative/observedReasonCode", `"` + oauth.EarlySyntaxRejection + `"`}, want: cReason, detail: "negative: reason MCP_RES_OAUTH_EARLY_SYNTAX_REJECTION"},
		{name: "early syntax guard claimed as the property", edits: guardAsCoverage, want: cReason, detail: "property-specific reason is MCP_RES_OAUTH_PKCE_S256_REJECTED"},
		{name: "generic positive reason", edits: []string{"/cases/1/positive/expectedReasonCode", `"MCP_RES_OAUTH_GENERIC_ACCEPTED"`, "/cases/1/positive/observedReasonCode", `"MCP_RES_OAUTH_GENERIC_ACCEPTED"`}, want: cReason, detail: "positive expects"},
		{name: "reason of another property", edits: []string{"/cases/2/negative/observedReasonCode", `"MCP_RES_OAUTH_PKCE_S256_REJECTED"`}, want: cReason},
		{name: "reasons right, negative accepted", edits: []string{"/cases/0/negative/observedOutcome", `"ACCEPT"`}, want: cOutcome, notCode: cReason},
		{name: "property not reached", edits: []string{"/cases/1/negative/propertyReached", `false`}, want: cReached, detail: "negative: property not reached"},
		{name: "positive not reached", edits: []string{"/cases/1/positive/propertyReached", `false`}, want: cReached, detail: "positive"},
		{name: "reached, mutant not reached", edits: []string{"/cases/1/wrongReasonMutant/propertyReached", `false`}, want: cControl, notCode: cReached},
		{name: "negative not observed", edits: []string{"/cases/0/negative/observedOutcome", `"NOT_OBSERVED"`}, want: cOutcome},
		{name: "positive rejected", edits: []string{"/cases/0/positive/observedOutcome", `"REJECT"`}, want: cOutcome, detail: "positive: observed REJECT"},
		{name: "reason binding checked before outcome", edits: []string{"/cases/0/negative/observedOutcome", `"ACCEPT"`, "/cases/0/negative/expectedReasonCode", `"MCP_RES_OAUTH_PKCE_REJECTED"`}, want: cReason, notCode: cOutcome},

		// 9c. The wrong-reason mutant.
		{name: "wrong-reason control missing", edits: []string{"/cases/2/wrongReasonMutant/propertyReached", `false`}, want: cControl, detail: "was not reached"},
		{name: "mutant reports the property-specific rejection", edits: []string{"/cases/0/wrongReasonMutant/observedReasonCode", `"MCP_RES_OAUTH_PKCE_S256_REJECTED"`}, want: cControl, detail: "property-specific rejection"},
		{name: "mutant reports another reason", edits: []string{"/cases/0/wrongReasonMutant/observedReasonCode", `"MCP_RES_OAUTH_TIMEOUT"`}, want: cControl, detail: "not MCP_RES_OAUTH_EARLY_SYNTAX_REJECTION"},
		{name: "mutant fine, token persisted", edits: []string{"/privacy/tokenMaterialPersisted", `true`}, want: cSecret, notCode: cControl},

		// 10–12. Privacy, sanitized errors, cleanup.
		{name: "secret persisted", edits: []string{"/privacy/tokenMaterialPersisted", `true`}, want: cSecret, detail: "token material"},
		{name: "credential material in evidence", edits: []string{"/privacy/evidenceContainsCredentialMaterial", `true`}, want: cSecret, detail: "credential material"},
		{name: "no secret, unsanitized error", edits: []string{"/privacy/authorizationErrorsSanitized", `false`}, want: cUnsanitized, notCode: cSecret},
		{name: "unsanitized error", edits: []string{"/privacy/authorizationErrorsSanitized", `false`}, want: cUnsanitized},
		{name: "sanitized, listener open", edits: []string{"/cleanup/listenerClosed", `false`}, want: cCleanup, notCode: cUnsanitized},
		{name: "cleanup incomplete", edits: []string{"/cleanup/redirectListenerReleased", `false`}, want: cCleanup, detail: "redirect listener"},
		{name: "listener open", edits: []string{"/cleanup/listenerClosed", `false`}, want: cCleanup, detail: "fixture listener"},
		{name: "cleaned up, fixture overclaimed", doc: with("2026-07-28", evalOpts{fixtures: 1, result: "PASS"}), want: cFixture, notCode: cCleanup},

		// 13. Result.
		{name: "fixture pass overclaim", doc: with("2026-07-28", evalOpts{fixtures: 1, result: "PASS"}), want: cFixture, detail: "refresh-token-rotation-when-claimed", notCode: cResult},
		{name: "fixture with FAIL", doc: with("2026-07-28", evalOpts{fixtures: 1, result: "FAIL"}), want: cResult, notCode: cFixture},
		{name: "FAIL never validates", edits: []string{"/result", `"FAIL"`}, want: cResult},
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

func checkResult(t testing.TB, r oauth.Result, err error, c faultCase) {
	t.Helper()
	if err != nil {
		t.Fatalf("aborted: %v", err)
	}
	if c.want == "" {
		if !r.Valid || len(r.Diagnostics) != 0 {
			t.Fatalf("got %v (%s), want valid", r.Diagnostics, r.Detail)
		}
		if c.derived != "" && r.Derived != c.derived {
			t.Errorf("derived %s, want %s", r.Derived, c.derived)
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
			if !c.noReseal {
				reseal(t, doc)
			}
			set := standinSet(t, nil)
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
	for _, code := range oauthCodes {
		if fires[code] == 0 {
			t.Errorf("%s: no row fires it", code)
		}
		if controls[code] == 0 {
			t.Errorf("%s: no wrong-reason control", code)
		}
	}
}

// TestWrongReasonMutantPerCase: for every case of a full evaluation,
// replacing its property-specific rejection by the early syntax guard is
// caught, so no case can be covered by an earlier guard (MCPRES-OAUTH-003).
func TestWrongReasonMutantPerCase(t *testing.T) {
	val, set := testValidator(t), standinSet(t, nil)
	doc := base(t)
	for i, id := range standinCases("2026-07-28") {
		for _, ptr := range []string{"/observedReasonCode", "/expectedReasonCode"} {
			mut := edit(t, doc, "/cases/"+itoa(i)+"/negative"+ptr, `"`+oauth.EarlySyntaxRejection+`"`)
			reseal(t, mut)
			r, err := val.Validate(mut, set)
			if err != nil || !slices.Equal(r.Diagnostics, []string{cReason}) || !strings.Contains(r.Detail, id) {
				t.Errorf("%s %s: %v %v (%s)", id, ptr, err, r.Diagnostics, r.Detail)
			}
		}
	}
}

func itoa(i int) string { return compactOf(canonjson.NewInt(int64(i))) }

// TestResultObject: a valid result never claims security certification.
func TestResultObject(t *testing.T) {
	r, err := testValidator(t).Validate(base(t), standinSet(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"valid":true,"diagnostics":[],"schemaErrors":[],"result":"PASS","securityCertificationClaim":false,"realAuthorizationProvidersContacted":0}`
	if got := compact(t, r.Value()); got != want {
		t.Errorf("result %s\nwant   %s", got, want)
	}
}

func TestReason(t *testing.T) {
	for id, want := range map[string]string{
		"pkce-s256":                             "MCP_RES_OAUTH_PKCE_S256_ACCEPTED",
		"refresh-token-rotation-when-claimed":   "MCP_RES_OAUTH_REFRESH_TOKEN_ROTATION_WHEN_CLAIMED_ACCEPTED",
		"protected-resource-metadata-discovery": "MCP_RES_OAUTH_PROTECTED_RESOURCE_METADATA_DISCOVERY_ACCEPTED",
	} {
		if got := oauth.Reason(id, "ACCEPTED"); got != want {
			t.Errorf("Reason(%s) = %s", id, got)
		}
	}
}

func TestNoProfileSet(t *testing.T) {
	r, err := testValidator(t).Validate(base(t), nil)
	var ie *validator.InputError
	if !errors.As(err, &ie) || ie.Reason != profile.NoProfileSet || r.Valid || r.Diagnostics != nil {
		t.Errorf("no set: %v %v", r, err)
	}
}

// upstreamProfiles returns the upstream profile directory or skips.
func upstreamProfiles(t testing.TB) string {
	t.Helper()
	return upstreamtest.Dir(t, "../..", "v0.2.0/profiles")
}

// TestUpstreamFullEvaluation: against the upstream set a full evaluation has
// the 25 cases of REFERENCE §8.3 on both revisions; 24 is a coverage
// mismatch; the stand-in's digest is not the upstream one.
func TestUpstreamFullEvaluation(t *testing.T) {
	set, err := profile.LoadDir(upstreamProfiles(t))
	if err != nil {
		t.Fatal(err)
	}
	val := testValidator(t)
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		r, err := val.Validate(evaluation(t, upstreamOAuth.manifestSha256, rev, evalOpts{cases: upstreamCases()}), set)
		if err != nil || !r.Valid || r.Derived != "PASS" {
			t.Errorf("%s: %v %v (%s)", rev, err, r.Diagnostics, r.Detail)
		}
		r, _ = val.Validate(evaluation(t, upstreamOAuth.manifestSha256, rev, evalOpts{cases: upstreamOAuth.required}), set)
		if !slices.Equal(r.Diagnostics, []string{cCoverage}) {
			t.Errorf("%s without the conditional case: %v", rev, r.Diagnostics)
		}
	}
	r, _ := val.Validate(standinEval(t, "2026-07-28", evalOpts{}), set)
	if !slices.Equal(r.Diagnostics, []string{cManifestDigest}) {
		t.Errorf("stand-in digest against upstream: %v", r.Diagnostics)
	}
}

// TestResultsNeverEchoCredentials: whatever a document carries, results
// and details name members, codes and case ids, never values from the flow
// or from unknown members (MCPRES-OAUTH-003: no raw credential material).
func TestResultsNeverEchoCredentials(t *testing.T) {
	const secret = "SECRET-7f3a9c"
	val, set := testValidator(t), standinSet(t, nil)
	for name, edits := range map[string][]string{
		"unknown member":     {"/flow/accessToken", `"` + secret + `"`},
		"bad const":          {"/flow/codeChallengeMethod", `"` + secret + `"`},
		"bad enum":           {"/environment/runtime", `"` + secret + `"`},
		"bad scope":          {"/flow/requestedScopes/0", `"` + secret + ` x"`},
		"bad uri":            {"/flow/tokenEndpoint", `"` + secret + ` x"`},
		"bad reason":         {"/cases/0/negative/observedReasonCode", `"` + secret + `"`},
		"secret in clientId": {"/flow/clientId", `"` + secret + `"`, "/privacy/evidenceContainsCredentialMaterial", `true`},
		"secret in issuer":   {"/flow/authorizationServerIssuer", `"http://127.0.0.1/` + secret + `"`, "/cleanup/listenerClosed", `false`},
	} {
		doc := edit(t, base(t), edits...)
		reseal(t, doc)
		r, err := val.Validate(doc, set)
		if err != nil || r.Valid {
			t.Fatalf("%s: %v %v", name, err, r.Diagnostics)
		}
		if out := compactOf(r.Value()) + r.Detail; strings.Contains(out, secret) {
			t.Errorf("%s: result echoes the value: %s", name, out)
		}
	}
}
