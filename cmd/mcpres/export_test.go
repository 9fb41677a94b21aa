package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/attest/sigstore"
	"github.com/mcpres/mcpres/canonjson"
	sgbundle "github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/signature"
)

var exportFixtures = filepath.Join("..", "..", "testdata", "attestation")

// requireExport fails with instructions when `attest export` is not wired
// into the command tree.
func requireExport(t *testing.T) {
	t.Helper()
	a := &app{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	cmd, _, err := a.rootCommand().Find([]string{"attest", "export"})
	if err != nil || cmd.Name() != "export" {
		t.Fatal("`mcpres attest export` is not registered: add a.attestExportCommand() to the AddCommand call of attestCommand (cmd/mcpres/attest.go)")
	}
}

// verifyWithSigstoreGo loads a Sigstore bundle file with sigstore-go and
// verifies it offline with pub as the only trusted key, registered under
// hint, against the in-toto subject digest.
func verifyWithSigstoreGo(t *testing.T, path, hint string, pub ed25519.PublicKey, subjectSHA256 string) error {
	t.Helper()
	b, err := sgbundle.LoadJSONFromPath(path)
	if err != nil {
		return err
	}
	sv, err := signature.LoadED25519Verifier(pub)
	if err != nil {
		t.Fatal(err)
	}
	trusted := root.NewTrustedPublicKeyMaterialFromMapping(map[string]*root.ExpiringKey{
		hint: root.NewExpiringKey(sv, time.Time{}, time.Time{}),
	})
	v, err := verify.NewVerifier(trusted, verify.WithNoObserverTimestamps())
	if err != nil {
		t.Fatal(err)
	}
	digest, err := hex.DecodeString(subjectSHA256)
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.Verify(b, verify.NewPolicy(verify.WithArtifactDigest("sha256", digest), verify.WithKey()))
	return err
}

// Each envelope of a witnessed bundle becomes a Sigstore bundle that
// sigstore-go verifies with its signer's key, and only with it.
func TestCLIAttestExportSigstoreBundle(t *testing.T) {
	requireExport(t)
	in := filepath.Join(exportFixtures, "witnessed.json")
	_, doc, err := canonjson.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	subject := doc.Path("bundle", "evidence", "subject", "artifactSha256").Str
	keys := []ed25519.PrivateKey{attesttest.TestOnlyKeyOne(), attesttest.TestOnlyKeyTwo()}
	pub := func(k ed25519.PrivateKey) ed25519.PublicKey { return k.Public().(ed25519.PublicKey) }
	dir := t.TempDir()
	for i, idx := range []string{"0", "1"} {
		out := filepath.Join(dir, "envelope-"+idx+".sigstore.json")
		stdout, stderr, code := runCLI(t, "attest", "export", "--sigstore-bundle", idx, "-o", out, in)
		if code != exitValid || stdout != "" || withoutWrote(stderr) != "" {
			t.Fatalf("envelope %s: exit %d, stdout %q, stderr %q", idx, code, stdout, stderr)
		}
		written, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		b, err := sigstore.ExportBundle(doc.Path("authenticity", "envelopes").Items[i])
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := canonjson.Pretty(b); !bytes.Equal(written, want) {
			t.Errorf("envelope %s: wrote\n%s\nwant\n%s", idx, written, want)
		}
		hint := attesttest.KeyID(keys[i])
		if got := b.Path("verificationMaterial", "publicKey", "hint").Str; got != hint {
			t.Errorf("envelope %s: hint %s, want the signer's fingerprint %s", idx, got, hint)
		}
		if err := verifyWithSigstoreGo(t, out, hint, pub(keys[i]), subject); err != nil {
			t.Errorf("envelope %s: sigstore-go rejects the exported bundle: %v", idx, err)
		}
		if err := verifyWithSigstoreGo(t, out, hint, pub(keys[1-i]), subject); err == nil {
			t.Errorf("envelope %s: sigstore-go accepts the exported bundle with the other signer's key", idx)
		}
	}
}

func TestCLIAttestExportErrors(t *testing.T) {
	requireExport(t)
	dir := t.TempDir()
	witnessed := filepath.Join(exportFixtures, "witnessed.json")
	_, doc, err := canonjson.ReadFile(witnessed)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, v *canonjson.Value) string {
		data, err := canonjson.Pretty(v)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Not producible by mcpres: one envelope holding both signatures.
	two := doc.Clone()
	envs := two.Path("authenticity", "envelopes")
	sigs := envs.Items[0].Get("signatures")
	sigs.Items = append(sigs.Items, envs.Items[1].Get("signatures").Items[0])
	envs.Items = envs.Items[:1]
	twoSigs := write("two-signatures.json", two)
	plain := write("plain-bundle.json", doc.Get("bundle"))
	dupKey := filepath.Join(dir, "dup.json")
	os.WriteFile(dupKey, []byte(`{"a":1,"a":2}`), 0o644)
	existing := filepath.Join(dir, "existing.json")
	os.WriteFile(existing, []byte("keep\n"), 0o644)
	out := filepath.Join(dir, "out.json")
	// An attested bundle whose envelopes are not an array.
	noEnvs := doc.Clone()
	noEnvs.Get("authenticity").Set("envelopes", canonjson.NewObject())
	notArray := write("envelopes-object.json", noEnvs)
	// A copy of the witnessed bundle with a folder where its Sigstore
	// bundle would be kept.
	beside := write("beside.json", doc)
	if err := os.Mkdir(sigstore.MaterialName(beside, 1), 0o755); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		args   []string
		stdout string // substring of stdout ("" means empty stdout)
		stderr string // substring of stderr
		usage  bool   // the usage text follows the error
	}{
		{"index out of range", []string{"--sigstore-bundle", "2", "-o", out, witnessed}, "",
			"envelope index 2 is out of range: " + witnessed + " holds 2 envelope(s), indexes 0 to 1", false},
		{"two signatures in one envelope", []string{"--sigstore-bundle", "0", "-o", out, twoSigs}, "",
			"envelope 0: envelope cannot be exported as a Sigstore bundle: a Sigstore bundle carries exactly one DSSE signature; the envelope has 2", false},
		{"unsigned bundle", []string{"--sigstore-bundle", "0", "-o", out, filepath.Join(exportFixtures, "unsigned-integrity-only.json")}, "",
			"holds no envelopes (it is unsigned): there is nothing to export", false},
		{"broken envelope", []string{"--sigstore-bundle", "0", "-o", out, filepath.Join(exportFixtures, "altered-payload.json")}, "",
			"the signature does not verify over the payload", false},
		{"not an attested bundle", []string{"--sigstore-bundle", "0", "-o", out, plain}, "",
			"is not an attested conformance bundle", false},
		{"unreadable input", []string{"--sigstore-bundle", "0", "-o", out, dupKey}, "INPUT INVALID MCP_RES_INPUT_INVALID: duplicate key", "", false},
		{"existing output", []string{"--sigstore-bundle", "0", "-o", existing, witnessed}, "",
			"refusing to overwrite " + existing + " (use --force to replace it)", false},
		{"output is the input", []string{"--sigstore-bundle", "0", "-o", witnessed, witnessed}, "",
			"it is an input of this command", false},
		{"envelopes not an array", []string{"--sigstore-bundle", "0", "-o", out, notArray}, "",
			notArray + ": authenticity.envelopes is missing or not an array", false},
		{"a folder where a Sigstore bundle is kept", []string{"--sigstore-bundle", "0", "-o", out, beside}, "",
			"Sigstore bundle " + sigstore.MaterialName(beside, 1) + ": ", false},
		{"negative index", []string{"--sigstore-bundle", "-1", "-o", out, witnessed}, "", "envelope index -1 is negative", true},
		{"index not a number", []string{"--sigstore-bundle", "first", "-o", out, witnessed}, "", `invalid argument "first"`, true},
		{"no index", []string{"-o", out, witnessed}, "", "--sigstore-bundle ENVELOPE_INDEX is required", true},
		{"no output", []string{"--sigstore-bundle", "0", witnessed}, "", "-o/--output is required", true},
		{"no input", []string{"--sigstore-bundle", "0", "-o", out}, "", "accepts 1 arg(s), received 0", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, append([]string{"attest", "export"}, tt.args...)...)
			if code != exitInput {
				t.Errorf("exit %d, want 2", code)
			}
			if (tt.stdout == "") != (stdout == "") || !strings.Contains(stdout, tt.stdout) {
				t.Errorf("stdout %q, want %q", stdout, tt.stdout)
			}
			if !strings.Contains(stderr, tt.stderr) || strings.Contains(stderr, usagePointer) != tt.usage {
				t.Errorf("stderr %q, want it to contain %q (usage text: %t)", stderr, tt.stderr, tt.usage)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written", out)
			}
		})
	}
	if data, _ := os.ReadFile(existing); string(data) != "keep\n" {
		t.Errorf("existing output was replaced without --force: %q", data)
	}
	if _, stderr, code := runCLI(t, "attest", "export", "--sigstore-bundle", "1", "--force", "-o", existing, witnessed); code != exitValid {
		t.Errorf("--force: exit %d, stderr %q", code, stderr)
	}
	if data, _ := os.ReadFile(existing); !bytes.Contains(data, []byte(sigstore.MediaType)) {
		t.Errorf("--force did not replace the output: %q", data)
	}
}

