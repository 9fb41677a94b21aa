package v01

import (
	"fmt"
	"slices"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
)

// v01Profiles are the three v0.1 profiles ("id@version") and the subject
// types each admits (REFERENCE §5.2 step a).
var v01Profiles = map[string][]string{
	"mcp-res/server-tool-call/v1@1.0.0":     {"MCP_SERVER"},
	"mcp-res/client-config-source/v1@1.0.0": {"MCP_CLIENT", "TEST_HARNESS"},
	"mcp-res/agent-tool-recovery/v1@1.0.0":  {"AGENT_RUNTIME", "ADAPTER"},
}

// v01Check carries a schema-valid v0.1 bundle through the semantic checks
// a–h of REFERENCE §5.2. Each returns a code and detail on failure, "" when
// it passes, or an error when a digest cannot be computed.
type v01Check struct {
	doc, ev, st *canonjson.Value
}

func (c *v01Check) str(v *canonjson.Value, keys ...string) string { return v.Path(keys...).Str }

func (c *v01Check) flag(name string) bool { return isJSONTrue(c.ev.Path("execution", name)) }

// a. The profile is a v0.1 profile and admits the subject type.
func (c *v01Check) profile() (string, string, error) {
	key := c.str(c.ev, "profile", "id") + "@" + c.str(c.ev, "profile", "version")
	types, ok := v01Profiles[key]
	if !ok {
		return CodeProfileUnsupported, "profile " + key + " is not a v0.1.0 profile", nil
	}
	if st := c.str(c.ev, "subject", "subjectType"); !slices.Contains(types, st) {
		return CodeProfileUnsupported, fmt.Sprintf("profile %s does not admit subject type %s", key, st), nil
	}
	return "", "", nil
}

// hasSourceEvidence is REFERENCE §4.2: a sanitized projection whose
// manifest entry (the first one with its path) carries its digest and size.
func (c *v01Check) hasSourceEvidence() bool {
	se := c.ev.Get("sourceEvidence")
	if se == nil || !isJSONString(se.Get("kind"), v01SanitizedKind) {
		return false
	}
	path := v01SourceEvidenceDir + se.Get("name").Str
	for _, a := range c.doc.Path("integrity", "artifacts").Items {
		if a.Get("path").Str == path {
			return a.Get("sha256").Str == se.Get("projectionSha256").Str &&
				a.Get("bytes").Int == se.Get("projectionBytes").Int
		}
	}
	return false
}

// b. The declared class is supported by the producer's booleans (§4.2).
func (c *v01Check) evidenceClass() (string, string, error) {
	class := c.str(c.ev, "evidenceClass")
	var ok bool
	var needs string
	switch class {
	case "GENUINE_RUNTIME":
		ok = c.flag("actualRuntime") && c.flag("protocolMessagesExchanged") && c.hasSourceEvidence()
		needs = "actualRuntime, protocolMessagesExchanged and a sanitized source projection bound by the manifest"
	case "FIXTURE_BACKED_PROTOCOL":
		ok = c.flag("protocolMessagesExchanged") && c.flag("fixtureUsed")
		needs = "protocolMessagesExchanged and fixtureUsed"
	case "FIXTURE_VERIFIED":
		ok = c.flag("fixtureUsed")
		needs = "fixtureUsed"
	case "INSTALLATION_VERIFIED":
		ok = c.flag("installationExecuted")
		needs = "installationExecuted"
	case "DOCUMENTED_ONLY":
		ok = true
		for _, m := range c.ev.Get("execution").Members {
			ok = ok && !isJSONTrue(m.Value)
		}
		needs = "every execution boolean false"
	}
	if !ok {
		return validator.CodeEvidenceClassPromotion, "evidenceClass " + class + " requires " + needs, nil
	}
	return "", "", nil
}

// c. Every operation belongs to the run and its references resolve.
func (c *v01Check) causality() (string, string, error) {
	runID := c.str(c.ev, "run", "id")
	ops := c.ev.Get("operations").Items
	opIDs := make(map[string]bool, len(ops))
	for _, op := range ops {
		opIDs[op.Get("operationId").Str] = true
	}
	targets := map[string]string{} // fault id → targetOperationId; the last definition wins
	for _, f := range c.ev.Get("faults").Items {
		targets[f.Get("id").Str] = f.Get("targetOperationId").Str
	}
	policies := map[string]bool{}
	for _, p := range c.ev.Get("recoveryPolicies").Items {
		policies[p.Get("id").Str] = true
	}
	for _, op := range ops {
		id := op.Get("operationId").Str
		bad := func(format string, args ...any) (string, string, error) {
			return validator.CodeCausalMismatch, "operation " + id + ": " + fmt.Sprintf(format, args...), nil
		}
		if r := op.Get("runId").Str; r != runID {
			return bad("runId %s is not the run %s", r, runID)
		}
		if p := op.Get("parentOperationId"); p.Truthy() && !opIDs[p.Str] {
			return bad("parent %q is not an operation", p.Str)
		}
		if f := op.Get("faultId"); f.Truthy() {
			target, ok := targets[f.Str]
			if !ok {
				return bad("fault %q is not defined", f.Str)
			}
			if target != id {
				return bad("fault %q targets operation %s", f.Str, target)
			}
		}
		if p := op.Get("recoveryPolicyId"); p.Truthy() && !policies[p.Str] {
			return bad("recovery policy %q is not defined", p.Str)
		}
	}
	return "", "", nil
}

