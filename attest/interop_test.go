package attest_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/ed25519strict"
)

// testOnlyKey returns a deterministic Ed25519 key derived from a fixed
// label. TEST-ONLY: anyone can recompute it; never trust it.
func testOnlyKey(label string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("mcpres test-only key: " + label))
	return ed25519.NewKeyFromSeed(seed[:])
}

// interopEnvelope is one signed envelope, decoded.
type interopEnvelope struct {
	name        string
	payloadType string
	payloadB64  string
	keyID       string
	sigB64      string
	spki        []byte
	pub         ed25519.PublicKey
}

func decodeEnvelope(t testing.TB, name string, env *canonjson.Value) interopEnvelope {
	t.Helper()
	sig := env.Get("signatures").Items[0]
	spki, err := base64.StdEncoding.DecodeString(sig.Get("publicKeySpkiBase64").Str)
	if err != nil {
		t.Fatal(err)
	}
	return interopEnvelope{
		name:        name,
		payloadType: env.Get("payloadType").Str,
		payloadB64:  env.Get("payload").Str,
		keyID:       sig.Get("keyid").Str,
		sigB64:      sig.Get("sig").Str,
		spki:        spki,
		pub:         ed25519.PublicKey(spki[len(ed25519strict.SPKIPrefix):]),
	}
}

