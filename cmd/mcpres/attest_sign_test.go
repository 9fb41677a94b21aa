package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/keyfile"
)

// writeTestFile writes data to dir/name with mode (chmod'ed, so the umask
// does not narrow it) and returns the path.
func writeTestFile(t testing.TB, dir, name string, data []byte, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeTestKey writes priv as an unencrypted PKCS#8 PEM file, mode 0600.
// Only the public RFC 8032 test keys are ever written (attesttest).
func writeTestKey(t testing.TB, dir, name string, priv ed25519.PrivateKey) string {
	t.Helper()
	data, err := keyfile.MarshalPrivateKeyPEM(priv)
	if err != nil {
		t.Fatal(err)
	}
	return writeTestFile(t, dir, name, data, 0o600)
}

func writePretty(t testing.TB, dir, name string, v *canonjson.Value) string {
	t.Helper()
	data, err := canonjson.Pretty(v)
	if err != nil {
		t.Fatal(err)
	}
	return writeTestFile(t, dir, name, data, 0o644)
}

// exampleBundleFile writes the sealed example bundle, the base bundle of the
// committed attestation corpus.
func exampleBundleFile(t testing.TB, dir string) string {
	t.Helper()
	return writePretty(t, dir, "bundle.json", bundletest.Example(t))
}

// signArgs is `attest sign` with the corpus constants (REFERENCE §9.4), so
// that outputs are deterministic.
func signArgs(in, key, identity, out string, extra ...string) []string {
	args := []string{"attest", "sign", in, "--key", key, "--identity", identity,
		"--policy-id", attesttest.TrustPolicyID, "--signing-time", attesttest.SigningTime, "-o", out}
	return append(args, extra...)
}

// snapshot returns every entry of dir (recursively) with its content, to
// prove that a failing command wrote nothing, not even a temporary file.
func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		content := info.Mode().String()
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			content += " " + string(b)
		}
		files[rel] = content
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func assertUnchanged(t testing.TB, dir string, before map[string]string) {
	t.Helper()
	after := snapshot(t, dir)
	for name, content := range after {
		if old, ok := before[name]; !ok {
			t.Errorf("%s was created by a failing command", name)
		} else if old != content {
			t.Errorf("%s was modified by a failing command", name)
		}
	}
	for name := range before {
		if _, ok := after[name]; !ok {
			t.Errorf("%s was removed by a failing command", name)
		}
	}
}

// verifyFile runs `attest verify` and returns the result object.
func verifyFile(t testing.TB, path, policy string) (*canonjson.Value, int) {
	t.Helper()
	args := []string{"attest", "verify", "--evaluated-at", attesttest.EvaluatedAt}
	if policy != "" {
		args = append(args, "--policy", policy, "--subject-name", exampleSubjectName)
	}
	stdout, stderr, code := runCLI(t, append(args, path)...)
	if stderr != verifyStderr(policy) {
		t.Errorf("attest verify %s: stderr %q", path, stderr)
	}
	line, _ := strings.CutSuffix(stdout, "\n")
	v, err := canonjson.Parse([]byte(line))
	if err != nil {
		t.Fatalf("attest verify %s: stdout is not JSON: %v\n%s", path, err, stdout)
	}
	return v, code
}

func wantLevel(t testing.TB, path, policy, level string) {
	t.Helper()
	res, code := verifyFile(t, path, policy)
	if code != exitValid || strOf(res.Get("authenticityClassification")) != level {
		t.Errorf("attest verify %s: exit %d, result %v; want valid %s", path, code, mustCompact(res), level)
	}
}

func mustCompact(v *canonjson.Value) string {
	b, _ := canonjson.Compact(v)
	return string(b)
}

