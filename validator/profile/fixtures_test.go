package profile_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator/profile"
)

// A manifestSpec describes a reliability-profile manifest. For upstream
// manifests it is data about the upstream file taken from REFERENCE §3.5.3
// (ids, check ids, raw and canonical digests), never the file itself;
// TestUpstreamManifestTable compares it with ../shared when present.
type manifestSpec struct {
	file, id, status string
	revisions        []string
	rawSha256        string // upstream only
	manifestSha256   string // upstream only; own manifests are digested
	required         []string
	conditional      []profile.ConditionalCheck
	experimental     []string
}

// applicable returns the checks of a full claim for revision, in manifest
// order (required, then conditional).
func (s manifestSpec) applicable(revision string) []string {
	out := append([]string{}, s.required...)
	for _, c := range s.conditional {
		for _, r := range c.ProtocolRevisions {
			if r == revision {
				out = append(out, c.ID)
			}
		}
	}
	return out
}

// Own manifests: original mcpres test material, used where the upstream set
// is absent or cannot express a case.
var (
	exampleSpec = manifestSpec{
		file: "mcpres-example-v1.json", id: "mcp-res/mcpres-example/v1", status: "PROVISIONAL",
		revisions: []string{"2025-11-25", "2026-07-28"},
		required:  []string{"clean-shutdown", "bounded-retry", "malformed-input-rejected"},
		conditional: []profile.ConditionalCheck{
			{ID: "stateless-resume", ProtocolRevisions: []string{"2026-07-28"}},
		},
		experimental: []string{"speculative-prefetch"},
	}
	identitySpec = manifestSpec{
		file: "mcpres-identity-example-v1.json", id: "mcp-res/mcpres-identity-example/v1", status: "EXPERIMENTAL",
		revisions: []string{"2026-07-28"},
		required:  []string{"binding-declared", "proof-replay-rejected"},
	}
	// oauthStandinSpec stands in for mcp-res/oauth-boundary/v1 in sets
	// built without the upstream files. It is NOT the upstream manifest:
	// its checks are a small subset and its digest differs.
	oauthStandinSpec = manifestSpec{
		file: "oauth-boundary-standin-v1.json", id: "mcp-res/oauth-boundary/v1", status: "PROVISIONAL",
		revisions: []string{"2025-11-25", "2026-07-28"},
		required:  []string{"pkce-s256", "exact-redirect-uri", "state-binding"},
		conditional: []profile.ConditionalCheck{
			{ID: "refresh-token-rotation-when-claimed", ProtocolRevisions: []string{"2026-07-28"}},
		},
	}
)

func stringArray(ss []string) *canonjson.Value {
	items := make([]*canonjson.Value, len(ss))
	for i, s := range ss {
		items[i] = canonjson.NewString(s)
	}
	return canonjson.NewArray(items...)
}

func str(s string) *canonjson.Value { return canonjson.NewString(s) }

