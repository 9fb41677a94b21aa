package oauth

import (
	"fmt"
	"slices"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator/profile"
)

// evaluationCheck carries one evaluation through steps 3–13.
type evaluationCheck struct {
	doc     *canonjson.Value
	ev      *Evaluation
	m       *profile.Manifest
	derived string
}

// 3. The manifest lists the evaluated revision.
func (c *evaluationCheck) revision() (string, string, error) {
	if d := c.m.RevisionProblem(c.ev.Profile.ProtocolRevision); d != "" {
		return CodeRevisionUnsupported, d, nil
	}
	return "", "", nil
}

// 4. The manifest digest.
func (c *evaluationCheck) manifestDigest() (string, string, error) {
	if d := c.m.DigestProblem(c.ev.Profile.ManifestSha256); d != "" {
		return CodeManifestDigestMismatch, d, nil
	}
	return "", "", nil
}

// 5. The evaluation digest.
func (c *evaluationCheck) evaluationDigest() (string, string, error) {
	sum, err := profile.EvaluationDigest(c.doc)
	if err != nil {
		return "", "", err
	}
	if sum != c.ev.EvaluationSha256 {
		return CodeDigestMismatch, fmt.Sprintf("evaluationSha256 is %s, the evaluation digests to %s", c.ev.EvaluationSha256, sum), nil
	}
	return "", "", nil
}

// 6. Coverage: exactly the applicable checks, each once.
func (c *evaluationCheck) coverage() (string, string, error) {
	ids := make([]string, 0, len(c.ev.Cases))
	seen := map[string]bool{}
	for _, cs := range c.ev.Cases {
		if seen[cs.ID] {
			return CodeCoverageMismatch, fmt.Sprintf("case %s appears twice", cs.ID), nil
		}
		seen[cs.ID] = true
		ids = append(ids, cs.ID)
	}
	slices.SortFunc(ids, canonjson.CompareKeys)
	want := c.m.Applicable(c.ev.Profile.ProtocolRevision)
	if slices.Equal(ids, want) {
		return "", "", nil
	}
	for _, id := range want {
		if !seen[id] {
			return CodeCoverageMismatch, fmt.Sprintf("no case for %s (%d cases, want %d)", id, len(ids), len(want)), nil
		}
	}
	for _, id := range ids {
		if !slices.Contains(want, id) {
			return CodeCoverageMismatch, fmt.Sprintf("case %s is not a required or %s conditional check of %s", id, c.ev.Profile.ProtocolRevision, c.m.ID), nil
		}
	}
	return CodeCoverageMismatch, fmt.Sprintf("%d cases, want %d", len(ids), len(want)), nil
}

// 7. A loopback-only fixture with no external contact.
func (c *evaluationCheck) isolation() (string, string, error) {
	f := &c.ev.Fixture
	switch {
	case !f.LoopbackOnly:
		return CodeExternalProviderContact, "the fixture is not loopback-only", nil
	case f.RealAuthorizationProvidersContacted != 0:
		return CodeExternalProviderContact, fmt.Sprintf("%d real authorization providers contacted, want 0", f.RealAuthorizationProvidersContacted), nil
	case f.ExternalNetworkRequests != 0:
		return CodeExternalProviderContact, fmt.Sprintf("%d external network requests, want 0", f.ExternalNetworkRequests), nil
	}
	return "", "", nil
}

// 8. Synthetic credentials only.
func (c *evaluationCheck) credentials() (string, string, error) {
	if !c.ev.Fixture.SyntheticCredentials {
		return CodeNonSyntheticCredential, "the fixture used non-synthetic credentials", nil
	}
	return "", "", nil
}