func readJSON(t testing.TB, path string) *canonjson.Value {
	t.Helper()
	_, v, err := canonjson.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

var fingerprintLine = regexp.MustCompile(`^[0-9a-f]{64}\n$`)

// `key generate --out-base NAME` writes NAME.key (PKCS#8 PEM, mode 0600) and
// NAME.pub (SPKI PEM), prints the fingerprint, and never overwrites either
// file.
func TestCLIKeyGenerate(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "release")
	stdout, stderr, code := runCLI(t, "key", "generate", "--out-base", name)
	if code != exitValid || withoutWrote(stderr) != "" || !fingerprintLine.MatchString(stdout) {
		t.Fatalf("exit %d, stdout %q, stderr %q; want the fingerprint", code, stdout, stderr)
	}
	fp := strings.TrimSuffix(stdout, "\n")

	info, err := os.Lstat(name + ".key")
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 || !info.Mode().IsRegular() {
		t.Errorf("NAME.key mode %v, want a regular file with mode 0600", info.Mode())
	}
	keyPEM, _ := os.ReadFile(name + ".key")
	pubPEM, _ := os.ReadFile(name + ".pub")
	if !bytes.HasPrefix(keyPEM, []byte("-----BEGIN PRIVATE KEY-----\n")) {
		t.Errorf("NAME.key is not an unencrypted PKCS#8 PEM block:\n%s", keyPEM)
	}
	priv, err := keyfile.ParsePrivateKeyPEM(keyPEM, nil)
	if err != nil {
		t.Fatalf("NAME.key does not parse: %v", err)
	}
	pub, err := keyfile.ParsePublicKeyPEM(pubPEM)
	if err != nil {
		t.Fatalf("NAME.pub does not parse: %v", err)
	}
	if !pub.Equal(priv.Public()) {
		t.Errorf("NAME.pub is not the public half of NAME.key")
	}
	if got := ed25519strict.SPKIFingerprint(ed25519strict.MarshalSPKI(pub)); got != fp {
		t.Errorf("printed fingerprint %s, key id of NAME.pub %s", fp, got)
	}
	for _, f := range []string{name + ".pub", name + ".key"} {
		out, stderr, code := runCLI(t, "key", "fingerprint", f)
		if code != exitValid || out != fp+"\n" || stderr != "" {
			t.Errorf("key fingerprint %s: exit %d, %q %q; want %s", filepath.Base(f), code, out, stderr, fp)
		}
	}

	t.Run("refuses to overwrite both", func(t *testing.T) {
		before := snapshot(t, dir)
		stdout, stderr, code := runCLI(t, "key", "generate", "--out-base", name)
		if code != exitInput || stdout != "" || !strings.Contains(stderr, "refusing to overwrite") {
			t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
		assertUnchanged(t, dir, before)
	})
	for _, existing := range []string{".key", ".pub"} {
		t.Run("refuses when only NAME"+existing+" exists", func(t *testing.T) {
			dir := t.TempDir()
			name := filepath.Join(dir, "k")
			writeTestFile(t, dir, "k"+existing, []byte("precious\n"), 0o600)
			before := snapshot(t, dir)
			stdout, stderr, code := runCLI(t, "key", "generate", "--out-base", name)
			if code != exitInput || stdout != "" || !strings.Contains(stderr, "refusing to overwrite") {
				t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			assertUnchanged(t, dir, before)
		})
	}
	t.Run("refuses a dangling symlink at NAME.key", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Symlink(filepath.Join(dir, "elsewhere"), filepath.Join(dir, "k.key")); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, dir)
		_, stderr, code := runCLI(t, "key", "generate", "--out-base", filepath.Join(dir, "k"))
		if code != exitInput || !strings.Contains(stderr, "it is a symbolic link") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
		assertUnchanged(t, dir, before)
	})
	t.Run("--out-base is required", func(t *testing.T) {
		stdout, stderr, code := runCLI(t, "key", "generate")
		if code != exitInput || stdout != "" || !strings.Contains(stderr, "--out-base NAME is required") || !strings.Contains(stderr, usagePointer) {
			t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
	})
}

// secretsOf lists strings that must never appear in any output: the
// passphrases and every encoding of the private key.
func secretsOf(t testing.TB, keyPEM []byte, priv ed25519.PrivateKey, passphrases ...string) []string {
	t.Helper()
	secrets := slices.Clone(passphrases)
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{priv.Seed(), priv, der} {
		secrets = append(secrets, hex.EncodeToString(b), base64.StdEncoding.EncodeToString(b), base64.RawStdEncoding.EncodeToString(b))
	}
	for _, line := range strings.Split(string(keyPEM), "\n") {
		if len(line) >= 16 && !strings.HasPrefix(line, "-----") {
			secrets = append(secrets, line)
		}
	}
	return secrets
}

func assertNoSecrets(t testing.TB, what, output string, secrets []string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(output, s) {
			t.Errorf("%s leaks a secret (%d bytes starting %.4q...)", what, len(s), s)
		}
	}
}

