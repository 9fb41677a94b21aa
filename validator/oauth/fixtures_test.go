package oauth_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator/oauth"
	"github.com/mcpres/mcpres/validator/profile"
)

// upstreamOAuth is data about the upstream oauth-boundary-v1.json taken
// from REFERENCE §3.5.3: its canonical digest and its 24 required and one
// conditional (both revisions) checks. The file itself is read from
// ../shared only by the tests that need it.
var upstreamOAuth = struct {
	manifestSha256 string
	required       []string
	conditional    string
}{
	manifestSha256: "acb123eaf43c0bb0f225bbedf25e2ed0e75f15b3a1761ff2861855ef64242ab5",
	required: []string{"protected-resource-metadata-discovery", "authorization-server-metadata", "issuer-binding",
		"authorization-request-resource", "token-request-resource", "access-token-audience", "wrong-resource-token-rejection",
		"token-passthrough-prohibited", "pkce-s256", "pkce-downgrade-refused", "exact-redirect-uri", "state-binding",
		"mix-up-resistance", "authorization-code-binding", "token-endpoint-identity", "cimd-identity",
		"cimd-trust-policy-recorded", "scope-minimization", "token-storage-omission", "sanitized-authorization-errors",
		"bounded-redirects", "ssrf-resistant-metadata-resolution", "loopback-redirect-collision", "proxy-consent-client-binding"},
	conditional: "refresh-token-rotation-when-claimed",
}

// upstreamCases is a full evaluation's case list: 25 for either revision.
func upstreamCases() []string {
	return append(append([]string{}, upstreamOAuth.required...), upstreamOAuth.conditional)
}

// Own stand-in manifests (original mcpres test material). standin is NOT
// the upstream mcp-res/oauth-boundary/v1: a small subset of its checks,
// whose conditional check applies to 2026-07-28 only.
var (
	standinRequired    = []string{"pkce-s256", "exact-redirect-uri", "state-binding"}
	standinConditional = "refresh-token-rotation-when-claimed"
)

func str(s string) *canonjson.Value { return canonjson.NewString(s) }

func stringArray(ss []string) *canonjson.Value {
	items := make([]*canonjson.Value, len(ss))
	for i, s := range ss {
		items[i] = canonjson.NewString(s)
	}
	return canonjson.NewArray(items...)
}

// standinManifest renders the stand-in; status EXPERIMENTAL adds
// provenance, and revisions narrows the supported revisions. The
// PROVISIONAL form is byte-identical to the committed
// testdata/profile/sets/examples/oauth-boundary-standin-v1.json
// (TestStandinMatchesCommittedSet).
func standinManifest(status string, revisions ...string) *canonjson.Value {
	if len(revisions) == 0 {
		revisions = []string{"2025-11-25", "2026-07-28"}
	}
	m := canonjson.NewObject(
		canonjson.Member{Key: "schemaVersion", Value: str(bundle.SchemaVersionProfileManifest)},
		canonjson.Member{Key: "id", Value: str(oauth.ProfileID)},
		canonjson.Member{Key: "version", Value: str("1.0.0")},
		canonjson.Member{Key: "status", Value: str(status)},
		canonjson.Member{Key: "protocolRevisions", Value: stringArray(revisions)},
		canonjson.Member{Key: "sourceRefs", Value: stringArray([]string{"https://mcpres.invalid/test-profiles/oauth-boundary"})},
		canonjson.Member{Key: "requiredChecks", Value: stringArray(standinRequired)},
		canonjson.Member{Key: "conditionalChecks", Value: canonjson.NewArray(canonjson.NewObject(
			canonjson.Member{Key: "id", Value: str(standinConditional)},
			canonjson.Member{Key: "protocolRevisions", Value: stringArray([]string{"2026-07-28"})},
		))},
		canonjson.Member{Key: "experimentalChecks", Value: stringArray([]string{})},
	)
	if status == profile.StatusExperimental {
		m.Set("experimentalProvenance", canonjson.NewObject(
			canonjson.Member{Key: "proposalVersion", Value: str("mcpres test proposal 0")},
			canonjson.Member{Key: "upstreamStatus", Value: str("test material; no upstream counterpart")},
			canonjson.Member{Key: "exactSource", Value: str("https://mcpres.invalid/test-profiles/oauth-boundary/proposal")},
			canonjson.Member{Key: "observedAt", Value: str("2026-08-27T00:00:00.000Z")},
			canonjson.Member{Key: "knownIncompatibilities", Value: stringArray([]string{"exists only in mcpres tests"})},
			canonjson.Member{Key: "removalMigrationPath", Value: str("Delete with the tests that use it.")},
		))
	}
	m.Set("remotePolicy", str("DENY_BY_DEFAULT_REVIEWED_ALLOWLIST_ONLY"))
	m.Set("compositionBoundary", str("mcpres test manifest oauth-boundary; it composes with nothing and certifies nothing."))
	return m
}

