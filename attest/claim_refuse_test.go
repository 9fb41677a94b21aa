package attest_test

import (
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
)

// G4 and G5: a wrapper claiming a signed level with no envelope is refused
// with MCP_RES_ATTESTATION_SIGNATURE_MISSING, and one claiming
// UNSIGNED_INTEGRITY_ONLY with an envelope with the overclaim code; the
// controls are each claim with the envelopes it goes with.
func TestVerifyRefusesClaimWithoutEnvelopes(t *testing.T) {
	b := bundletest.Example(t)
	signed := signedStatement(t, b, func(*canonjson.Value) {})
	env := signed.Path("authenticity", "envelopes").Items[0]
	if r := verifyNoPolicy(t, attest.Wrap(b, attest.UnsignedIntegrityOnly)); !r.Valid || r.Level != attest.UnsignedIntegrityOnly {
		t.Fatalf("control, unsigned: %v %s", r.Diagnostics, r.Detail)
	}
	if r := verifyNoPolicy(t, signed); !r.Valid {
		t.Fatalf("control, signed: %v %s", r.Diagnostics, r.Detail)
	}
	for _, claim := range []attest.Level{attest.Signed, attest.Witnessed} {
		wantInvalid(t, "claim "+claim.String()+" without envelopes", attest.Wrap(b, claim), attest.CodeSignatureMissing, "claim "+claim.String()+" without any envelope")
	}
	wantInvalid(t, "unsigned claim with an envelope", attest.Wrap(b, attest.UnsignedIntegrityOnly, env), attest.CodeClassificationOverclaim, "claim UNSIGNED_INTEGRITY_ONLY with envelopes present")
}