// ownManifest renders an own manifestSpec as a manifest document with
// mcpres's own prose.
func ownManifest(s manifestSpec) *canonjson.Value {
	name := strings.Split(s.id, "/")[1]
	cond := make([]*canonjson.Value, len(s.conditional))
	for i, c := range s.conditional {
		cond[i] = canonjson.NewObject(
			canonjson.Member{Key: "id", Value: str(c.ID)},
			canonjson.Member{Key: "protocolRevisions", Value: stringArray(c.ProtocolRevisions)},
		)
	}
	m := canonjson.NewObject(
		canonjson.Member{Key: "schemaVersion", Value: str(bundle.SchemaVersionProfileManifest)},
		canonjson.Member{Key: "id", Value: str(s.id)},
		canonjson.Member{Key: "version", Value: str("1.0.0")},
		canonjson.Member{Key: "status", Value: str(s.status)},
		canonjson.Member{Key: "protocolRevisions", Value: stringArray(s.revisions)},
		canonjson.Member{Key: "sourceRefs", Value: stringArray([]string{"https://mcpres.invalid/test-profiles/" + name})},
		canonjson.Member{Key: "requiredChecks", Value: stringArray(s.required)},
		canonjson.Member{Key: "conditionalChecks", Value: canonjson.NewArray(cond...)},
		canonjson.Member{Key: "experimentalChecks", Value: stringArray(append([]string{}, s.experimental...))},
	)
	if s.status == profile.StatusExperimental {
		m.Set("experimentalProvenance", canonjson.NewObject(
			canonjson.Member{Key: "proposalVersion", Value: str("mcpres test proposal 0")},
			canonjson.Member{Key: "upstreamStatus", Value: str("test material; no upstream counterpart")},
			canonjson.Member{Key: "exactSource", Value: str("https://mcpres.invalid/test-profiles/" + name + "/proposal")},
			canonjson.Member{Key: "observedAt", Value: str("2026-08-27T00:00:00.000Z")},
			canonjson.Member{Key: "knownIncompatibilities", Value: stringArray([]string{"exists only in mcpres tests"})},
			canonjson.Member{Key: "removalMigrationPath", Value: str("Delete with the tests that use it.")},
		))
	}
	m.Set("remotePolicy", str("DENY_BY_DEFAULT_REVIEWED_ALLOWLIST_ONLY"))
	m.Set("compositionBoundary", str("mcpres test manifest "+name+"; it composes with nothing and certifies nothing."))
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

// ownSet is a set of own manifests, as files.
func ownSet(t testing.TB, specs ...manifestSpec) *profile.Set {
	t.Helper()
	var files []profile.File
	for _, s := range specs {
		files = append(files, profile.File{Name: s.file, Data: pretty(t, ownManifest(s))})
	}
	return profile.NewSet(files...)
}

// exampleSet holds the three own manifests.
func exampleSet(t testing.TB) *profile.Set {
	return ownSet(t, exampleSpec, identitySpec, oauthStandinSpec)
}

// evalOpts shapes an evaluation; the zero value is a full, runtime-probed,
// local-stdio PASS on linux/node.
type evalOpts struct {
	label                                           string   // distinguishes artifact digests between documents
	claim                                           string   // FULL_PROFILE by default
	checks                                          []string // nil: the applicable checks
	source                                          string   // RUNTIME_PROBE by default
	fixtures                                        int      // the last n negative controls come from TEST_FIXTURE
	target                                          string   // LOCAL_STDIO by default
	platform, runtimeName, runtimeVersion, language string
	result                                          string // derived by default
}

// reason is the profile reason-code vocabulary of REFERENCE §5.8:
// MCP_RES_<CHECK>_ACCEPTED / _REJECTED.
func reason(id, x string) string {
	return "MCP_RES_" + strings.ReplaceAll(strings.ToUpper(id), "-", "_") + "_" + x
}

func obs(source, outcome, reasonCode, artifact string) *canonjson.Value {
	return canonjson.NewObject(
		canonjson.Member{Key: "source", Value: str(source)},
		canonjson.Member{Key: "propertyReached", Value: canonjson.NewBool(true)},
		canonjson.Member{Key: "expectedOutcome", Value: str(outcome)},
		canonjson.Member{Key: "observedOutcome", Value: str(outcome)},
		canonjson.Member{Key: "expectedReasonCode", Value: str(reasonCode)},
		canonjson.Member{Key: "observedReasonCode", Value: str(reasonCode)},
		canonjson.Member{Key: "artifactSha256", Value: str(artifact)},
	)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// evaluation builds a sealed evaluation of spec (manifest digest
// manifestSha) for revision.
func evaluation(t testing.TB, spec manifestSpec, manifestSha, revision string, o evalOpts) *canonjson.Value {
	t.Helper()
	ids := o.checks
	if ids == nil {
		ids = spec.applicable(revision)
	}
	label := fmt.Sprintf("mcpres profile test %s %s %s", spec.id, revision, o.label)
	checks := make([]*canonjson.Value, len(ids))
	source := or(o.source, "RUNTIME_PROBE")
	for i, id := range ids {
		negSource := source
		if i >= len(ids)-o.fixtures {
			negSource = "TEST_FIXTURE"
		}
		checks[i] = canonjson.NewObject(
			canonjson.Member{Key: "id", Value: str(id)},
			canonjson.Member{Key: "positive", Value: obs(source, "ACCEPT", reason(id, "ACCEPTED"), text(label+" "+id+" positive"))},
			canonjson.Member{Key: "negativeControl", Value: obs(negSource, "REJECT", reason(id, "REJECTED"), text(label+" "+id+" negative"))},
		)
	}
	target := or(o.target, "LOCAL_STDIO")
	scope := canonjson.NewObject(
		canonjson.Member{Key: "claim", Value: str(or(o.claim, "FULL_PROFILE"))},
		canonjson.Member{Key: "claimedCheckIds", Value: stringArray(ids)},
		canonjson.Member{Key: "targetKind", Value: str(target)},
		canonjson.Member{Key: "targetSha256", Value: str(text(label + " target"))},
		canonjson.Member{Key: "remoteOptIn", Value: canonjson.NewBool(target == "REMOTE_HTTP")},
	)
	if target == "REMOTE_HTTP" {
		scope.Set("allowlistSha256", str(text(label+" allowlist")))
		scope.Set("reviewedTargetSha256", str(text(label+" target")))
	}
	result := o.result
	if result == "" {
		result = "PASS"
		if o.fixtures > 0 || source == "TEST_FIXTURE" {
			result = "INCOMPLETE"
		}
	}
	lang := or(o.language, "TYPESCRIPT")
	doc := canonjson.NewObject(
		canonjson.Member{Key: "schemaVersion", Value: str(bundle.SchemaVersionProfileEvaluation)},
		canonjson.Member{Key: "subject", Value: canonjson.NewObject(
			canonjson.Member{Key: "name", Value: str("mcpres-sample-server")},
			canonjson.Member{Key: "implementationLanguage", Value: str(lang)},
			canonjson.Member{Key: "version", Value: str("1.4.0")},
			canonjson.Member{Key: "artifactSha256", Value: str(text("mcpres-sample-server@1.4.0"))},
		)},
		canonjson.Member{Key: "environment", Value: canonjson.NewObject(
			canonjson.Member{Key: "platform", Value: str(or(o.platform, "linux"))},
			canonjson.Member{Key: "runtimeName", Value: str(or(o.runtimeName, "node"))},
			canonjson.Member{Key: "runtimeVersion", Value: str(or(o.runtimeVersion, "22.11.0"))},
		)},
		canonjson.Member{Key: "profile", Value: canonjson.NewObject(
			canonjson.Member{Key: "id", Value: str(spec.id)},
			canonjson.Member{Key: "version", Value: str("1.0.0")},
			canonjson.Member{Key: "manifestSha256", Value: str(manifestSha)},
			canonjson.Member{Key: "protocolRevision", Value: str(revision)},
		)},
		canonjson.Member{Key: "scope", Value: scope},
		canonjson.Member{Key: "checks", Value: canonjson.NewArray(checks...)},
		canonjson.Member{Key: "cleanup", Value: canonjson.NewObject(
			canonjson.Member{Key: "required", Value: canonjson.NewBool(true)},
			canonjson.Member{Key: "observed", Value: canonjson.NewBool(true)},
			canonjson.Member{Key: "observationSha256", Value: str(text(label + " cleanup"))},
		)},
		canonjson.Member{Key: "result", Value: str(result)},
		canonjson.Member{Key: "evaluationSha256", Value: str(strings.Repeat("0", 64))},
	)
	reseal(t, doc)
	return doc
}

// reseal recomputes evaluationSha256.
func reseal(t testing.TB, doc *canonjson.Value) {
	t.Helper()
	sum, err := profile.EvaluationDigest(doc)
	if err != nil {
		t.Fatal(err)
	}
	doc.Set("evaluationSha256", str(sum))
}

// ownEval evaluates an own manifest against its own digest.
func ownEval(t testing.TB, spec manifestSpec, revision string, o evalOpts) *canonjson.Value {
	t.Helper()
	return evaluation(t, spec, digest(t, ownManifest(spec)), revision, o)
}

var upstreamManifests = []manifestSpec{
	{file: "protocol-revision-v1.json", id: "mcp-res/protocol-revision/v1", status: "PROVISIONAL", revisions: []string{"2025-11-25", "2026-07-28"},
		rawSha256: "fe26079110640f19a643158a5bc7d633f93c73932a363e89acfe55deea43e55e", manifestSha256: "73cc4e5ab722690da4dcbf254ef38022f48469406037064281bb9da72f4723b7",
		required:     []string{"explicit-protocol-revision", "supported-version-advertisement", "unsupported-version-failure", "modern-legacy-auto-behavior", "stdio-backward-compatibility", "request-identity-metadata", "result-identity-metadata", "capability-declaration", "extension-declaration", "json-schema-dialect-identity", "safe-integer-constraints", "interleaved-unrelated-requests", "no-connection-as-conversation"},
		conditional:  []profile.ConditionalCheck{{ID: "stateless-request-metadata", ProtocolRevisions: []string{"2026-07-28"}}, {ID: "server-discover", ProtocolRevisions: []string{"2026-07-28"}}, {ID: "no-session-id-assumption", ProtocolRevisions: []string{"2026-07-28"}}, {ID: "required-result-type", ProtocolRevisions: []string{"2026-07-28"}}},
		experimental: []string{}},
	{file: "async-operation-v1.json", id: "mcp-res/async-operation/v1", status: "PROVISIONAL", revisions: []string{"2026-07-28"},
		rawSha256: "388e235a3a7e7eca4ef68960207404cd4e6a16c4c2522471f8ecf1e39373f680", manifestSha256: "608d9c2d9b02151b912760535eea69f6973b100981cdedfe9562298ba85d2ad6",
		required:     []string{"mrtr-original-call-binding", "mrtr-input-request-identity", "mrtr-requested-schema", "mrtr-bounded-rounds", "mrtr-cancellation", "mrtr-invalid-response", "mrtr-input-privacy", "mrtr-resume", "mrtr-terminal-result", "task-handle-identity", "task-state-transitions", "task-poll-or-update", "task-cancellation", "task-duplicate-update", "task-late-completion", "task-timeout", "task-expired-handle", "task-wrong-subject-handle", "task-restart-persistence-when-claimed", "task-cleanup", "subscription-filter", "subscription-acknowledgment", "subscription-identity", "subscription-opted-in-only", "subscription-ordering-when-defined", "subscription-duplicate-notification", "subscription-abrupt-stream-loss", "subscription-graceful-end", "subscription-reconnect-when-claimed", "subscription-cleanup", "progress-request-scoped", "progress-monotonic-when-claimed", "progress-not-requested-silence", "progress-after-terminal-rejected", "progress-bounded-message-size", "progress-cancellation-interaction"},
		conditional:  nil,
		experimental: []string{}},
	{file: "streamable-http-v1.json", id: "mcp-res/streamable-http/v1", status: "PROVISIONAL", revisions: []string{"2025-11-25", "2026-07-28"},
		rawSha256: "2e542401687dff8a843d491b3454ddf7ee9fbb1d0703f1ac090659d7ce548c98", manifestSha256: "c1461eeb2ea53dabc69dac581b9622639f830c164a09e6cb278993ce6764b940",
		required:     []string{"authenticated-loopback-http", "request-response-binding", "json-versus-sse-response", "long-lived-response-stream", "buffering-detection", "keepalive", "transport-header-message-metadata-separation", "status-code-consistency", "content-type", "interrupted-body", "early-close", "timeout", "retry", "duplicate-delivery", "cancellation-by-stream-close", "malformed-chunk", "oversized-event", "slow-consumer", "backpressure", "proxy-added-headers", "no-unauthorized-redirect", "listener-cleanup", "socket-cleanup"},
		conditional:  nil,
		experimental: []string{}},
	{file: "stdio-transport-v1.json", id: "mcp-res/stdio-transport/v1", status: "PROVISIONAL", revisions: []string{"2025-11-25", "2026-07-28"},
		rawSha256: "3f97d68bd80cbdcea9dd5c2343cc10b25aea9047d6186b97d78b152831dd02ac", manifestSha256: "e455742ea5bc6ca8ae2e36cf5da9e9e94348fec1709426a1716617c45ed2a114",
		required:     []string{"released-message-framing", "stdout-protocol-purity", "stderr-diagnostics", "shell-free-argument-boundaries", "executable-identity", "startup-timeout", "silent-process", "malformed-output", "partial-line", "oversized-line", "process-exit", "child-tree-cleanup", "backpressure", "concurrent-requests", "interruption", "no-process-as-conversation", "discovery-versus-legacy-initialization"},
		conditional:  nil,
		experimental: []string{}},
	{file: "cache-behavior-v1.json", id: "mcp-res/cache-behavior/v1", status: "PROVISIONAL", revisions: []string{"2026-07-28"},
		rawSha256: "286f525aef25663d8e3f6e9b21ce318ad30094c8a612b41df6a2cd2fda36533e", manifestSha256: "2fb5abc34d63d62921ba149f80f680ed02b46501055492d0112e3a5cb00b8d2f",
		required:     []string{"ttl-ms", "cache-scope", "cache-key-identity", "protocol-revision-keying", "subject-version-keying", "user-tenant-separation", "stale-result", "expiry", "list-resource-consistency", "negative-caching", "cache-poisoning-boundary", "capability-change-invalidation", "personalized-data-not-public"},
		conditional:  nil,
		experimental: []string{"etag-revalidation"}},
	{file: "extension-boundary-v1.json", id: "mcp-res/extension-boundary/v1", status: "PROVISIONAL", revisions: []string{"2025-11-25", "2026-07-28"},
		rawSha256: "c5452ecaa404654d3b0b25649b22c2bab35413658994993ef02ad545366afe60", manifestSha256: "2c0f0b27afe3bae2f0b8cd1ee91e51b501885e4aec898517f1ceb387bd72ba7d",
		required:     []string{"extension-identifier", "extension-version", "extension-capability-declaration", "unsupported-extension", "unknown-extension-result", "generic-json-rpc-fallback-when-allowed", "core-extension-schema-separation", "extension-version-skew", "malformed-extension-settings", "extension-data-limits"},
		conditional:  nil,
		experimental: []string{"apps-sandbox-startup", "apps-host-message-binding", "apps-capability-consent", "apps-contained-resources", "apps-teardown", "apps-malformed-postmessage", "apps-oversized-message", "apps-stale-identity"}},
	{file: "operational-resilience-v1.json", id: "mcp-res/operational-resilience/v1", status: "PROVISIONAL", revisions: []string{"2025-11-25", "2026-07-28"},
		rawSha256: "3fecb11d2273cef9e72202ae0a4114edc9d49b7156bc4bf33c645dc47dfa01eb", manifestSha256: "384900fe8b1c0152d2a0ed60e3c2f4bc6c7ad6de57a268d5691f2706a8d7143e",
		required:     []string{"cold-start", "warm-start", "bounded-concurrency", "queue-saturation", "backpressure", "overload-rejection", "rate-limiting", "retry-after", "timeout", "partial-outage", "process-crash", "restart", "rolling-version-skew", "downstream-failure", "disk-full", "permission-failure", "malformed-flood", "oversized-input", "duplicate-delivery", "graceful-shutdown", "forced-shutdown", "memory-resource-leak", "listener-leak", "child-process-leak", "bounded-soak", "cleanup"},
		conditional:  nil,
		experimental: []string{}},
	{file: "oauth-boundary-v1.json", id: "mcp-res/oauth-boundary/v1", status: "PROVISIONAL", revisions: []string{"2025-11-25", "2026-07-28"},
		rawSha256: "9cc044cc17a4018bc26051525e4d0985d543bb643c40deac11c9201c315aed28", manifestSha256: "acb123eaf43c0bb0f225bbedf25e2ed0e75f15b3a1761ff2861855ef64242ab5",
		required:     []string{"protected-resource-metadata-discovery", "authorization-server-metadata", "issuer-binding", "authorization-request-resource", "token-request-resource", "access-token-audience", "wrong-resource-token-rejection", "token-passthrough-prohibited", "pkce-s256", "pkce-downgrade-refused", "exact-redirect-uri", "state-binding", "mix-up-resistance", "authorization-code-binding", "token-endpoint-identity", "cimd-identity", "cimd-trust-policy-recorded", "scope-minimization", "token-storage-omission", "sanitized-authorization-errors", "bounded-redirects", "ssrf-resistant-metadata-resolution", "loopback-redirect-collision", "proxy-consent-client-binding"},
		conditional:  []profile.ConditionalCheck{{ID: "refresh-token-rotation-when-claimed", ProtocolRevisions: []string{"2025-11-25", "2026-07-28"}}},
		experimental: []string{}},
	{file: "oauth-client-credentials-v1.json", id: "mcp-res/oauth-client-credentials/v1", status: "EXPERIMENTAL", revisions: []string{"2026-07-28"},
		rawSha256: "83f98aba24179921de60d3d6769053fc487c1cf627ad7b043e3f643116c86bf8", manifestSha256: "b046eee55dc6c192bca59d3b63558fbbf1097dfe12e2fc69b40a700d9a4a33b9",
		required:     []string{"extension-negotiated", "client-authentication-method", "resource-audience-binding", "secret-omission"},
		conditional:  nil,
		experimental: []string{}},
	{file: "enterprise-managed-authorization-v1.json", id: "mcp-res/enterprise-managed-authorization/v1", status: "EXPERIMENTAL", revisions: []string{"2026-07-28"},
		rawSha256: "115e011dfe6375f9f495469ffe83904e558af738f79b553c73b60ce0fe6a8f5c", manifestSha256: "2eca84356d654cc28abb14beea9e2bce1e3425efb397ac338d136d9c821cd2fd",
		required:     []string{"extension-negotiated", "enterprise-policy-identity", "authorization-server-selection", "policy-failure-reason"},
		conditional:  nil,
		experimental: []string{}},
	{file: "dpop-v1.json", id: "mcp-res/dpop/v1", status: "EXPERIMENTAL", revisions: []string{"2026-07-28"},
		rawSha256: "79ee1188a0fc412d63621dddcd0491445b0af30729ee21f6e45656e2fe06ba97", manifestSha256: "17078d630ebd92e83b6c7684f470f04d822d9d24a8d92530acfbe41ebc3e9439",
		required:     []string{"capability-explicit", "proof-key-binding", "http-method-uri-binding", "nonce-replay-rejection"},
		conditional:  nil,
		experimental: []string{}},
	{file: "token-exchange-v1.json", id: "mcp-res/token-exchange/v1", status: "EXPERIMENTAL", revisions: []string{"2026-07-28"},
		rawSha256: "5bf684fe93041cce97ceffe4178257d1359fe465640605ac99aa2a216d26a039", manifestSha256: "2c3ff1b2ce185e9178ef6c6c2f7022770348e5f112bfebc072e8d1cd5f425ec7",
		required:     []string{"capability-explicit", "subject-token-binding", "requested-resource-binding", "delegation-chain-bounded"},
		conditional:  nil,
		experimental: []string{}},
}
