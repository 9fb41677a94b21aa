package sigstore_test

// These tests are the only place sigstore-go is imported: the production
// code writes the bundle JSON itself (see doc.go), and the tests prove that
// sigstore-go v1.3.0 loads it (protojson) and verifies it offline.

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/attest/sigstore"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	sgbundle "github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/signature"
	"google.golang.org/protobuf/encoding/protojson"
)

var fixtures = filepath.Join("..", "..", "testdata", "attestation")

func readFixture(t *testing.T, name string) *canonjson.Value {
	t.Helper()
	_, v, err := canonjson.ReadFile(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// envelopeAndDigest returns envelope i of an attested fixture and the
// subject artifact's SHA-256 (the in-toto subject digest).
func envelopeAndDigest(t *testing.T, name string, i int) (*canonjson.Value, []byte) {
	t.Helper()
	w := readFixture(t, name)
	digest, err := hex.DecodeString(w.Path("bundle", "evidence", "subject", "artifactSha256").Str)
	if err != nil {
		t.Fatal(err)
	}
	return w.Path("authenticity", "envelopes").Items[i], digest
}

// signerKey returns the public key and fingerprint named by an envelope.
func signerKey(t *testing.T, env *canonjson.Value) (ed25519.PublicKey, string) {
	t.Helper()
	sig := env.Get("signatures").Items[0]
	der, err := keyfile.DecodeStrictBase64(sig.Get("publicKeySpkiBase64").Str)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := keyfile.ParseSPKI(der)
	if err != nil {
		t.Fatal(err)
	}
	return pub, ed25519strict.SPKIFingerprint(der)
}

func export(t *testing.T, env *canonjson.Value) []byte {
	t.Helper()
	b, err := sigstore.ExportBundle(env)
	if err != nil {
		t.Fatalf("ExportBundle: %v", err)
	}
	data, err := canonjson.Pretty(b)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// sigstoreVerify loads data with sigstore-go and verifies it offline: trusted
// material is the single key pub registered under hint, no transparency log,
// no timestamps, key-based policy.
func sigstoreVerify(data []byte, hint string, pub ed25519.PublicKey, artifact verify.ArtifactPolicyOption) (*verify.VerificationResult, error) {
	var b sgbundle.Bundle
	if err := b.UnmarshalJSON(data); err != nil {
		return nil, err
	}
	sv, err := signature.LoadED25519Verifier(pub)
	if err != nil {
		return nil, err
	}
	trusted := root.NewTrustedPublicKeyMaterialFromMapping(map[string]*root.ExpiringKey{
		hint: root.NewExpiringKey(sv, time.Time{}, time.Time{}),
	})
	v, err := verify.NewVerifier(trusted, verify.WithNoObserverTimestamps())
	if err != nil {
		return nil, err
	}
	return v.Verify(&b, verify.NewPolicy(artifact, verify.WithKey()))
}

// Every envelope of every valid fixture exports to a bundle that
// sigstore-go verifies offline, against the subject digest and without an
// artifact.
func TestExportVerifiesWithSigstoreGo(t *testing.T) {
	_, cat, err := canonjson.ReadFile(filepath.Join(fixtures, "catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cat.Get("cases").Items {
		if len(c.Get("expectedDiagnostics").Items) != 0 {
			continue
		}
		name := c.Get("wrapper").Str
		w := readFixture(t, name)
		for i := range w.Path("authenticity", "envelopes").Items {
			n++
			env, digest := envelopeAndDigest(t, name, i)
			pub, fp := signerKey(t, env)
			data := export(t, env)
			t.Run(fmt.Sprintf("%s/envelope-%d", name, i), func(t *testing.T) {
				res, err := sigstoreVerify(data, fp, pub, verify.WithArtifactDigest("sha256", digest))
				if err != nil {
					t.Fatalf("sigstore-go verification with the subject digest failed: %v\n%s", err, data)
				}
				if res.Statement == nil || res.Statement.PredicateType != attest.PredicateType {
					t.Errorf("statement = %v, want predicate type %s", res.Statement, attest.PredicateType)
				}
				if got := res.Statement.GetSubject()[0].GetDigest()["sha256"]; got != hex.EncodeToString(digest) {
					t.Errorf("subject digest %s, want %x", got, digest)
				}
				if res.Signature == nil || res.Signature.PublicKeyID == nil || string(*res.Signature.PublicKeyID) != fp {
					t.Errorf("verified key id %v, want the hint %s", res.Signature, fp)
				}
				if _, err := sigstoreVerify(data, fp, pub, verify.WithoutArtifactUnsafe()); err != nil {
					t.Errorf("sigstore-go verification without an artifact failed: %v", err)
				}
			})
		}
	}
	if n < 6 {
		t.Errorf("only %d envelopes exported; the valid fixtures have at least 6", n)
	}
}

// The written JSON is exactly the documented mapping, and it is what
// protojson itself produces for the loaded message (up to the proto3
// defaults keyid "" and tlogEntries [], which protojson omits).
func TestExportShape(t *testing.T) {
	env, _ := envelopeAndDigest(t, "witnessed.json", 1)
	_, fp := signerKey(t, env)
	sig := env.Get("signatures").Items[0]
	want := `{
  "mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",
  "verificationMaterial": {
    "publicKey": {
      "hint": "` + fp + `"
    },
    "tlogEntries": []
  },
  "dsseEnvelope": {
    "payload": "` + env.Get("payload").Str + `",
    "payloadType": "application/vnd.in-toto+json",
    "signatures": [
      {
        "sig": "` + sig.Get("sig").Str + `",
        "keyid": ""
      }
    ]
  }
}
`
	before, _ := canonjson.Compact(env)
	data := export(t, env)
	if string(data) != want {
		t.Errorf("bundle =\n%s\nwant\n%s", data, want)
	}
	if after, _ := canonjson.Compact(env); string(after) != string(before) {
		t.Error("ExportBundle modified its input")
	}
	if again := export(t, env); string(again) != string(data) {
		t.Error("ExportBundle is not deterministic")
	}

	var b sgbundle.Bundle
	if err := b.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	if v, err := b.Version(); err != nil || v != "v0.3" {
		t.Errorf("sigstore-go reads version %q (%v), want v0.3", v, err)
	}
	if b.VerificationMaterial.GetPublicKey().GetHint() != fp {
		t.Errorf("hint = %q, want %s", b.VerificationMaterial.GetPublicKey().GetHint(), fp)
	}
	pj, err := protojson.Marshal(b.Bundle)
	if err != nil {
		t.Fatal(err)
	}
	got, err := canonjson.Parse(pj)
	if err != nil {
		t.Fatal(err)
	}
	ours, _ := canonjson.Parse(data)
	ours.Get("verificationMaterial").Delete("tlogEntries")
	ours.Path("dsseEnvelope", "signatures").Items[0].Delete("keyid")
	if !canonjson.Equal(got, ours) {
		t.Errorf("protojson re-encodes the bundle as\n%s\nwhich differs from ours (defaults removed)", pj)
	}
}

// mutateBundle decodes an exported bundle, applies f, and re-encodes it.
func mutateBundle(t *testing.T, data []byte, f func(b *canonjson.Value)) []byte {
	t.Helper()
	b, err := canonjson.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	b = b.Clone() // f changes scalars in place: parsed ones are shared
	f(b)
	out, err := canonjson.Compact(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSigstoreGoRejects(t *testing.T) {
	env, digest := envelopeAndDigest(t, "witnessed.json", 0)
	pub, fp := signerKey(t, env)
	data := export(t, env)
	if _, err := sigstoreVerify(data, fp, pub, verify.WithArtifactDigest("sha256", digest)); err != nil {
		t.Fatalf("positive control failed: %v", err)
	}
	otherPub := attesttest.TestOnlyKeyTwo().Public().(ed25519.PublicKey)
	if otherPub.Equal(pub) {
		t.Fatal("fixture envelope 0 is expected to be signed by test key one")
	}
	setKeyID := func(id string) func(*canonjson.Value) {
		return func(b *canonjson.Value) {
			b.Path("dsseEnvelope", "signatures").Items[0].Set("keyid", canonjson.NewString(id))
		}
	}
	sshKeyID, err := dsse.SHA256KeyID(pub)
	if err != nil {
		t.Fatal(err)
	}
	flipped := mutateBundle(t, data, func(b *canonjson.Value) {
		p := b.Get("dsseEnvelope").Get("payload")
		raw, _ := base64.StdEncoding.DecodeString(p.Str)
		raw[len(raw)/2] ^= 0x01
		p.Str = base64.StdEncoding.EncodeToString(raw)
	})
	twoSigs := mutateBundle(t, data, func(b *canonjson.Value) {
		sigs := b.Path("dsseEnvelope", "signatures")
		sigs.Items = append(sigs.Items, sigs.Items[0].Clone())
	})

	tests := []struct {
		name     string
		data     []byte
		hint     string
		pub      ed25519.PublicKey
		artifact verify.ArtifactPolicyOption
		want     string // substring of the error; "" means success
	}{
		{"flipped payload byte", flipped, fp, pub, verify.WithoutArtifactUnsafe(), "could not verify envelope"},
		{"wrong public key under the hint", data, fp, otherPub, verify.WithoutArtifactUnsafe(), "could not verify envelope"},
		{"hint not in the trusted material", data, attesttest.KeyID(attesttest.TestOnlyKeyTwo()), pub, verify.WithoutArtifactUnsafe(), "public key not found"},
		{"wrong artifact digest", data, fp, pub, verify.WithArtifactDigest("sha256", make([]byte, 32)), "does not match any digest"},
		{"two signatures", twoSigs, fp, pub, verify.WithoutArtifactUnsafe(), verify.ErrDSSEInvalidSignatureCount.Error()},
		// Why ExportBundle writes keyid "": the MCP-RES keyid (hex SHA-256
		// of the SPKI) is not sigstore-go's key id, so the signature is
		// skipped and verification fails...
		{"MCP-RES hex keyid", mutateBundle(t, data, setKeyID(fp)), fp, pub, verify.WithoutArtifactUnsafe(), "could not verify envelope"},
		// ...while the OpenSSH-style "SHA256:" fingerprint would match.
		{"SSH-style SHA256 keyid", mutateBundle(t, data, setKeyID(sshKeyID)), fp, pub, verify.WithoutArtifactUnsafe(), ""},
		{"empty keyid (as exported)", data, fp, pub, verify.WithoutArtifactUnsafe(), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sigstoreVerify(tt.data, tt.hint, tt.pub, tt.artifact)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("verification failed: %v", err)
			case tt.want != "" && err == nil:
				t.Errorf("verification succeeded, want an error containing %q", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Errorf("error %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestExportBundleRefuses(t *testing.T) {
	base, _ := envelopeAndDigest(t, "witnessed.json", 0)
	other, _ := envelopeAndDigest(t, "witnessed.json", 1)
	sig0 := func(e *canonjson.Value) *canonjson.Value { return e.Get("signatures").Items[0] }
	key2 := attesttest.TestOnlyKeyTwo()

	tests := []struct {
		name   string
		mutate func(e *canonjson.Value) *canonjson.Value
		want   string
		count  bool // wraps ErrSignatureCount
	}{
		{"not an object", func(*canonjson.Value) *canonjson.Value { return canonjson.NewArray() }, "not a JSON object", false},
		{"absent", func(*canonjson.Value) *canonjson.Value { return nil }, "not a JSON object", false},
		{"two signatures", func(e *canonjson.Value) *canonjson.Value {
			e.Get("signatures").Items = append(e.Get("signatures").Items, sig0(other).Clone())
			return e
		}, "exactly one DSSE signature; the envelope has 2", true},
		{"no signature", func(e *canonjson.Value) *canonjson.Value {
			e.Set("signatures", canonjson.NewArray())
			return e
		}, "the envelope has none", true},
		{"unknown envelope member", func(e *canonjson.Value) *canonjson.Value {
			e.Set("extra", canonjson.NewBool(true))
			return e
		}, `unknown member "extra"`, false},
		{"unknown signature member", func(e *canonjson.Value) *canonjson.Value {
			sig0(e).Set("certificate", canonjson.NewString("x"))
			return e
		}, `unknown member "certificate"`, false},
		{"missing signerIdentity", func(e *canonjson.Value) *canonjson.Value {
			sig0(e).Delete("signerIdentity")
			return e
		}, "lacks the member signerIdentity", false},
		{"wrong schemaVersion", func(e *canonjson.Value) *canonjson.Value {
			e.Set("schemaVersion", canonjson.NewString("mcp-res.dsse-envelope/0.1.0"))
			return e
		}, "schemaVersion", false},
		{"other payloadType", func(e *canonjson.Value) *canonjson.Value {
			e.Set("payloadType", canonjson.NewString("text/plain"))
			return e
		}, `payloadType is "text/plain"`, false},
		{"unsupported algorithm", func(e *canonjson.Value) *canonjson.Value {
			sig0(e).Set("algorithm", canonjson.NewString("ECDSA-P256"))
			return e
		}, `algorithm "ECDSA-P256" is not supported`, false},
		{"payload with a line break", func(e *canonjson.Value) *canonjson.Value {
			p := e.Get("payload")
			p.Str = p.Str[:8] + "\n" + p.Str[8:]
			return e
		}, "member payload: invalid strict base64", false},
		{"url-safe sig", func(e *canonjson.Value) *canonjson.Value {
			s := sig0(e).Get("sig")
			s.Str = strings.NewReplacer("+", "-", "/", "_").Replace(s.Str)
			if s.Str == sig0(base).Get("sig").Str {
				s.Str = "-" + s.Str[1:]
			}
			return e
		}, "member sig: invalid strict base64", false},
		{"keyid of another key", func(e *canonjson.Value) *canonjson.Value {
			sig0(e).Set("keyid", canonjson.NewString(attesttest.KeyID(key2)))
			return e
		}, "keyid is not the SHA-256", false},
		{"raw 32-byte key", func(e *canonjson.Value) *canonjson.Value {
			raw := attesttest.TestOnlyKeyOne().Public().(ed25519.PublicKey)
			sig0(e).Set("publicKeySpkiBase64", canonjson.NewString(base64.StdEncoding.EncodeToString(raw)))
			sig0(e).Set("keyid", canonjson.NewString(ed25519strict.SPKIFingerprint(raw)))
			return e
		}, "44-byte Ed25519 SubjectPublicKeyInfo", false},
		{"signed by another key", func(e *canonjson.Value) *canonjson.Value {
			der := ed25519strict.MarshalSPKI(key2.Public().(ed25519.PublicKey))
			sig0(e).Set("publicKeySpkiBase64", canonjson.NewString(base64.StdEncoding.EncodeToString(der)))
			sig0(e).Set("keyid", canonjson.NewString(ed25519strict.SPKIFingerprint(der)))
			return e
		}, "signature does not verify", false},
		{"payload altered", func(e *canonjson.Value) *canonjson.Value {
			p := e.Get("payload")
			raw, _ := base64.StdEncoding.DecodeString(p.Str)
			raw[10] ^= 0x20
			p.Str = base64.StdEncoding.EncodeToString(raw)
			return e
		}, "signature does not verify", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := sigstore.ExportBundle(tt.mutate(base.Clone()))
			if err == nil {
				t.Fatalf("exported %v, want an error containing %q", b, tt.want)
			}
			if !errors.Is(err, sigstore.ErrNotExportable) || errors.Is(err, sigstore.ErrSignatureCount) != tt.count {
				t.Errorf("error %v: Is(ErrNotExportable) = %t, Is(ErrSignatureCount) = %t, want true, %t",
					err, errors.Is(err, sigstore.ErrNotExportable), errors.Is(err, sigstore.ErrSignatureCount), tt.count)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

// The negative fixtures whose envelope is itself broken are refused;
// the forged identity-key "signature" in particular never becomes a
// bundle that Go's crypto/ed25519 (and so sigstore-go) would accept.
func TestExportRefusesBrokenFixtures(t *testing.T) {
	for name, want := range map[string]string{
		"altered-payload.json":       "signature does not verify",
		"wrong-key.json":             "signature does not verify",
		"identity-key-forgery.json":  "small-order",
		"signature-s-plus-l.json":    "S ≥ L",
		"unsupported-algorithm.json": "not supported",
		"missing-signature.json":     "the envelope has none",
	} {
		t.Run(name, func(t *testing.T) {
			env, _ := envelopeAndDigest(t, name, 0)
			_, err := sigstore.ExportBundle(env)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("error %v, want one containing %q", err, want)
			}
		})
	}
}

// Carries pairs a Sigstore bundle with the envelope whose payload and
// signature it holds, and with no other: another envelope of the same
// bundle, a changed signature, a document that is not a Sigstore bundle.
func TestCarries(t *testing.T) {
	env0, _ := envelopeAndDigest(t, "witnessed.json", 0)
	env1, _ := envelopeAndDigest(t, "witnessed.json", 1)
	sb := export(t, env0)
	if !sigstore.Carries(sb, env0) {
		t.Fatal("the Sigstore bundle of envelope 0 does not carry it")
	}
	if sigstore.Carries(sb, env1) {
		t.Error("the Sigstore bundle of envelope 0 carries envelope 1")
	}
	otherSig := mutateBundle(t, sb, func(b *canonjson.Value) {
		s := b.Path("dsseEnvelope", "signatures").Items[0]
		s.Set("sig", canonjson.NewString(base64.StdEncoding.EncodeToString(make([]byte, 64))))
	})
	if sigstore.Carries(otherSig, env0) {
		t.Error("a Sigstore bundle with another signature carries envelope 0")
	}
	notSB := mutateBundle(t, sb, func(b *canonjson.Value) { b.Set("mediaType", canonjson.NewString("application/json")) })
	if sigstore.Carries(notSB, env0) || sigstore.Carries([]byte("{"), env0) {
		t.Error("a document that is not a Sigstore bundle carries envelope 0")
	}
}
