package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/keyless"
	"github.com/mcpres/mcpres/keyless/keylesstest"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/sigstore/sigstore-go/pkg/root"
)

type keylessEnv struct {
	t                       *testing.T
	s                       *keylesstest.Stack
	dir, rootPath, rootHash string
	tr                      *root.TrustedRoot
}

func (e *keylessEnv) p(name string) string { return filepath.Join(e.dir, name) }

// sign signs bundle.json keylessly with token into out (and
// out.sigstore.json).
func (e *keylessEnv) sign(out, token string) {
	e.t.Helper()
	tok := write(e.t, e.dir, out+".token", []byte(token))
	_, stderr, code := runCLI("attest", "sign", e.p("bundle.json"), "--keyless", "--fulcio", e.s.FulcioURL, "--tsa", e.s.TSAURL,
		"--identity-token", tok, "--trusted-root", e.rootPath, "--policy-id", "acme/release", "-o", e.p(out))
	if code != 0 {
		e.t.Fatalf("sign: exit %d: %s", code, stderr)
	}
	os.Remove(tok)
}

// policy writes a policy with one identity signer ci naming rootHash.
func (e *keylessEnv) policy(name string, ci trustpolicy.CertificateIdentity, rootHash string) string {
	e.t.Helper()
	d := trustpolicy.New("acme/release", time.Now().Add(-time.Hour).UTC().Format("2006-01-02T15:04:05.000Z"), time.Now().Add(time.Hour).UTC().Format("2006-01-02T15:04:05.000Z"))
	d.AddSigner(trustpolicy.Signer{Name: "release", Roles: []string{trustpolicy.RoleSigner}, CertificateIdentity: &ci})
	d.TrustedRoot = &trustpolicy.TrustedRoot{SHA256: rootHash}
	if _, problems := trustpolicy.Load(d.Value(), nil); problems != nil {
		e.t.Fatalf("test policy: %v", problems)
	}
	return write(e.t, e.dir, name, pretty(e.t, d.Value()))
}

func (e *keylessEnv) rootFile(name string, cas, tsas root.TrustedMaterial) (string, string) {
	e.t.Helper()
	r, err := root.NewTrustedRoot(root.TrustedRootMediaType01, cas.FulcioCertificateAuthorities(), nil, tsas.TimestampingAuthorities(), nil)
	if err != nil {
		e.t.Fatal(err)
	}
	data, _ := r.MarshalJSON()
	return write(e.t, e.dir, name, data), canonjson.BytesDigest(data)
}

