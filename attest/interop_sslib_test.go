package attest_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	"github.com/secure-systems-lab/go-securesystemslib/signerverifier"
)

// The go-securesystemslib recipe of docs/interop.md, step by step: the
// stock Ed25519 verifier, loaded from our public key PEM, reports a
// securesystemslib key ID (SHA-256 of its JSON key form), which is not
// the envelope's keyid (REFERENCE: SHA-256 of the SPKI DER), so the DSSE
// envelope verifier skips our signature and rejects the envelope. Setting
// the loaded key's KeyID to the mcpres fingerprint (`mcpres key
// fingerprint KEY.pub`) before making the verifier is the whole fix.
func TestInteropSecureSystemsLibStockVerifier(t *testing.T) {
	for _, e := range signedEnvelopes(t) {
		t.Run(e.name, func(t *testing.T) {
			pubPEM, err := keyfile.MarshalPublicKeyPEM(e.pub)
			if err != nil {
				t.Fatal(err)
			}
			// The envelope exactly as the attested bundle holds it: its
			// JSON decodes into dsse.Envelope (extra members ignored).
			raw, _ := json.Marshal(map[string]any{"payloadType": e.payloadType, "payload": e.payloadB64,
				"signatures": []map[string]string{{"keyid": e.keyID, "sig": e.sigB64, "algorithm": "Ed25519", "signerIdentity": "x"}}})
			var env dsse.Envelope
			if err := json.Unmarshal(raw, &env); err != nil {
				t.Fatal(err)
			}
			verifyWith := func(keyID string) error {
				key, err := signerverifier.LoadKey(pubPEM)
				if err != nil {
					t.Fatalf("LoadKey: %v", err)
				}
				if keyID != "" {
					key.KeyID = keyID
				}
				sv, err := signerverifier.NewED25519SignerVerifierFromSSLibKey(key)
				if err != nil {
					t.Fatal(err)
				}
				ev, err := dsse.NewEnvelopeVerifier(sv)
				if err != nil {
					t.Fatal(err)
				}
				_, err = ev.Verify(context.Background(), &env)
				return err
			}
			// Stock: rejected, for the key ID alone.
			stock, _ := signerverifier.LoadKey(pubPEM)
			if stock.KeyID == e.keyID {
				t.Fatalf("securesystemslib's key ID equals ours; the recipe is obsolete")
			}
			if err := verifyWith(""); err == nil {
				t.Fatal("the stock verifier accepted an envelope whose keyid is not its key ID")
			}
			// Recipe: the key ID set to the SPKI fingerprint.
			if e.keyID != ed25519strict.SPKIFingerprint(e.spki) {
				t.Fatalf("envelope keyid %s is not the SPKI fingerprint", e.keyID)
			}
			if err := verifyWith(ed25519strict.SPKIFingerprint(e.spki)); err != nil {
				t.Fatalf("the recipe fails: %v", err)
			}
			// Control: the recipe still checks the signature.
			env.Signatures[0].Sig = strings.Repeat("A", len(e.sigB64)-2) + "=="
			if err := verifyWith(ed25519strict.SPKIFingerprint(e.spki)); err == nil {
				t.Error("the recipe accepted a wrong signature")
			}
		})
	}
}