// `key generate --encrypt` with $MCPRES_PASSWORD writes a cosign-format
// encrypted key that `attest sign` reads with the same variable; a wrong
// passphrase fails without writing anything and without any secret in the
// messages.
func TestCLIEncryptedKeyAndWrongPassword(t *testing.T) {
	const pass = "test-only passphrase: correct horse battery staple"
	const wrong = "test-only wrong passphrase: Tr0ub4dor&3"
	t.Setenv(cli.EnvPassword, pass)
	dir := t.TempDir()
	name := filepath.Join(dir, "enc")
	stdout, stderr, code := runCLI(t, "key", "generate", "--encrypt", "--out-base", name)
	if code != exitValid || withoutWrote(stderr) != "" || !fingerprintLine.MatchString(stdout) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	fp := strings.TrimSuffix(stdout, "\n")
	keyPEM, err := os.ReadFile(name + ".key")
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Lstat(name + ".key"); info.Mode().Perm() != 0o600 {
		t.Errorf("encrypted key mode %v, want 0600", info.Mode())
	}
	if !bytes.HasPrefix(keyPEM, []byte("-----BEGIN "+keyfile.PEMTypeEncryptedSigstore+"-----\n")) {
		t.Fatalf("not an encrypted sigstore key:\n%s", keyPEM)
	}
	if _, err := keyfile.ParsePrivateKeyPEM(keyPEM, nil); !errors.Is(err, keyfile.ErrPassphraseRequired) {
		t.Errorf("parsing without a passphrase: %v, want ErrPassphraseRequired", err)
	}
	priv, err := keyfile.ParsePrivateKeyPEM(keyPEM, func() ([]byte, error) { return []byte(pass), nil })
	if err != nil {
		t.Fatalf("decrypting with the passphrase: %v", err)
	}
	if got := ed25519strict.SPKIFingerprint(ed25519strict.MarshalSPKI(priv.Public().(ed25519.PublicKey))); got != fp {
		t.Errorf("printed fingerprint %s, decrypted key's %s", fp, got)
	}
	secrets := secretsOf(t, keyPEM, priv, pass, wrong)

	in := exampleBundleFile(t, dir)
	out := filepath.Join(dir, "signed.json")
	stdout, stderr, code = runCLI(t, signArgs(in, name+".key", attesttest.IdentityOne, out)...)
	if code != exitValid {
		t.Fatalf("attest sign with $%s: exit %d, stdout %q, stderr %q", cli.EnvPassword, code, stdout, stderr)
	}
	assertNoSecrets(t, "attest sign", stdout+stderr, secrets)
	wantLevel(t, out, "", "SIGNED")
	if got := readJSON(t, out).Path("authenticity", "envelopes").Items[0].Get("signatures").Items[0].Get("keyid").Str; got != fp {
		t.Errorf("envelope keyid %s, want the generated key's %s", got, fp)
	}

	t.Run("wrong passphrase", func(t *testing.T) {
		t.Setenv(cli.EnvPassword, wrong)
		before := snapshot(t, dir)
		out := filepath.Join(dir, "signed-wrong.json")
		stdout, stderr, code := runCLI(t, signArgs(in, name+".key", attesttest.IdentityOne, out)...)
		if code == exitValid || !strings.Contains(stderr, "wrong passphrase") {
			t.Errorf("exit %d, stdout %q, stderr %q; want a failure naming the wrong passphrase", code, stdout, stderr)
		}
		assertNoSecrets(t, "attest sign with a wrong passphrase", stdout+stderr, secrets)
		assertUnchanged(t, dir, before)

		stdout, stderr, code = runCLI(t, "key", "fingerprint", name+".key")
		if code == exitValid {
			t.Errorf("key fingerprint with a wrong passphrase succeeded: %q", stdout)
		}
		assertNoSecrets(t, "key fingerprint with a wrong passphrase", stdout+stderr, secrets)
	})
	t.Run("empty passphrase refused", func(t *testing.T) {
		t.Setenv(cli.EnvPassword, "")
		dir := t.TempDir()
		stdout, stderr, code := runCLI(t, "key", "generate", "--encrypt", "--out-base", filepath.Join(dir, "k"))
		if code != exitInput || stdout != "" || !strings.Contains(stderr, cli.EnvPassword) {
			t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("files written: %v", entries)
		}
	})
}

// A private key readable by group or others still signs, with a warning.
func TestCLIAttestSignWarnsOnReadableKey(t *testing.T) {
	dir := t.TempDir()
	in := exampleBundleFile(t, dir)
	for _, tc := range []struct {
		mode os.FileMode
		warn bool
	}{{0o600, false}, {0o400, false}, {0o640, true}, {0o604, true}, {0o644, true}} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			key := writeTestKey(t, dir, "key-"+tc.mode.String()[1:]+".pem", attesttest.TestOnlyKeyOne())
			if err := os.Chmod(key, tc.mode); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out-"+tc.mode.String()[1:]+".json")
			_, stderr, code := runCLI(t, signArgs(in, key, attesttest.IdentityOne, out)...)
			if code != exitValid {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			warned := strings.Contains(stderr, "warning") && strings.Contains(stderr, "readable by other users")
			if warned != tc.warn || (!tc.warn && withoutWrote(stderr) != "") {
				t.Errorf("mode %v: stderr %q, want a warning: %t", tc.mode, stderr, tc.warn)
			}
			wantLevel(t, out, "", "SIGNED")
		})
	}
}

