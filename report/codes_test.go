package report

import (
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/validator"
)

// TestEveryCodeExplained: every core v0.2 and attestation diagnostic has
// its own explanation (not the family fallback).
func TestEveryCodeExplained(t *testing.T) {
	for _, c := range []string{
		validator.CodeInputInvalid, validator.CodeSelfAssertedClaim, validator.CodeVacuousNegativeControl,
		validator.CodeNegativePrerequisiteMissing, validator.CodePropertyNotReached, validator.CodeWrongStopReason,
		validator.CodeNegativeMutantSurvived, validator.CodeSchemaInvalid, validator.CodeScenarioFingerprintMismatch,
		validator.CodeWallClockReversal, validator.CodeCausalMismatch, validator.CodeCrossRunSubstitution,
		validator.CodeRetryLimitExceeded, validator.CodeOperationParentCycle, validator.CodeObservationCausalMismatch,
		validator.CodeMissingObservationArtifact, validator.CodeObservationHashMismatch, validator.CodeRequiredSurfaceUnobserved,
		validator.CodeTrialSummaryInconsistent, validator.CodeFalseStabilityClaim, validator.CodeEvidenceClassPromotion,
		validator.CodeCompletionUnobserved, validator.CodeDigestMismatch, validator.CodeExecutionDigestMismatch,
		attest.CodeSignatureMissing, attest.CodeAlgorithmUnsupported, attest.CodeSchemaInvalid, attest.CodeAttestedEvidenceInvalid,
		attest.CodeClassificationOverclaim, attest.CodeTrustPolicyExpired, attest.CodeDuplicateSigner, attest.CodeSignatureInvalid,
		attest.CodeIdentityMismatch, attest.CodeBindingMismatch, attest.CodeKeyRevoked, attest.CodeUntrustedSigner, attest.CodeTransparencyInvalid,
	} {
		e, ok := explanations[c]
		if !ok || e.Meaning == "" || e.Where == "" {
			t.Errorf("%s has no explanation", c)
		}
	}
	if got := explain("MCP_RES_OAUTH_WRONG_REASON").Meaning; got == "" || explanations["MCP_RES_OAUTH_WRONG_REASON"].Meaning != "" {
		t.Errorf("OAuth codes should use the family fallback, got %q", got)
	}
}

func TestShow(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{"a\x00b", "a⟨U+0000⟩b"},
		{"\u202Eevil", "⟨U+202E⟩evil"},
		{"tab\tnl\n", "tab⟨U+0009⟩nl⟨U+000A⟩"},
		{"\u2066x\u2069\u200f", "⟨U+2066⟩x⟨U+2069⟩⟨U+200F⟩"},
		{"abcdef", "abc… [3 more characters]"},
	} {
		if got := show(c.in, 3+len(c.in)*0+map[bool]int{true: 100, false: 0}[c.in != "abcdef"]); got != c.want {
			t.Errorf("show(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := label("abcdefgh", 4); got != "abc…" {
		t.Errorf("label = %q", got)
	}
}