// d. Retries of side effects need a safety mechanism.
func (c *v01Check) sideEffects() (string, string, error) {
	for _, p := range c.ev.Get("recoveryPolicies").Items {
		model := p.Get("sideEffectModel").Str
		if p.Get("retryLimit").Int > 0 && (model == "SIDE_EFFECTING" || model == "UNKNOWN") && p.Get("safetyMechanism").Is(canonjson.Null) {
			return CodeSideEffectRetryUnsafe, fmt.Sprintf("recovery policy %s retries a %s operation without a safety mechanism", p.Get("id").Str, model), nil
		}
	}
	return "", "", nil
}

// v01RegressionChecks are the regression booleans that must all hold when
// a regression is provided, in upstream order.
var v01RegressionChecks = [...]string{
	"generatedWithoutExecution", "containedOutput", "deterministicDependencies",
	"brokenConditionFails", "fixedConditionPasses", "secretScanPassed",
}

// e. A provided regression was executed and passed every check.
func (c *v01Check) regression() (string, string, error) {
	reg := c.ev.Get("regression")
	if !isJSONTrue(reg.Get("provided")) {
		return "", "", nil
	}
	for _, name := range v01RegressionChecks {
		if !isJSONTrue(reg.Get(name)) {
			return CodeRegressionInvalid, "regression." + name + " is false", nil
		}
	}
	if !c.flag("regressionExecuted") {
		return CodeRegressionInvalid, "a regression is provided but execution.regressionExecuted is false", nil
	}
	return "", "", nil
}

// f. Manifest paths are unique.
func (c *v01Check) duplicatePaths() (string, string, error) {
	seen := map[string]bool{}
	for _, a := range c.doc.Path("integrity", "artifacts").Items {
		p := a.Get("path").Str
		if seen[p] {
			return CodePartialManifest, "the manifest lists " + p + " twice", nil
		}
		seen[p] = true
	}
	return "", "", nil
}

// g. Evidence, statement and bundle digests.
func (c *v01Check) digests() (string, string, error) {
	bad := func(format string, args ...any) (string, string, error) {
		return validator.CodeDigestMismatch, fmt.Sprintf(format, args...), nil
	}
	evSum, evLen, err := digest(c.ev)
	if err != nil {
		return "", "", err
	}
	if got := c.str(c.st, "evidenceSha256"); got != evSum {
		return bad("statement.evidenceSha256 is %s, the evidence digests to %s", got, evSum)
	}
	stSum, stLen, err := digest(c.st)
	if err != nil {
		return "", "", err
	}
	arts := c.doc.Path("integrity", "artifacts").Items
	for _, want := range []struct {
		path string
		sum  string
		n    int
	}{{v01EvidencePath, evSum, evLen}, {v01StatementPath, stSum, stLen}} {
		i := slices.IndexFunc(arts, func(a *canonjson.Value) bool { return a.Get("path").Str == want.path })
		if i < 0 {
			return bad("the manifest has no entry %s", want.path)
		}
		if a := arts[i]; a.Get("sha256").Str != want.sum || a.Get("bytes").Int != int64(want.n) {
			return bad("manifest entry %s records %s (%d bytes), the content digests to %s (%d bytes)",
				want.path, a.Get("sha256").Str, a.Get("bytes").Int, want.sum, want.n)
		}
	}
	sum, err := validator.BundleDigest(arts)
	if err != nil {
		return "", "", err
	}
	if got := c.str(c.doc, "integrity", "bundleDigest"); got != sum {
		return bad("integrity.bundleDigest is %s, the manifest digests to %s", got, sum)
	}
	return "", "", nil
}

// h. The statement mirrors the evidence.
func (c *v01Check) mirrors() (string, string, error) {
	for _, m := range []struct {
		member string
		want   []string // path in evidence
	}{
		{"standardVersion", []string{"standardVersion"}},
		{"profileId", []string{"profile", "id"}},
		{"profileVersion", []string{"profile", "version"}},
		{"subjectType", []string{"subject", "subjectType"}},
		{"subjectName", []string{"subject", "name"}},
		{"subjectVersion", []string{"subject", "version"}},
		{"evidenceClass", []string{"evidenceClass"}},
		{"validatorName", []string{"validator", "name"}},
		{"validatorVersion", []string{"validator", "version"}},
		{"validatorSha256", []string{"validator", "sha256"}},
	} {
		if got, want := c.str(c.st, m.member), c.str(c.ev, m.want...); got != want {
			return validator.CodeCausalMismatch, fmt.Sprintf("statement.%s is %q, evidence says %q", m.member, got, want), nil
		}
	}
	return "", "", nil
}

func digest(v *canonjson.Value) (string, int, error) {
	sum, n, err := canonjson.Digest(v)
	if err != nil {
		return "", 0, fmt.Errorf("cannot canonicalize: %w", err)
	}
	return sum, n, nil
}