func (e interopEnvelope) payload(t testing.TB) []byte {
	b, err := base64.StdEncoding.DecodeString(e.payloadB64)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (e interopEnvelope) sig(t testing.TB) []byte {
	b, err := base64.StdEncoding.DecodeString(e.sigB64)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// signedEnvelopes are envelopes made by attest.Sign: the two RFC 8032 test
// keys over the example bundle (plain and with a transparency reference),
// a non-BMP signer identity, and three further deterministic test keys.
func signedEnvelopes(t testing.TB) []interopEnvelope {
	t.Helper()
	b := bundletest.Example(t)
	withRef := attesttest.Options(attesttest.IdentityOne)
	withRef.Transparency = attesttest.TestTransparency()
	inputs := []struct {
		name string
		key  ed25519.PrivateKey
		opts attest.SignOptions
	}{
		{"key-one", attesttest.TestOnlyKeyOne(), attesttest.Options(attesttest.IdentityOne)},
		{"key-two", attesttest.TestOnlyKeyTwo(), attesttest.Options(attesttest.IdentityTwo)},
		{"key-one-transparency", attesttest.TestOnlyKeyOne(), withRef},
		{"key-one-astral-identity", attesttest.TestOnlyKeyOne(), attesttest.Options("test://mcp-res/disposable/signer-😀")},
	}
	for i := range 3 {
		label := fmt.Sprintf("interop-%d", i)
		inputs = append(inputs, struct {
			name string
			key  ed25519.PrivateKey
			opts attest.SignOptions
		}{label, testOnlyKey(label), attesttest.Options("test://mcp-res/disposable/" + label)})
	}
	var out []interopEnvelope
	for _, in := range inputs {
		env, err := attest.Sign(b, in.key, in.opts)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, decodeEnvelope(t, in.name, env))
	}
	return out
}

// stdlibVerifier implements dsse.Verifier with crypto/ed25519, independent
// of ed25519strict.Verify.
type stdlibVerifier struct {
	pub   ed25519.PublicKey
	keyID string
}

func (v stdlibVerifier) Verify(_ context.Context, data, sig []byte) error {
	if !ed25519.Verify(v.pub, data, sig) {
		return errors.New("ed25519: invalid signature")
	}
	return nil
}
func (v stdlibVerifier) KeyID() (string, error)   { return v.keyID, nil }
func (v stdlibVerifier) Public() crypto.PublicKey { return v.pub }

func flip(b []byte, i int) []byte {
	c := bytes.Clone(b)
	c[i] ^= 0x01
	return c
}

// dsseVerify verifies e with go-securesystemslib's own DSSE envelope
// verifier (its PAE, its base64 decoding, its key-id matching).
func dsseVerify(e interopEnvelope, payloadB64, sigB64 string) error {
	ev, err := dsse.NewEnvelopeVerifier(stdlibVerifier{pub: e.pub, keyID: e.keyID})
	if err != nil {
		return err
	}
	accepted, err := ev.Verify(context.Background(), &dsse.Envelope{
		PayloadType: e.payloadType,
		Payload:     payloadB64,
		Signatures:  []dsse.Signature{{KeyID: e.keyID, Sig: sigB64}},
	})
	if err != nil {
		return err
	}
	if len(accepted) != 1 || accepted[0].KeyID != e.keyID {
		return fmt.Errorf("accepted keys %v", accepted)
	}
	return nil
}

// Envelopes made by attest.Sign verify with go-securesystemslib's DSSE
// verifier, and a flipped byte anywhere in the signature, or in the
// payload, is rejected.
func TestInteropSecureSystemsLibDSSE(t *testing.T) {
	enc := base64.StdEncoding.EncodeToString
	for _, e := range signedEnvelopes(t) {
		t.Run(e.name, func(t *testing.T) {
			if err := dsseVerify(e, e.payloadB64, e.sigB64); err != nil {
				t.Fatalf("go-securesystemslib rejects our envelope: %v", err)
			}
			sig, payload := e.sig(t), e.payload(t)
			for _, i := range []int{0, 31, 32, 63} {
				if err := dsseVerify(e, e.payloadB64, enc(flip(sig, i))); err == nil {
					t.Errorf("accepted the signature with byte %d flipped", i)
				}
			}
			for _, i := range []int{0, len(payload) / 2, len(payload) - 1} {
				if err := dsseVerify(e, enc(flip(payload, i)), e.sigB64); err == nil {
					t.Errorf("accepted the payload with byte %d flipped", i)
				}
			}
			// The PAE both sides sign is byte-identical.
			if !bytes.Equal(dsse.PAE(e.payloadType, payload), attest.PAE(e.payloadType, payload)) {
				t.Errorf("dsse.PAE and attest.PAE differ")
			}
			other := e
			other.pub = attesttest.TestOnlyKeyTwo().Public().(ed25519.PublicKey)
			if e.name == "key-two" {
				other.pub = attesttest.TestOnlyKeyOne().Public().(ed25519.PublicKey)
			}
			if err := dsseVerify(other, e.payloadB64, e.sigB64); err == nil {
				t.Errorf("accepted the signature under another key")
			}
		})
	}
}

// nodeVerifyScript reads, for each name on the command line, NAME.pae,
// NAME.sig and NAME.der from the current directory and prints
// "NAME true|false" using Node's own Ed25519 (OpenSSL).
const nodeVerifyScript = `
const crypto = require('crypto');
const fs = require('fs');
for (const name of process.argv.slice(1)) {
  let ok;
  try {
    const key = crypto.createPublicKey({key: fs.readFileSync(name + '.der'), format: 'der', type: 'spki'});
    ok = crypto.verify(null, fs.readFileSync(name + '.pae'), key, fs.readFileSync(name + '.sig'));
  } catch (e) {
    ok = 'error:' + e.code;
  }
  console.log(name + ' ' + ok);
}
`

// Envelopes made by attest.Sign verify with an independent Ed25519
// implementation (Node's crypto.verify over the PAE bytes, key from the
// SPKI DER), and a flipped byte in the signature or in the PAE is rejected.
// Skipped when node is not on PATH.
func TestInteropNodeEd25519(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("node is not on PATH (%v): independent Ed25519 check skipped", err)
	}
	dir := t.TempDir()
	want := map[string]string{}
	var names []string
	write := func(name string, pae, sig, der []byte, ok string) {
		for ext, b := range map[string][]byte{".pae": pae, ".sig": sig, ".der": der} {
			if err := os.WriteFile(filepath.Join(dir, name+ext), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		names = append(names, name)
		want[name] = ok
	}
	for _, e := range signedEnvelopes(t) {
		pae := attest.PAE(e.payloadType, e.payload(t))
		sig := e.sig(t)
		write(e.name, pae, sig, e.spki, "true")
		for _, i := range []int{0, 32, 63} {
			write(fmt.Sprintf("%s.sig-byte-%d", e.name, i), pae, flip(sig, i), e.spki, "false")
		}
		for _, i := range []int{0, 44, len(pae) - 1} {
			write(fmt.Sprintf("%s.pae-byte-%d", e.name, i), flip(pae, i), sig, e.spki, "false")
		}
	}
	// REFERENCE §10 row 1, for the record: what the platform verifier says
	// about the identity-key forgery (attest rejects it; not asserted here).
	forgedKey := make([]byte, 32)
	forgedKey[0] = 1
	forgedSig := make([]byte, 64)
	forgedSig[0] = 1
	write("identity-key-forgery", []byte("any message"), forgedSig, ed25519strict.MarshalSPKI(forgedKey), "")

	cmd := exec.Command(node, append([]string{"-e", nodeVerifyScript}, names...)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	got := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		name, result, _ := strings.Cut(sc.Text(), " ")
		got[name] = result
	}
	for _, name := range names {
		if want[name] == "" {
			t.Logf("node's verdict on %s: %s (attest.Verify rejects it)", name, got[name])
			continue
		}
		if got[name] != want[name] {
			t.Errorf("%s: node says %q, want %s", name, got[name], want[name])
		}
	}
}