func pretty(t testing.TB, v *canonjson.Value) []byte {
	t.Helper()
	b, err := canonjson.Pretty(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func digest(t testing.TB, v *canonjson.Value) string {
	t.Helper()
	sum, _, err := canonjson.Digest(v)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// standinSet is a profile set holding the stand-in manifest m (by default
// the PROVISIONAL one) and any extra files.
func standinSet(t testing.TB, m *canonjson.Value, extra ...profile.File) *profile.Set {
	t.Helper()
	if m == nil {
		m = standinManifest(profile.StatusProvisional)
	}
	return profile.NewSet(append(extra, profile.File{Name: "oauth-boundary-standin-v1.json", Data: pretty(t, m)})...)
}

// standinCases is a full evaluation's case list against the stand-in.
func standinCases(revision string) []string {
	ids := append([]string{}, standinRequired...)
	if revision == "2026-07-28" {
		ids = append(ids, standinConditional)
	}
	return ids
}

type evalOpts struct {
	label    string
	cases    []string // nil: the stand-in's cases for the revision
	fixtures int      // the last n cases are TEST_FIXTURE evidence
	result   string   // derived by default
}

func branch(outcome, reasonCode, artifact string) *canonjson.Value {
	return canonjson.NewObject(
		canonjson.Member{Key: "propertyReached", Value: canonjson.NewBool(true)},
		canonjson.Member{Key: "expectedOutcome", Value: str(outcome)},
		canonjson.Member{Key: "observedOutcome", Value: str(outcome)},
		canonjson.Member{Key: "expectedReasonCode", Value: str(reasonCode)},
		canonjson.Member{Key: "observedReasonCode", Value: str(reasonCode)},
		canonjson.Member{Key: "artifactSha256", Value: str(artifact)},
	)
}

// evaluation builds a sealed OAuth boundary evaluation: a loopback-only
// fixture with synthetic credentials (no real provider, no external
// request), every case reached with its property-specific reasons and an
// early-syntax wrong-reason mutant, no persisted material, sanitized
// errors, both listeners closed.
func evaluation(t testing.TB, manifestSha, revision string, o evalOpts) *canonjson.Value {
	t.Helper()
	ids := o.cases
	if ids == nil {
		ids = standinCases(revision)
	}
	label := fmt.Sprintf("mcpres oauth test %s %s", revision, o.label)
	cases := make([]*canonjson.Value, len(ids))
	for i, id := range ids {
		source := "RUNTIME_PROBE"
		if i >= len(ids)-o.fixtures {
			source = "TEST_FIXTURE"
		}
		cases[i] = canonjson.NewObject(
			canonjson.Member{Key: "id", Value: str(id)},
			canonjson.Member{Key: "evidenceSource", Value: str(source)},
			canonjson.Member{Key: "positive", Value: branch("ACCEPT", oauth.Reason(id, "ACCEPTED"), text(label+" "+id+" positive"))},
			canonjson.Member{Key: "negative", Value: branch("REJECT", oauth.Reason(id, "REJECTED"), text(label+" "+id+" negative"))},
			canonjson.Member{Key: "wrongReasonMutant", Value: canonjson.NewObject(
				canonjson.Member{Key: "propertyReached", Value: canonjson.NewBool(true)},
				canonjson.Member{Key: "observedReasonCode", Value: str(oauth.EarlySyntaxRejection)},
				canonjson.Member{Key: "expectedDiagnostic", Value: str(oauth.CodeWrongReason)},
				canonjson.Member{Key: "artifactSha256", Value: str(text(label + " " + id + " mutant"))},
			)},
		)
	}
	result := o.result
	if result == "" {
		result = "PASS"
		if o.fixtures > 0 {
			result = "INCOMPLETE"
		}
	}
	const origin = "http://127.0.0.1:47011"
	doc := canonjson.NewObject(
		canonjson.Member{Key: "schemaVersion", Value: str(bundle.SchemaVersionOAuthEvaluation)},
		canonjson.Member{Key: "subject", Value: canonjson.NewObject(
			canonjson.Member{Key: "name", Value: str("mcpres-sample-oauth-client")},
			canonjson.Member{Key: "version", Value: str("0.9.2")},
			canonjson.Member{Key: "artifactSha256", Value: str(text("mcpres-sample-oauth-client@0.9.2"))},
		)},
		canonjson.Member{Key: "environment", Value: canonjson.NewObject(
			canonjson.Member{Key: "platform", Value: str("linux")},
			canonjson.Member{Key: "runtime", Value: str("node")},
			canonjson.Member{Key: "runtimeVersion", Value: str("22.11.0")},
		)},
		canonjson.Member{Key: "profile", Value: canonjson.NewObject(
			canonjson.Member{Key: "id", Value: str(oauth.ProfileID)},
			canonjson.Member{Key: "version", Value: str("1.0.0")},
			canonjson.Member{Key: "manifestSha256", Value: str(manifestSha)},
			canonjson.Member{Key: "protocolRevision", Value: str(revision)},
		)},
		canonjson.Member{Key: "fixture", Value: canonjson.NewObject(
			canonjson.Member{Key: "loopbackOnly", Value: canonjson.NewBool(true)},
			canonjson.Member{Key: "syntheticCredentials", Value: canonjson.NewBool(true)},
			canonjson.Member{Key: "realAuthorizationProvidersContacted", Value: canonjson.NewInt(0)},
			canonjson.Member{Key: "externalNetworkRequests", Value: canonjson.NewInt(0)},
			canonjson.Member{Key: "listenerSha256", Value: str(text(label + " listener"))},
		)},
		canonjson.Member{Key: "flow", Value: canonjson.NewObject(
			canonjson.Member{Key: "resourceUri", Value: str(origin + "/mcp")},
			canonjson.Member{Key: "authorizationServerIssuer", Value: str("http://127.0.0.1:47012")},
			canonjson.Member{Key: "authorizationEndpoint", Value: str("http://127.0.0.1:47012/authorize")},
			canonjson.Member{Key: "tokenEndpoint", Value: str("http://127.0.0.1:47012/token")},
			canonjson.Member{Key: "redirectUri", Value: str("http://127.0.0.1:47013/callback")},
			canonjson.Member{Key: "clientId", Value: str("mcpres-synthetic-client")},
			canonjson.Member{Key: "requestedScopes", Value: stringArray([]string{"mcp:tools", "mcp:resources"})},
			canonjson.Member{Key: "authorizedScopes", Value: stringArray([]string{"mcp:tools"})},
			canonjson.Member{Key: "codeChallengeMethod", Value: str("S256")},
			canonjson.Member{Key: "cimdSha256", Value: str(text(label + " client id metadata document"))},
			canonjson.Member{Key: "trustPolicyId", Value: str("mcpres/synthetic-oauth-policy")},
		)},
		canonjson.Member{Key: "cases", Value: canonjson.NewArray(cases...)},
		canonjson.Member{Key: "privacy", Value: canonjson.NewObject(
			canonjson.Member{Key: "tokenMaterialPersisted", Value: canonjson.NewBool(false)},
			canonjson.Member{Key: "evidenceContainsCredentialMaterial", Value: canonjson.NewBool(false)},
			canonjson.Member{Key: "authorizationErrorsSanitized", Value: canonjson.NewBool(true)},
		)},
		canonjson.Member{Key: "cleanup", Value: canonjson.NewObject(
			canonjson.Member{Key: "listenerClosed", Value: canonjson.NewBool(true)},
			canonjson.Member{Key: "redirectListenerReleased", Value: canonjson.NewBool(true)},
			canonjson.Member{Key: "observationSha256", Value: str(text(label + " cleanup"))},
		)},
		canonjson.Member{Key: "result", Value: str(result)},
		canonjson.Member{Key: "evaluationSha256", Value: str(strings.Repeat("0", 64))},
	)
	reseal(t, doc)
	return doc
}

func reseal(t testing.TB, doc *canonjson.Value) {
	t.Helper()
	sum, err := profile.EvaluationDigest(doc)
	if err != nil {
		t.Fatal(err)
	}
	doc.Set("evaluationSha256", str(sum))
}

// standinEval evaluates against the PROVISIONAL stand-in's digest.
func standinEval(t testing.TB, revision string, o evalOpts) *canonjson.Value {
	t.Helper()
	return evaluation(t, digest(t, standinManifest(profile.StatusProvisional)), revision, o)
}
