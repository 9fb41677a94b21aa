package keyless_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/keyless"
)

// TestResolvedLeavesTheSignatureToTheGate: with the same altered payload
// in the envelope and in its Sigstore bundle, Certify (which an outside
// caller may use on its own) refuses the signature itself; Resolved,
// whose policy only the gate evaluates, certifies the key and leaves the
// signature to the gate's E6 (TestKeylessVerify in cmd/mcpres-sigstore:
// MCP_RES_ATTESTATION_SIGNATURE_INVALID). The unaltered pair is the
// control of both.
func TestResolvedLeavesTheSignatureToTheGate(t *testing.T) {
	m, d, res := signedWithMaterial(t)

	alter := func() (*canonjson.Value, []byte) {
		w := res.Attested.Clone()
		p := base64.StdEncoding.EncodeToString([]byte(`{"_type":"https://in-toto.io/Statement/v1","altered":true}`))
		w.Path("authenticity", "envelopes").Items[0].Set("payload", canonjson.NewString(p))
		var sb map[string]any
		if err := json.Unmarshal(res.SigstoreBundle, &sb); err != nil {
			t.Fatal(err)
		}
		sb["dsseEnvelope"].(map[string]any)["payload"] = p
		data, _ := json.Marshal(sb)
		return w, data
	}
	for _, tc := range []struct {
		name    string
		altered bool
	}{{"control: unaltered", false}, {"the same altered payload in both", true}} {
		t.Run(tc.name, func(t *testing.T) {
			w, sb := res.Attested, res.SigstoreBundle
			if tc.altered {
				w, sb = alter()
			}
			_, err := m.Certify(sb, w)
			var f *keyless.Failure
			if tc.altered != (errors.As(err, &f) && f.Code == keyless.CodeSignatureInvalid) {
				t.Fatalf("Certify: %v", err)
			}
			if _, _, fail := m.Resolved(d, w, [][]byte{sb}); fail != nil {
				t.Fatalf("Resolved: %v", fail)
			}
		})
	}
}