func TestKeylessVerify(t *testing.T) {
	s := keylesstest.NewStack(t)
	e := &keylessEnv{t: t, s: s, dir: t.TempDir()}
	var err error
	if e.tr, err = keyless.FetchTrustedRoot(context.Background(), http.DefaultClient, s.FulcioURL, s.TSAURL); err != nil {
		t.Fatal(err)
	}
	e.rootPath, e.rootHash = e.rootFile("trusted_root.json", e.tr, e.tr)
	example := bundletest.Example(t)
	subjectName := example.Path("evidence", "subject", "name").Str
	write(t, e.dir, "bundle.json", pretty(t, example))
	e.sign("email.json", s.EmailToken(t, "release@example.org", nil))
	e.sign("gh.json", s.GitHubToken(t, nil))

	email := trustpolicy.CertificateIdentity{Issuer: s.EmailIssuer, Identity: "release@example.org"}
	gh := trustpolicy.CertificateIdentity{Issuer: s.GitHubIssuer,
		IdentityRegexp: `^https://github\.com/acme/weather-mcp/\.github/workflows/release\.yml@refs/tags/v[0-9.]+$`,
		Extensions:     &trustpolicy.Extensions{SourceRepositoryURI: "https://github.com/" + keylesstest.GitHubRepo, SourceRepositoryRef: "refs/tags/v1.4.0", BuildTrigger: "push"}}
	verifyArgs := func(file, policy, rootPath string, extra ...string) []string {
		return append([]string{"attest", "verify", e.p(file), "--policy", policy, "--trusted-root", rootPath, "--subject-name", subjectName}, extra...)
	}

	// Honest: SIGNED_WITH_IDENTITY from the certificate alone.
	for _, tc := range []struct {
		file     string
		ci       trustpolicy.CertificateIdentity
		identity string
	}{{"email.json", email, "release@example.org"}, {"gh.json", gh, keylesstest.GitHubIdentity}} {
		stdout, stderr, code := runCLI(verifyArgs(tc.file, e.policy(tc.file+".policy", tc.ci, e.rootHash), e.rootPath)...)
		if code != 0 || !strings.Contains(stdout, `"authenticityClassification":"SIGNED_WITH_IDENTITY"`) || !strings.Contains(stdout, `"signerIdentity":"`+tc.identity+`"`) ||
			!strings.Contains(stdout, "keyless: envelope 0 is certified for identity signer") || !strings.Contains(stdout, `"passed":true`) {
			t.Fatalf("%s: exit %d\nstdout %s\nstderr %s", tc.file, code, stdout, stderr)
		}
	}

	// A batch: one policy with both identity signers, each FILE with its
	// FILE.sigstore.json, one line each; a failing FILE makes the exit 1
	// and the others are still verified.
	d := trustpolicy.New("acme/release", time.Now().Add(-time.Hour).UTC().Format("2006-01-02T15:04:05.000Z"), time.Now().Add(time.Hour).UTC().Format("2006-01-02T15:04:05.000Z"))
	d.AddSigner(trustpolicy.Signer{Name: "email", Roles: []string{trustpolicy.RoleSigner}, CertificateIdentity: &email})
	d.AddSigner(trustpolicy.Signer{Name: "gh", Roles: []string{trustpolicy.RoleSigner}, CertificateIdentity: &gh})
	d.TrustedRoot = &trustpolicy.TrustedRoot{SHA256: e.rootHash}
	both := write(t, e.dir, "both.policy", pretty(t, d.Value()))
	batch := []string{"attest", "verify", e.p("email.json"), e.p("gh.json"), "--policy", both, "--trusted-root", e.rootPath, "--subject-name", subjectName}
	stdout, stderr, code := runCLI(batch...)
	if code != 0 || strings.Count(stdout, `"authenticityClassification":"SIGNED_WITH_IDENTITY"`) != 2 || !strings.Contains(stdout, `"file":"`+e.p("gh.json")+`"`) {
		t.Fatalf("batch: exit %d\n%s\n%s", code, stdout, stderr)
	}
	write(t, e.dir, "copy.json", mustRead(t, e.p("email.json")))
	stdout, _, code = runCLI(append(batch[:3:3], append([]string{e.p("copy.json")}, batch[3:]...)...)...)
	if code != 1 || !strings.Contains(stdout, `"file":"`+e.p("gh.json")+`"`) || !strings.Contains(stdout, "keyless: no Sigstore bundle at "+e.p("copy.json")) ||
		strings.Count(stdout, `"authenticityClassification":"SIGNED_WITH_IDENTITY"`) != 2 {
		t.Fatalf("batch with a FILE without its Sigstore bundle (its identity signer trusts no envelope): exit %d\n%s", code, stdout)
	}
	// A DIR: the Sigstore bundles beside the attested bundles are their
	// material, not inputs.
	dirIn := filepath.Join(e.dir, "in")
	os.Mkdir(dirIn, 0o755)
	for _, n := range []string{"email.json", "email.json.sigstore.json", "gh.json", "gh.json.sigstore.json"} {
		write(t, dirIn, n, mustRead(t, e.p(n)))
	}
	stdout, stderr, code = runCLI(append(batch[:2:2], append([]string{dirIn}, batch[4:]...)...)...)
	if code != 0 || strings.Count(stdout, "\n") != 2 || strings.Contains(stdout, ".sigstore.json\"") {
		t.Fatalf("DIR: exit %d\n%s\n%s", code, stdout, stderr)
	}

	// A co-signed bundle: its second keyless envelope's Sigstore bundle
	// is FILE.sigstore.json, the first's is kept as FILE.sigstore.2.json;
	// both are read and each certifies its own envelope. Control: without
	// the second file only the co-signer's envelope is certified, and the
	// primary envelope's signer is then not trusted (SIGNED: the gate
	// fails).
	tok := write(t, e.dir, "co.token", []byte(s.GitHubToken(t, nil)))
	if _, stderr, code := runCLI("attest", "sign", e.p("email.json"), "--keyless", "--fulcio", s.FulcioURL, "--tsa", s.TSAURL,
		"--identity-token", tok, "--trusted-root", e.rootPath, "--policy-id", "acme/release", "-o", e.p("co.json")); code != 0 {
		t.Fatalf("co-sign: exit %d: %s", code, stderr)
	}
	os.Remove(tok)
	coArgs := []string{"attest", "verify", e.p("co.json"), "--policy", both, "--trusted-root", e.rootPath, "--subject-name", subjectName}
	if stdout, stderr, code := runCLI(coArgs...); code != 1 || strings.Count(stdout, "is certified for identity signer") != 1 || !strings.Contains(stdout, `"authenticityClassification":"SIGNED"`) {
		t.Fatalf("co-signed, one Sigstore bundle: exit %d\n%s\n%s", code, stdout, stderr)
	}
	write(t, e.dir, "co.json.sigstore.2.json", mustRead(t, e.p("email.json.sigstore.json")))
	if stdout, stderr, code := runCLI(coArgs...); code != 0 || strings.Count(stdout, "is certified for identity signer") != 2 {
		t.Fatalf("co-signed, both Sigstore bundles: exit %d\n%s\n%s", code, stdout, stderr)
	}

	// The same Sigstore bundle twice counts once.
	if stdout, stderr, code := runCLI(verifyArgs("email.json", e.policy("twice", email, e.rootHash), e.rootPath, "--sigstore-bundle", e.p("email.json.sigstore.json"), "--sigstore-bundle", e.p("email.json.sigstore.json"))...); code != 0 || !strings.Contains(stdout, "SIGNED_WITH_IDENTITY") {
		t.Fatalf("twice: exit %d\n%s\n%s", code, stdout, stderr)
	}

	// Control of the gate: another subject fails it (exit 1), with the
	// same keyless verification.
	if stdout, stderr, code := runCLI(append(verifyArgs("email.json", e.policy("pg", email, e.rootHash), e.rootPath), "--subject-name", "other")...); code != 1 || !strings.Contains(stdout, "SIGNED_WITH_IDENTITY") || !strings.Contains(stdout, `"passed":false`) {
		t.Fatalf("gate control: exit %d\n%s\n%s", code, stdout, stderr)
	}

	// Each fault its own diagnostic, exit 1.
	otherRoot := keylesstest.OtherTrustedRoot(t)
	badCAPath, badCAHash := e.rootFile("bad-ca.json", otherRoot, e.tr)
	badTSAPath, badTSAHash := e.rootFile("bad-tsa.json", e.tr, otherRoot)
	with := func(f func(c *trustpolicy.CertificateIdentity)) trustpolicy.CertificateIdentity {
		c := gh
		ext := *gh.Extensions
		c.Extensions = &ext
		f(&c)
		return c
	}
	sb, _ := os.ReadFile(e.p("email.json.sigstore.json"))
	var sbObj map[string]any
	json.Unmarshal(sb, &sbObj)
	delete(sbObj["verificationMaterial"].(map[string]any), "timestampVerificationData")
	noTS, _ := json.Marshal(sbObj)
	write(t, e.dir, "nots.sigstore.json", noTS)
	json.Unmarshal(sb, &sbObj)
	sbObj["dsseEnvelope"].(map[string]any)["payload"] = base64.StdEncoding.EncodeToString([]byte(`{"_type":"https://in-toto.io/Statement/v1"}`))
	badSig, _ := json.Marshal(sbObj)
	write(t, e.dir, "badsig.sigstore.json", badSig)
	_, att, _ := canonjson.ReadFile(e.p("email.json"))
	sig0 := att.Path("authenticity", "envelopes").Items[0].Get("signatures").Items[0]
	sig0.Set("signerIdentity", canonjson.NewString("someone@example.org"))
	write(t, e.dir, "otherid.json", pretty(t, att))
	other, _, _ := ed25519.GenerateKey(rand.Reader)
	spki, _ := x509.MarshalPKIXPublicKey(other)
	sig0.Set("signerIdentity", canonjson.NewString("release@example.org"))
	sig0.Set("publicKeySpkiBase64", canonjson.NewString(base64.StdEncoding.EncodeToString(spki)))
	write(t, e.dir, "otherkey.json", pretty(t, att))
	// The same altered payload in the envelope and in its Sigstore bundle:
	// bound, so the signature is left to the gate (E6), which refuses it;
	// the Sigstore bundle of the unaltered envelope is the control above
	// (SIGNED_WITH_IDENTITY).
	_, att, _ = canonjson.ReadFile(e.p("email.json"))
	altered := base64.StdEncoding.EncodeToString([]byte(`{"_type":"https://in-toto.io/Statement/v1","altered":true}`))
	att.Path("authenticity", "envelopes").Items[0].Set("payload", canonjson.NewString(altered))
	write(t, e.dir, "altered.json", pretty(t, att))
	json.Unmarshal(sb, &sbObj)
	sbObj["dsseEnvelope"].(map[string]any)["payload"] = altered
	alteredSB, _ := json.Marshal(sbObj)
	write(t, e.dir, "altered.json.sigstore.json", alteredSB)
	emailPolicy := e.policy("email.policy", email, e.rootHash)

	for _, tc := range []struct {
		name string
		args []string
		code string
	}{
		{"identity", verifyArgs("email.json", e.policy("p1", trustpolicy.CertificateIdentity{Issuer: s.EmailIssuer, Identity: "other@example.org"}, e.rootHash), e.rootPath), keyless.CodeIdentityMismatch},
		{"issuer", verifyArgs("email.json", e.policy("p2", trustpolicy.CertificateIdentity{Issuer: s.GitHubIssuer, Identity: "release@example.org"}, e.rootHash), e.rootPath), keyless.CodeIssuerMismatch},
		{"extension", verifyArgs("gh.json", e.policy("p3", with(func(c *trustpolicy.CertificateIdentity) { c.Extensions.SourceRepositoryRef = "refs/tags/v9.9.9" }), e.rootHash), e.rootPath), keyless.CodeExtensionMismatch},
		{"regexp identity", verifyArgs("gh.json", e.policy("p4", with(func(c *trustpolicy.CertificateIdentity) {
			c.IdentityRegexp = `^https://github\.com/acme/weather-mcp/\.github/workflows/other\.yml@.*$`
		}), e.rootHash), e.rootPath), keyless.CodeIdentityMismatch},
		{"untrusted CA", verifyArgs("email.json", e.policy("p5", email, badCAHash), badCAPath), keyless.CodeUntrustedCA},
		{"untrusted TSA", verifyArgs("email.json", e.policy("p6", email, badTSAHash), badTSAPath), keyless.CodeUntrustedTSA},
		{"no timestamp", verifyArgs("email.json", emailPolicy, e.rootPath, "--sigstore-bundle", e.p("nots.sigstore.json")), keyless.CodeNoTimestamp},
		{"signature over other bytes", verifyArgs("email.json", emailPolicy, e.rootPath, "--sigstore-bundle", e.p("badsig.sigstore.json")), keyless.CodeSignatureInvalid},
		{"the same bad signature in the envelope", verifyArgs("altered.json", emailPolicy, e.rootPath), attest.CodeSignatureInvalid},
		{"another envelope's material", verifyArgs("email.json", emailPolicy, e.rootPath, "--sigstore-bundle", e.p("gh.json.sigstore.json")), keyless.CodeIssuerMismatch},
		{"material of another bundle", verifyArgs("gh.json", e.policy("p7", gh, e.rootHash), e.rootPath, "--sigstore-bundle", e.p("email.json.sigstore.json")), keyless.CodeIssuerMismatch},
		{"statement identity", verifyArgs("otherid.json", emailPolicy, e.rootPath, "--sigstore-bundle", e.p("email.json.sigstore.json")), keyless.CodeStatementIdentity},
		{"certificate for another key", verifyArgs("otherkey.json", emailPolicy, e.rootPath, "--sigstore-bundle", e.p("email.json.sigstore.json")), keyless.CodeOtherKey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(tc.args...)
			if code != 1 || !strings.Contains(stdout, `"diagnostics":["`+tc.code+`"]`) {
				t.Fatalf("exit %d, want 1 with %s\nstdout %s\nstderr %s", code, tc.code, stdout, stderr)
			}
		})
	}

	// A bundle whose envelope is under the policy's identity but whose
	// Sigstore bundle is for another envelope: the envelope is missing.
	_, gatt, _ := canonjson.ReadFile(e.p("gh.json"))
	_, eatt, _ := canonjson.ReadFile(e.p("email.json"))
	eatt.Path("authenticity", "envelopes").Items[0] = gatt.Path("authenticity", "envelopes").Items[0]
	write(t, e.dir, "swapped.json", pretty(t, eatt))
	if stdout, _, code := runCLI(verifyArgs("swapped.json", emailPolicy, e.rootPath, "--sigstore-bundle", e.p("email.json.sigstore.json"))...); code != 1 || !strings.Contains(stdout, keyless.CodeEnvelopeMissing) {
		t.Fatalf("swapped envelope: exit %d %s", code, stdout)
	}

	// attest keyless-policy (what mcpres report runs): the certified
	// policy with a key signer for the certification, or the refusal with
	// its code.
	if stdout, stderr, code := runCLI("attest", "keyless-policy", e.p("email.json"), "--policy", emailPolicy, "--trusted-root", e.rootPath); code != 0 ||
		!strings.Contains(stdout, `"name":"release.0"`) || !strings.Contains(stdout, `"notes":["keyless: envelope 0 is certified`) {
		t.Fatalf("keyless-policy: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if stdout, stderr, code := runCLI("attest", "keyless-policy", e.p("otherkey.json"), "--policy", emailPolicy, "--trusted-root", e.rootPath,
		"--sigstore-bundle", e.p("email.json.sigstore.json")); code != 0 || !strings.Contains(stdout, `{"refused":{"code":"`+keyless.CodeOtherKey+`"`) {
		t.Fatalf("keyless-policy, refused: exit %d\n%s\n%s", code, stdout, stderr)
	}

	// The trusted root given is not the one the policy names: nothing is
	// verified (exit 2, the code named).
	if _, stderr, code := runCLI(verifyArgs("email.json", emailPolicy, badCAPath)...); code != 2 || !strings.Contains(stderr, keyless.CodeTrustedRootMismatch) {
		t.Fatalf("trusted root not the policy's: exit %d %s", code, stderr)
	}

	// The ad-hoc identity of the flags, as cosign's: the same signature
	// passes with its identity and issuer, and fails with another identity
	// (the bundle's envelope is then not certified: INVALID with the code).
	adHoc := func(file string, extra ...string) []string {
		return append([]string{"attest", "verify", e.p(file), "--trusted-root", e.rootPath, "--subject-name", subjectName}, extra...)
	}
	if stdout, stderr, code := runCLI(adHoc("email.json", "--certificate-identity", "release@example.org", "--certificate-oidc-issuer", s.EmailIssuer)...); code != 0 ||
		!strings.Contains(stdout, "SIGNED_WITH_IDENTITY") || !strings.Contains(stdout, "ad-hoc trust policy") {
		t.Fatalf("ad hoc identity: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if stdout, stderr, code := runCLI(adHoc("gh.json", "--certificate-identity-regexp", gh.IdentityRegexp, "--certificate-oidc-issuer", s.GitHubIssuer)...); code != 0 || !strings.Contains(stdout, "SIGNED_WITH_IDENTITY") {
		t.Fatalf("ad hoc identity regexp: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if stdout, _, code := runCLI(adHoc("email.json", "--certificate-identity", "other@example.org", "--certificate-oidc-issuer", s.EmailIssuer)...); code != 1 || !strings.Contains(stdout, keyless.CodeIdentityMismatch) {
		t.Fatalf("ad hoc identity, another identity: exit %d\n%s", code, stdout)
	}
	if _, stderr, code := runCLI(adHoc("email.json", "--certificate-identity-regexp", ".*", "--certificate-oidc-issuer", s.EmailIssuer)...); code != 2 || !strings.Contains(stderr, "--certificate-identity") {
		t.Fatalf("ad hoc identity, an expression matching anyone: exit %d\n%s", code, stderr)
	}

	// Offline: the honest verification in an empty network namespace.
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skipf("unshare is not on PATH; the network-namespace check is skipped")
	}
	if out, err := exec.Command(unshare, "-rn", "true").CombinedOutput(); err != nil {
		t.Skipf("`unshare -rn true` does not work here (%v: %s); the network-namespace check is skipped", err, bytes.TrimSpace(out))
	}
	cmd := exec.Command(unshare, append([]string{"-rn", os.Args[0]}, verifyArgs("email.json", emailPolicy, e.rootPath)...)...)
	cmd.Env = append(os.Environ(), "MCPRES_CLITEST_MAIN=mcpres-sigstore")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil || !strings.Contains(out.String(), `"SIGNED_WITH_IDENTITY"`) {
		t.Fatalf("in an empty network namespace: %v\nstdout %s\nstderr %s", err, out.String(), errb.String())
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