// With the RFC 8032 test keys and the corpus constants, `attest sign`
// reproduces the committed corpus byte for byte: signing, the default
// claim SIGNED, co-signing up to WITNESSED, and a transparency reference.
// Every output verifies with `attest verify`.
func TestCLIAttestSignReproducesCorpus(t *testing.T) {
	dir := t.TempDir()
	in := exampleBundleFile(t, dir)
	one := writeTestKey(t, dir, "one.pem", attesttest.TestOnlyKeyOne())
	two := writeTestKey(t, dir, "two.pem", attesttest.TestOnlyKeyTwo())
	ref := writePretty(t, dir, "ref.json", mustFromGo(t, attesttest.TestTransparency()))
	p := func(name string) string { return filepath.Join(dir, name) }
	steps := []struct {
		name, corpusCase string
		args             []string
	}{
		{"default claim SIGNED", "signed-untrusted-allowed-at-signed-level",
			signArgs(in, one, attesttest.IdentityOne, p("signed.json"))},
		{"claim SIGNED_WITH_IDENTITY", "signed-with-identity",
			signArgs(in, one, attesttest.IdentityOne, p("identity.json"), "--claim", "SIGNED_WITH_IDENTITY")},
		{"co-sign to WITNESSED", "witnessed",
			signArgs(p("identity.json"), two, attesttest.IdentityTwo, p("witnessed.json"), "--claim", "WITNESSED")},
		{"transparency reference", "transparency-recorded",
			signArgs(in, one, attesttest.IdentityOne, p("tlog.json"), "--claim", "TRANSPARENCY_RECORDED", "--transparency", ref)},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, s.args...)
			// The corpus reference is opaque (not a tlog-proof): signing
			// warns that only its digest could be checked.
			opaqueWarning := s.corpusCase == "transparency-recorded" && strings.Contains(stderr, "only its SHA-256 was checked")
			if code != exitValid || stdout != "" || (withoutWrote(stderr) != "" && !opaqueWarning) {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			out := s.args[slices.Index(s.args, "-o")+1]
			got, _ := os.ReadFile(out)
			want, err := os.ReadFile(filepath.Join(attestDir, s.corpusCase+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from testdata/attestation/%s.json", filepath.Base(out), s.corpusCase)
			}
			c := readJSON(t, filepath.Join(attestDir, "catalog.json"))
			var policy, level string
			for _, e := range c.Get("cases").Items {
				if e.Get("id").Str == s.corpusCase {
					if pol := e.Get("trustPolicy"); pol.Is(canonjson.String) {
						policy = filepath.Join(attestDir, pol.Str)
					}
					level = strOf(e.Get("authenticityClassification"))
				}
			}
			wantLevel(t, out, policy, level)
		})
	}
	if claim := readJSON(t, p("signed.json")).Path("authenticity", "claimedClassification"); strOf(claim) != "SIGNED" {
		t.Errorf("default claim %v, want SIGNED", claim)
	}
}

