package main

import (
	"crypto/ed25519"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/tlog/rekor/rekorfake"
	"github.com/mcpres/mcpres/trustpolicy"
)

// rekorRegistered reports whether main.go registers the rekor command.
func rekorRegistered() bool {
	stdout, _, code := runCLI("rekor", "--help")
	return code == exitValid && strings.Contains(stdout, "upload")
}

// TestRekorCommandRegistered fails with a clear message until main.go
// registers `rekor`; the other tests of this file run either way.
func TestRekorCommandRegistered(t *testing.T) {
	if !rekorRegistered() {
		t.Fatal("`mcpres-sigstore rekor upload` is not registered: add a.rekorCommand() to root.AddCommand in run (cmd/mcpres-sigstore/main.go)")
	}
}

// runRekorCLI runs a command line through run (the rekor command is
// registered: TestRekorCommandRegistered).
func runRekorCLI(args ...string) (string, string, int) {
	return runCLI(args...)
}

func writeKeyPEM(t *testing.T, dir string, priv ed25519.PrivateKey) string {
	t.Helper()
	data, err := keyfile.MarshalPrivateKeyPEM(priv)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "signer.pem")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRekorUpload submits the example bundle to a fake Rekor on loopback,
// then verifies the written entry and reference offline with this binary's
// own verification commands.
func TestRekorUpload(t *testing.T) {
	srv := rekorfake.New(t)
	dir := t.TempDir()
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "bundles", "example.json"))
	if err != nil {
		t.Fatal(err)
	}
	bundlePath := write(t, dir, "bundle.json", raw)
	key := writeKeyPEM(t, dir, attesttest.TestOnlyKeyOne())
	ref, entry := filepath.Join(dir, "ref.json"), filepath.Join(dir, "entry.json")

	stdout, stderr, code := runRekorCLI("rekor", "upload", "--rekor-url", srv.URL, "--key", key, bundlePath, "-o", ref, "--entry", entry)
	if code != exitValid || stdout != "" || !strings.Contains(stderr, "logged in Rekor "+srv.URL+" as entry ") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	// The reference carries the entry JSON as its proof bytes.
	_, r, err := canonjson.ReadFile(ref)
	if err != nil {
		t.Fatal(err)
	}
	var tr attest.TransparencyReference
	if err := canonjson.Unmarshal(r, &tr); err != nil {
		t.Fatal(err)
	}
	entryJSON, _ := os.ReadFile(entry)
	if tr.LogID != srv.Log.LogID || tr.InclusionProofBase64 != base64.StdEncoding.EncodeToString(entryJSON) || canonjson.BytesDigest(entryJSON) != tr.InclusionProofSha256 {
		t.Fatalf("reference %+v", tr)
	}

	// Verified offline by verify-rekor-entry against a policy naming the
	// Rekor log key.
	d := trustpolicy.New(attesttest.TrustPolicyID, "2026-01-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z")
	d.AddSigner(trustpolicy.Signer{Name: "signer-one", Identity: attesttest.IdentityOne, Roles: []string{trustpolicy.RoleSigner},
		PublicKey: base64.StdEncoding.EncodeToString(ed25519strict.MarshalSPKI(attesttest.TestOnlyKeyOne().Public().(ed25519.PublicKey)))})
	d.Transparency = &trustpolicy.Transparency{TLogPolicy: "log " + srv.Log.VKey + "\nquorum none\n"}
	policy := write(t, dir, "policy.json", pretty(t, d.Value()))
	stdout, stderr, code = runCLI("verify-rekor-entry", entry, "--bundle", bundlePath, "--policy", policy)
	if code != exitValid || !strings.Contains(stdout, `"valid":true`) {
		t.Fatalf("verify-rekor-entry: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// And as the reference of an attestation: TRANSPARENCY_RECORDED.
	_, b, _ := canonjson.ReadFile(bundlePath)
	o := attesttest.Options(attesttest.IdentityOne)
	o.Transparency = &tr
	env, err := attest.Sign(b, attesttest.TestOnlyKeyOne(), o)
	if err != nil {
		t.Fatal(err)
	}
	attested := write(t, dir, "attested.json", pretty(t, attest.Wrap(b, attest.TransparencyRecorded, env)))
	stdout, stderr, code = runCLI("attest", "verify", attested, "--policy", policy, "--evaluated-at", attesttest.EvaluatedAt)
	if code != exitValid || !strings.Contains(stdout, `"authenticityClassification":"TRANSPARENCY_RECORDED"`) {
		t.Fatalf("attest verify: exit %d\n%s\n%s", code, stdout, stderr)
	}

	// The attested bundle logs its embedded bundle: the same entry, which
	// Rekor already holds (409).
	_, stderr, code = runRekorCLI("rekor", "upload", "--rekor-url", srv.URL, "--key", key, attested, "-o", filepath.Join(dir, "ref2.json"))
	if code != exitInput || !strings.Contains(stderr, "already holds this entry") {
		t.Errorf("second upload: exit %d, %s", code, stderr)
	}
}

// Refusals happen before anything is sent.
func TestRekorUploadRefusals(t *testing.T) {
	srv := rekorfake.New(t)
	dir := t.TempDir()
	good := write(t, dir, "bundle.json", pretty(t, bundletest.Example(t)))
	invalid := bundletest.Example(t)
	invalid.Path("integrity").Get("bundleDigest").Str = strings.Repeat("0", 64)
	bad := write(t, dir, "invalid.json", pretty(t, invalid))
	key := writeKeyPEM(t, dir, attesttest.TestOnlyKeyOne())
	pubPEM, err := keyfile.MarshalPublicKeyPEM(attesttest.TestOnlyKeyOne().Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	pub := write(t, dir, "key.pub", pubPEM)
	// An attested bundle whose bundle is valid but whose envelope does not
	// verify: refused as mcpres's log refuses it (tlog/admit).
	signed, err := attest.SignBundle(bundletest.Example(t), attesttest.TestOnlyKeyOne(), attest.BundleSignOptions{SignOptions: attesttest.Options(attesttest.IdentityOne)})
	if err != nil {
		t.Fatal(err)
	}
	forged := signed.Attested.Clone()
	forged.Path("authenticity", "envelopes").Items[0].Get("signatures").Items[0].Set("keyid", canonjson.NewString(strings.Repeat("0", 64)))
	badWrapper := write(t, dir, "forged.json", pretty(t, forged))
	existing := write(t, dir, "existing.json", []byte("{}"))
	out := filepath.Join(dir, "out.json")
	t.Setenv("MCPRES_TEST_PEM", "")
	tests := []struct {
		name string
		code int
		msg  string
		args []string
	}{
		{"invalid evidence", exitInvalid, "refusing to log invalid evidence", []string{"--key", key, bad, "-o", out}},
		{"an attested bundle that does not verify", exitInvalid, "refusing to log invalid evidence", []string{"--key", key, badWrapper, "-o", out}},
		{"existing output", exitInput, "refusing to overwrite " + existing, []string{"--key", key, good, "-o", existing}},
		{"entry mismatch", exitInput, "not " + strings.Repeat("ab", 32) + " as the caller computed", []string{"--key", key, good, "-o", out, "--expect-entry-sha256", strings.Repeat("ab", 32)}},
		{"missing key", exitInput, "--key is required", []string{good, "-o", out}},
		{"empty key variable", exitInput, "environment variable MCPRES_TEST_PEM is not set or empty", []string{"--key", "env:MCPRES_TEST_PEM", good, "-o", out}},
		// Every key reference goes through keyref: a key in a token or an
		// agent is refused before it is opened, saying why (Ed25519ph).
		{"pkcs11 key", exitInput, "cannot sign Ed25519ph (prehashed): a Rekor hashedrekord entry is signed with Ed25519ph; give a key file", []string{"--key", "pkcs11:token=release;object=signer", good, "-o", out}},
		{"ssh-agent key", exitInput, "cannot sign Ed25519ph", []string{"--key", "ssh-agent:SHA256:drkQ9HwGr4rF65cNzP51OzueWeLcXTBa7D617NNI7rM", good, "-o", out}},
		{"a look-alike reference", exitInput, "malformed key reference", []string{"--key", "PKCS11:token=t", good, "-o", out}},
		{"a public key", exitInput, "this is a PEM public key (NAME.pub of `mcpres key generate`)", []string{"--key", pub, good, "-o", out}},
		{"not a key", exitInput, "private key " + good, []string{"--key", good, good, "-o", out}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"rekor", "upload", "--rekor-url", srv.URL}, tt.args...)
			_, stderr, code := runRekorCLI(args...)
			if code != tt.code || !strings.Contains(stderr, tt.msg) {
				t.Fatalf("exit %d, stderr %q; want %d with %q", code, stderr, tt.code, tt.msg)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("output written")
			}
		})
	}
	if srv.Requests != 0 {
		t.Errorf("%d requests reached Rekor", srv.Requests)
	}
	// A key in an environment variable works.
	pemData, _ := os.ReadFile(key)
	t.Setenv("MCPRES_TEST_PEM", string(pemData))
	if _, stderr, code := runRekorCLI("rekor", "upload", "--rekor-url", srv.URL, "--key", "env:MCPRES_TEST_PEM", good, "-o", out); code != exitValid {
		t.Errorf("upload with env:NAME: exit %d, %s", code, stderr)
	}
	// An encrypted key takes its passphrase as mcpres does: cosign's
	// $COSIGN_PASSWORD when $MCPRES_PASSWORD is unset (it was read only
	// from $MCPRES_PASSWORD here); a wrong one is refused (the control).
	encPEM, err := keyfile.MarshalEncryptedPrivateKeyPEM(attesttest.TestOnlyKeyOne(), []byte("s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	enc := write(t, dir, "enc.key", encPEM)
	t.Setenv("MCPRES_PASSWORD", "unset below") // restored after the test
	os.Unsetenv("MCPRES_PASSWORD")
	t.Setenv("COSIGN_PASSWORD", "wrong")
	if _, stderr, code := runRekorCLI("rekor", "upload", "--rekor-url", srv.URL, "--key", enc, good, "-o", filepath.Join(dir, "enc-wrong.json")); code != exitInput || !strings.Contains(stderr, "wrong passphrase") {
		t.Errorf("wrong $COSIGN_PASSWORD: exit %d, %s", code, stderr)
	}
	t.Setenv("COSIGN_PASSWORD", "s3cret")
	if _, stderr, code := runRekorCLI("rekor", "upload", "--rekor-url", srv.URL, "--key", enc, good, "-o", filepath.Join(dir, "enc.json"), "--force"); code != exitInput || !strings.Contains(stderr, "already holds this entry") {
		t.Errorf("encrypted key with $COSIGN_PASSWORD: exit %d, %s (want the key to open and Rekor to answer)", code, stderr)
	}
}