// A Sigstore bundle kept beside the attested bundle that carries the
// envelope (a keyless signature's material) is exported unchanged; the
// control: one that carries another envelope is not, and the envelope is
// exported in the public-key form.
func TestAttestExportKeylessMaterial(t *testing.T) {
	d := t.TempDir()
	att := filepath.Join(d, "w.json")
	data, err := os.ReadFile(filepath.Join(exportFixtures, "witnessed.json"))
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, d, "w.json", data, 0o644)
	plain := filepath.Join(d, "plain0.json")
	runExpect(t, exitValid, "attest", "export", "--sigstore-bundle", "0", "-o", plain, att)
	// Material of envelope 0, marked so that a copy is recognisable.
	_, v, err := canonjson.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	v.Set("zMarker", canonjson.NewString("kept beside"))
	kept, _ := canonjson.Pretty(v)
	writeTestFile(t, d, "w.json.sigstore.2.json", kept, 0o644)
	writeTestFile(t, d, "w.json.sigstore.json", []byte(`{"mediaType":"`+sigstore.MediaType+`"}`), 0o644)
	out0, out1 := filepath.Join(d, "out0.json"), filepath.Join(d, "out1.json")
	_, stderr, code := runCLI(t, "attest", "export", "--sigstore-bundle", "0", "-o", out0, att)
	if got, _ := os.ReadFile(out0); code != exitValid || !bytes.Equal(got, kept) || !strings.Contains(stderr, "copied from "+filepath.Join(d, "w.json.sigstore.2.json")) {
		t.Fatalf("envelope 0: exit %d, copied %t\n%s", code, bytes.Equal(got, kept), stderr)
	}
	runExpect(t, exitValid, "attest", "export", "--sigstore-bundle", "1", "-o", out1, att)
	if got, _ := os.ReadFile(out1); bytes.Contains(got, []byte("zMarker")) {
		t.Error("envelope 1 was exported as envelope 0's material")
	}
}