func mustFromGo(t testing.TB, x any) *canonjson.Value {
	t.Helper()
	v, err := canonjson.FromGo(x)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Co-signing appends one envelope and keeps the claim unless --claim is
// given; a key that already signed is refused whatever --identity says, and
// an attested bundle that does not verify is never co-signed.
func TestCLIAttestCosign(t *testing.T) {
	dir := t.TempDir()
	in := exampleBundleFile(t, dir)
	one := writeTestKey(t, dir, "one.pem", attesttest.TestOnlyKeyOne())
	two := writeTestKey(t, dir, "two.pem", attesttest.TestOnlyKeyTwo())
	signed := filepath.Join(dir, "signed.json")
	if _, stderr, code := runCLI(t, signArgs(in, one, attesttest.IdentityOne, signed, "--claim", "SIGNED_WITH_IDENTITY")...); code != exitValid {
		t.Fatalf("sign: exit %d, %s", code, stderr)
	}
	cosigned := filepath.Join(dir, "cosigned.json")
	if _, stderr, code := runCLI(t, signArgs(signed, two, attesttest.IdentityTwo, cosigned)...); code != exitValid {
		t.Fatalf("co-sign: exit %d, %s", code, stderr)
	}
	before, after := readJSON(t, signed), readJSON(t, cosigned)
	envs := after.Path("authenticity", "envelopes").Items
	if len(envs) != 2 || !canonjson.Equal(envs[0], before.Path("authenticity", "envelopes").Items[0]) {
		t.Errorf("co-signing must append exactly one envelope after the unchanged first one; got %d envelopes", len(envs))
	}
	if !canonjson.Equal(after.Get("bundle"), before.Get("bundle")) {
		t.Errorf("co-signing changed the bundle")
	}
	if got := strOf(after.Path("authenticity", "claimedClassification")); got != "SIGNED_WITH_IDENTITY" {
		t.Errorf("co-signing without --claim changed the claim to %s", got)
	}
	policy := filepath.Join(attestDir, "witnessed.trust-policy.json")
	// Claim SIGNED_WITH_IDENTITY, derived level WITNESSED (REFERENCE §6.2).
	wantLevel(t, cosigned, policy, "WITNESSED")

	refusals := []struct {
		name, input, key, identity string
		code                       int
		stderr                     string
	}{
		{"same key, same identity", signed, one, attesttest.IdentityOne, exitInput, "already signed"},
		{"same key, other identity", signed, one, "test://mcp-res/disposable/someone-else", exitInput, "already signed"},
		{"second key again on a witnessed bundle", cosigned, two, "test://mcp-res/disposable/signer-three", exitInput, "already signed"},
		{"first key again on a witnessed bundle", cosigned, one, attesttest.IdentityTwo, exitInput, "already signed"},
		{"attested bundle with a broken signature", filepath.Join(attestDir, "altered-payload.json"), two, attesttest.IdentityTwo, exitInvalid, "does not verify"},
		{"attested bundle over invalid evidence", filepath.Join(attestDir, "valid-signature-invalid-evidence.json"), two, attesttest.IdentityTwo, exitInvalid, "does not verify"},
		{"attested bundle with a forged identity-key envelope", filepath.Join(attestDir, "identity-key-forgery.json"), two, attesttest.IdentityTwo, exitInvalid, "does not verify"},
	}
	for _, r := range refusals {
		t.Run(r.name, func(t *testing.T) {
			snap := snapshot(t, dir)
			out := filepath.Join(dir, "refused.json")
			_, stderr, code := runCLI(t, signArgs(r.input, r.key, r.identity, out, "--claim", "WITNESSED", "--force")...)
			if code != r.code || !strings.Contains(stderr, r.stderr) {
				t.Errorf("exit %d, stderr %q; want exit %d mentioning %q", code, stderr, r.code, r.stderr)
			}
			assertUnchanged(t, dir, snap)
		})
	}
}

// `attest sign` refuses invalid evidence (exit 1) and unreadable input
// (exit 2), and writes nothing.
func TestCLIAttestSignRefusesInvalidEvidence(t *testing.T) {
	dir := t.TempDir()
	key := writeTestKey(t, dir, "one.pem", attesttest.TestOnlyKeyOne())

	wrongReason := bundletest.Example(t)
	wrongReason.Path("evidence", "operations").Items[1].Get("negativeObservation").Set("observedStopReason", canonjson.NewString("WRONG_REASON"))
	if err := bundle.SealFrom(wrongReason, bundle.StageObservations); err != nil {
		t.Fatal(err)
	}
	tampered := bundletest.Example(t)
	tampered.Path("evidence", "subject").Set("name", canonjson.NewString("another-server"))
	unsealed := bundletest.Draft(t)

	tests := []struct {
		name   string
		input  string
		code   int
		stdout string
	}{
		{"wrong stop reason, resealed", writePretty(t, dir, "wrong-reason.json", wrongReason), exitInvalid, "MCP_RES_WRONG_STOP_REASON"},
		{"tampered after sealing", writePretty(t, dir, "tampered.json", tampered), exitInvalid, "INVALID MCP_RES_"},
		{"unsealed draft", writePretty(t, dir, "draft.json", unsealed), exitInvalid, "INVALID MCP_RES_"},
		{"not JSON", writeTestFile(t, dir, "broken.json", []byte(`{"schemaVersion":`), 0o644), exitInput, "MCP_RES_INPUT_INVALID"},
		{"missing", filepath.Join(dir, "missing.json"), exitInput, "MCP_RES_INPUT_INVALID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := snapshot(t, dir)
			stdout, stderr, code := runCLI(t, signArgs(tt.input, key, attesttest.IdentityOne, filepath.Join(dir, "out.json"), "--force")...)
			if code != tt.code || !strings.Contains(stdout, tt.stdout) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, stdout, stderr, tt.code, tt.stdout)
			}
			if tt.code == exitInvalid && !strings.Contains(stderr, "refusing to sign invalid evidence") {
				t.Errorf("stderr %q does not say the evidence is refused", stderr)
			}
			assertUnchanged(t, dir, before)
		})
	}
}

