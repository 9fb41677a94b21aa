package keyless_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/keyless"
	"github.com/mcpres/mcpres/keyless/keylesstest"
	"github.com/mcpres/mcpres/trustpolicy"
)

// TestResolvedLeavesTheSignatureToTheGate: with the same altered payload
// in the envelope and in its Sigstore bundle, Certify (which an outside
// caller may use on its own) refuses the signature itself; Resolved,
// whose policy only the gate evaluates, certifies the key and leaves the
// signature to the gate's E6 (TestKeylessVerify in cmd/mcpres-sigstore:
// MCP_RES_ATTESTATION_SIGNATURE_INVALID). The unaltered pair is the
// control of both.
func TestResolvedLeavesTheSignatureToTheGate(t *testing.T) {
	s := keylesstest.NewStack(t)
	tr, err := keyless.FetchTrustedRoot(context.Background(), http.DefaultClient, s.FulcioURL, s.TSAURL)
	if err != nil {
		t.Fatal(err)
	}
	trJSON, _ := tr.MarshalJSON()
	tok, err := keyless.ParseToken(s.EmailToken(t, "release@example.org", nil), nowTime())
	if err != nil {
		t.Fatal(err)
	}
	o := keyless.Options{Token: tok, FulcioURL: s.FulcioURL, TSAURL: s.TSAURL, TrustedRoot: tr}
	o.SigningTime, o.TrustPolicyID = "2026-12-01T00:00:00.000Z", "p"
	res, err := keyless.Sign(context.Background(), bundletest.Example(t), o)
	if err != nil {
		t.Fatal(err)
	}
	d := trustpolicy.New("p", "2026-01-01T00:00:00Z", "2100-01-01T00:00:00Z")
	d.AddSigner(trustpolicy.Signer{Name: "s", Roles: []string{"signer"}, CertificateIdentity: &trustpolicy.CertificateIdentity{Issuer: s.EmailIssuer, Identity: "release@example.org"}})
	d.TrustedRoot = &trustpolicy.TrustedRoot{SHA256: canonjson.BytesDigest(trJSON)}
	m, err := keyless.NewMaterial(d, trJSON)
	if err != nil {
		t.Fatal(err)
	}

	alter := func() (*canonjson.Value, []byte) {
		w, err := canonjson.Parse(mustCompact(t, res.Attested))
		if err != nil {
			t.Fatal(err)
		}
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

func mustCompact(t *testing.T, v *canonjson.Value) []byte {
	t.Helper()
	b, err := canonjson.Compact(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