// 9. Per case: reason binding, both branches, the wrong-reason mutant.
func (c *evaluationCheck) cases() (string, string, error) {
	for i := range c.ev.Cases {
		cs := &c.ev.Cases[i]
		where := fmt.Sprintf("cases[%d] (%s)", i, cs.ID)
		// 9a. The expected reasons are fixed by the check id.
		if want := Reason(cs.ID, "ACCEPTED"); cs.Positive.ExpectedReasonCode != want {
			return CodeWrongReason, fmt.Sprintf("%s positive expects %s, the property-specific reason is %s", where, cs.Positive.ExpectedReasonCode, want), nil
		}
		if want := Reason(cs.ID, "REJECTED"); cs.Negative.ExpectedReasonCode != want {
			return CodeWrongReason, fmt.Sprintf("%s negative expects %s, the property-specific reason is %s", where, cs.Negative.ExpectedReasonCode, want), nil
		}
		// 9b. Positive, then negative.
		for _, o := range []struct {
			name string
			obs  *Observation
		}{{"positive", &cs.Positive}, {"negative", &cs.Negative}} {
			switch {
			case !o.obs.PropertyReached:
				return CodePropertyNotReached, fmt.Sprintf("%s %s: property not reached", where, o.name), nil
			case o.obs.ObservedOutcome == "NOT_OBSERVED" || o.obs.ObservedOutcome != o.obs.ExpectedOutcome:
				return CodeOutcomeMismatch, fmt.Sprintf("%s %s: observed %s, expected %s", where, o.name, o.obs.ObservedOutcome, o.obs.ExpectedOutcome), nil
			case o.obs.ObservedReasonCode != o.obs.ExpectedReasonCode:
				return CodeWrongReason, fmt.Sprintf("%s %s: reason %s, expected %s", where, o.name, o.obs.ObservedReasonCode, o.obs.ExpectedReasonCode), nil
			}
		}
		// 9c. The wrong-reason mutant.
		mu := &cs.WrongReasonMutant
		missing := func(why string) (string, string, error) {
			return CodeWrongReasonControlMissing, where + " wrongReasonMutant " + why, nil
		}
		switch {
		case !mu.PropertyReached:
			return missing("was not reached")
		case mu.ObservedReasonCode == cs.Negative.ExpectedReasonCode:
			return missing("reports the property-specific rejection " + mu.ObservedReasonCode + ", so it does not control for a wrong reason")
		case mu.ObservedReasonCode != EarlySyntaxRejection:
			return missing("reports " + mu.ObservedReasonCode + ", not " + EarlySyntaxRejection)
		case mu.ExpectedDiagnostic != CodeWrongReason:
			return missing("expects " + mu.ExpectedDiagnostic + ", not " + CodeWrongReason)
		}
	}
	return "", "", nil
}

// 10. No persisted token or credential material.
func (c *evaluationCheck) privacy() (string, string, error) {
	switch {
	case c.ev.Privacy.TokenMaterialPersisted:
		return CodeSecretPersisted, "token material was persisted", nil
	case c.ev.Privacy.EvidenceContainsCredentialMaterial:
		return CodeSecretPersisted, "the evidence contains credential material", nil
	}
	return "", "", nil
}

// 11. Sanitized authorization errors.
func (c *evaluationCheck) sanitized() (string, string, error) {
	if !c.ev.Privacy.AuthorizationErrorsSanitized {
		return CodeUnsanitizedError, "authorization errors were not sanitized", nil
	}
	return "", "", nil
}

// 12. Both listeners released.
func (c *evaluationCheck) cleanup() (string, string, error) {
	switch {
	case !c.ev.Cleanup.ListenerClosed:
		return CodeCleanupIncomplete, "the fixture listener was not closed", nil
	case !c.ev.Cleanup.RedirectListenerReleased:
		return CodeCleanupIncomplete, "the redirect listener was not released", nil
	}
	return "", "", nil
}

// 13. The result is derived: a test fixture caps it at INCOMPLETE.
func (c *evaluationCheck) result() (string, string, error) {
	fixture := ""
	for _, cs := range c.ev.Cases {
		if cs.EvidenceSource == "TEST_FIXTURE" && fixture == "" {
			fixture = cs.ID
		}
	}
	c.derived = profile.ResultPass
	if fixture != "" {
		c.derived = profile.ResultIncomplete
	}
	if c.ev.Result == c.derived {
		return "", "", nil
	}
	if fixture != "" && c.ev.Result == profile.ResultPass {
		return CodeTestFixtureOverclaim, fmt.Sprintf("result PASS, but case %s is TEST_FIXTURE evidence (at most INCOMPLETE)", fixture), nil
	}
	return CodeResultMismatch, fmt.Sprintf("result is %s, the derived result is %s", c.ev.Result, c.derived), nil
}