// The output is written only when it does not exist (or with --force), and
// never over one of the command's inputs, even with --force.
func TestCLIAttestSignOutputSafety(t *testing.T) {
	dir := t.TempDir()
	in := exampleBundleFile(t, dir)
	key := writeTestKey(t, dir, "one.pem", attesttest.TestOnlyKeyOne())
	two := writeTestKey(t, dir, "two.pem", attesttest.TestOnlyKeyTwo())
	signed := filepath.Join(dir, "signed.json")
	if _, stderr, code := runCLI(t, signArgs(in, key, attesttest.IdentityOne, signed)...); code != exitValid {
		t.Fatalf("sign: exit %d, %s", code, stderr)
	}

	t.Run("existing output without --force", func(t *testing.T) {
		out := writeTestFile(t, dir, "existing.json", []byte("precious\n"), 0o644)
		before := snapshot(t, dir)
		stdout, stderr, code := runCLI(t, signArgs(in, key, attesttest.IdentityOne, out)...)
		if code != exitInput || stdout != "" || !strings.Contains(stderr, "refusing to overwrite") || !strings.Contains(stderr, "--force") {
			t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
		assertUnchanged(t, dir, before)

		stdout, stderr, code = runCLI(t, signArgs(in, key, attesttest.IdentityOne, out, "--force")...)
		if code != exitValid || stdout != "" || withoutWrote(stderr) != "" {
			t.Fatalf("with --force: exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
		if got, want := snapshot(t, dir)["existing.json"], snapshot(t, dir)["signed.json"]; got != want {
			t.Errorf("--force did not replace the output with the attested bundle")
		}
		wantLevel(t, out, "", "SIGNED")
	})

	link := filepath.Join(dir, "link-to-bundle.json")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard-link-to-bundle.json")
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	inputs := []struct {
		name, input, key, out string
	}{
		{"the bundle itself", in, key, in},
		{"the bundle by another spelling", in, key, dir + "/./sub/../bundle.json"},
		{"a symlink to the bundle", in, key, link},
		{"a hard link to the bundle", in, key, hard},
		{"the private key", in, key, key},
		{"the attested input when co-signing", signed, two, signed},
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range inputs {
		for _, force := range []bool{false, true} {
			name := tt.name
			extra := []string{}
			if force {
				name += " with --force"
				extra = append(extra, "--force")
			}
			t.Run("never overwrites "+name, func(t *testing.T) {
				before := snapshot(t, dir)
				stdout, stderr, code := runCLI(t, signArgs(tt.input, tt.key, attesttest.IdentityTwo, tt.out, extra...)...)
				if code != exitInput || stdout != "" || !strings.Contains(stderr, "refusing to") {
					t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
				}
				if force && !strings.Contains(stderr, "input") {
					t.Errorf("with --force the refusal should say the output is an input: %q", stderr)
				}
				assertUnchanged(t, dir, before)
			})
		}
	}
	t.Run("--force refuses a symlink and leaves it and its target alone", func(t *testing.T) {
		victim := writeTestFile(t, dir, "victim.txt", []byte("precious\n"), 0o644)
		out := filepath.Join(dir, "out-link.json")
		if err := os.Symlink(victim, out); err != nil {
			t.Fatal(err)
		}
		if _, stderr, code := runCLI(t, signArgs(in, key, attesttest.IdentityOne, out, "--force")...); code != exitInput || !strings.Contains(stderr, "it is a symbolic link") {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		if got, _ := os.ReadFile(victim); string(got) != "precious\n" {
			t.Errorf("the symlink's target was written through")
		}
		if info, err := os.Lstat(out); err != nil || info.Mode()&os.ModeSymlink == 0 {
			t.Errorf("the symlink was replaced: %v %v", info, err)
		}
	})
	t.Run("relative output naming the input", func(t *testing.T) {
		t.Chdir(dir)
		before := snapshot(t, dir)
		_, stderr, code := runCLI(t, signArgs(in, key, attesttest.IdentityOne, "bundle.json", "--force")...)
		if code != exitInput || !strings.Contains(stderr, "input") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
		assertUnchanged(t, dir, before)
	})
}

// A transparency reference is checked before signing: its proof must be
// strict base64 whose SHA-256 is inclusionProofSha256 (REFERENCE §6.10).
func TestCLIAttestSignTransparency(t *testing.T) {
	dir := t.TempDir()
	in := exampleBundleFile(t, dir)
	key := writeTestKey(t, dir, "one.pem", attesttest.TestOnlyKeyOne())
	good := attesttest.TestTransparency()
	mismatch := *good
	mismatch.InclusionProofSha256 = canonjson.BytesDigest([]byte("another proof"))
	badBase64 := *good
	badBase64.InclusionProofBase64 = strings.TrimSuffix(good.InclusionProofBase64, "=") + "=="
	upper := *good
	upper.InclusionProofSha256 = strings.ToUpper(good.InclusionProofSha256)
	tests := []struct {
		name, ref, want string
	}{
		{"digest mismatch", writePretty(t, dir, "mismatch.json", mustFromGo(t, &mismatch)), "inclusionProofSha256"},
		{"upper-case digest", writePretty(t, dir, "upper.json", mustFromGo(t, &upper)), "inclusionProofSha256"},
		{"non-strict base64", writePretty(t, dir, "base64.json", mustFromGo(t, &badBase64)), "inclusionProofBase64"},
		{"missing file", filepath.Join(dir, "missing-ref.json"), "transparency reference"},
		{"not JSON", writeTestFile(t, dir, "broken-ref.json", []byte("{"), 0o644), "transparency reference"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := snapshot(t, dir)
			stdout, stderr, code := runCLI(t, signArgs(in, key, attesttest.IdentityOne, filepath.Join(dir, "out.json"), "--transparency", tt.ref, "--claim", "TRANSPARENCY_RECORDED", "--force")...)
			if code != exitInput || stdout != "" || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 naming %q", code, stdout, stderr, tt.want)
			}
			assertUnchanged(t, dir, before)
		})
	}
}

// Malformed command lines are usage errors: exit 2, usage on stderr,
// nothing on stdout, nothing written.
func TestCLIAttestSignUsageErrors(t *testing.T) {
	dir := t.TempDir()
	in := exampleBundleFile(t, dir)
	key := writeTestKey(t, dir, "one.pem", attesttest.TestOnlyKeyOne())
	out := filepath.Join(dir, "out.json")
	full := func(extra ...string) []string {
		return append([]string{"attest", "sign", in, "--key", key, "--identity", attesttest.IdentityOne, "--policy-id", attesttest.TrustPolicyID, "-o", out}, extra...)
	}
	without := func(flag string) []string {
		args := full()
		i := slices.Index(args, flag)
		return slices.Delete(args, i, i+2)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"leap-second signing time", full("--signing-time", "2026-12-31T23:59:60Z"), "--signing-time"},
		{"no such month", full("--signing-time", "2026-13-01T00:00:00Z"), "--signing-time"},
		{"date only", full("--signing-time", "2026-08-27"), "--signing-time"},
		{"no offset", full("--signing-time", "2026-08-27T18:00:00"), "--signing-time"},
		{"words", full("--signing-time", "yesterday"), "--signing-time"},
		{"unknown claim", full("--claim", "CERTIFIED"), "--claim"},
		{"lower-case claim", full("--claim", "signed"), "--claim"},
		{"no --key", without("--key"), "--key"},
		{"no --identity", without("--identity"), "--identity"},
		{"no --policy-id", without("--policy-id"), "--policy-id"},
		{"no output", without("-o"), "--output"},
		{"two inputs", append(full(), in), "accepts 1 arg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := snapshot(t, dir)
			stdout, stderr, code := runCLI(t, tt.args...)
			if code != exitInput || stdout != "" || !strings.Contains(stderr, tt.want) || !strings.Contains(stderr, usagePointer) {
				t.Errorf("exit %d, stdout %q, stderr %q; want a usage error naming %q", code, stdout, stderr, tt.want)
			}
			assertUnchanged(t, dir, before)
		})
	}
}

// `mcpres demo` runs the whole workflow to completion in a temporary folder
// it removes afterwards.
func TestCLIDemo(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	stdout, stderr, code := runCLI(t, "demo")
	if code != exitValid || stderr != "" {
		t.Fatalf("exit %d, stderr %q\n%s", code, stderr, stdout)
	}
	for _, want := range []string{
		// The policy is written with commands a reader can reuse.
		"\n$ mcpres policy init policy.json --id " + demoPolicyID + " --valid-from ",
		"\n$ mcpres policy add-signer policy.json --name producer --identity " + demoProducer + " --key producer.pub\n",
		"\n$ mcpres policy add-witness policy.json --name witness --identity " + demoWitness + " --key witness.pub\n",
		"VALID SIGNED_WITH_IDENTITY",
		"VALID WITNESSED",
		"INVALID MCP_RES_ATTESTED_EVIDENCE_INVALID",
		"logged as entry 0 of " + demoLogOrigin,
		"cosigned " + demoLogOrigin + " at size 1",
		"VALID TRANSPARENCY_RECORDED",
		"transparency VERIFIED_OFFLINE",
		"cosigned by " + demoLogWitness,
		"mcpres: wrote report.html: HTML report",
		"mcpres demo --report report.html",
		"## What next",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("demo output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "PRIVATE KEY") {
		t.Errorf("demo output shows a private key")
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("demo left %v in the temporary directory", entries)
	}

	// --report keeps the HTML report, and never replaces a file.
	out := filepath.Join(t.TempDir(), "demo.html")
	stdout, stderr, code = runCLI(t, "demo", "--report", out)
	if page, err := os.ReadFile(out); code != exitValid || err != nil || !bytes.Contains(page, []byte("TRANSPARENCY_RECORDED")) || !strings.Contains(stdout, "The HTML report is in "+out) {
		t.Errorf("demo --report: exit %d, stderr %q, report %v", code, stderr, err)
	}
	if _, _, code := runCLI(t, "demo", "--report", out); code == exitValid {
		t.Errorf("demo --report over an existing file: exit 0")
	}
}

// testOnlyKey returns a deterministic Ed25519 key derived from a fixed label.
// TEST-ONLY: anyone can recompute it.
func testOnlyKey(label string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("mcpres test-only key: " + label))
	return ed25519.NewKeyFromSeed(seed[:])
}

// `attest sign` must not write an attested bundle that can never verify
// (REFERENCE §3.2.2–§3.2.4 bounds): it exits non-zero and writes nothing.
func TestCLIAttestSignNeverWritesUnverifiable(t *testing.T) {
	dir := t.TempDir()
	in := exampleBundleFile(t, dir)
	key := writeTestKey(t, dir, "one.pem", attesttest.TestOnlyKeyOne())

	// Eight envelopes, the schema maximum, by eight distinct keys.
	example := bundletest.Example(t)
	var envs []*canonjson.Value
	for i := range 8 {
		env, err := attest.Sign(example, testOnlyKey(fmt.Sprint(i)), attesttest.Options(fmt.Sprintf("test://mcp-res/disposable/signer-%d", i)))
		if err != nil {
			t.Fatal(err)
		}
		envs = append(envs, env)
	}
	eight := writePretty(t, dir, "eight.json", attest.Wrap(example, attest.Signed, envs...))
	wantLevel(t, eight, "", "SIGNED")

	tests := []struct {
		name, bug string
		args      []string
	}{
		{"identity longer than 256 code points",
			"attest sign accepts --identity longer than 256 code points and writes a wrapper that fails the envelope schema (signerIdentity maxLength 256), exit 0",
			signArgs(in, key, strings.Repeat("x", 257), filepath.Join(dir, "long-identity.json"))},
		{"policy id longer than 128 code points",
			"attest sign accepts --policy-id longer than 128 code points and writes a wrapper whose statement fails its schema (trustPolicyId maxLength 128), exit 0",
			append(signArgs(in, key, attesttest.IdentityOne, filepath.Join(dir, "long-policy-id.json")), "--policy-id", strings.Repeat("p", 129))},
		{"ninth envelope",
			"co-signing an attested bundle that already holds 8 envelopes appends a 9th and writes a wrapper that fails the schema (envelopes maxItems 8), exit 0",
			signArgs(eight, key, attesttest.IdentityOne, filepath.Join(dir, "nine.json"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := snapshot(t, dir)
			stdout, stderr, code := runCLI(t, tt.args...)
			if code == exitValid {
				t.Errorf("exit 0 (stdout %q, stderr %q); want a refusal", stdout, stderr)
				if res, _ := verifyFile(t, tt.args[slices.Index(tt.args, "-o")+1], ""); res != nil {
					t.Logf("attest verify of what was written: %s", mustCompact(res))
				}
			}
			assertUnchanged(t, dir, before)
		})
	}
}

// An attested bundle without envelopes (claim UNSIGNED_INTEGRITY_ONLY) is
// valid, so `attest sign` can add its first envelope: the output must
// verify (at least SIGNED, since envelopes with claim
// UNSIGNED_INTEGRITY_ONLY are an over-claim, REFERENCE §5.3 G5).
func TestCLIAttestSignUnsignedAttestedBundle(t *testing.T) {
	dir := t.TempDir()
	key := writeTestKey(t, dir, "one.pem", attesttest.TestOnlyKeyOne())
	unsigned := filepath.Join(attestDir, "unsigned-integrity-only.json")
	wantLevel(t, unsigned, "", "UNSIGNED_INTEGRITY_ONLY")
	for _, claim := range []string{"", "SIGNED"} {
		t.Run("claim "+claim, func(t *testing.T) {
			out := filepath.Join(dir, "signed"+claim+".json")
			args := signArgs(unsigned, key, attesttest.IdentityOne, out)
			if claim != "" {
				args = append(args, "--claim", claim)
			}
			stdout, stderr, code := runCLI(t, args...)
			if code != exitValid {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			wantLevel(t, out, "", "SIGNED")
		})
	}
}
