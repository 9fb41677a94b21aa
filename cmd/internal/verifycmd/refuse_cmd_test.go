package verifycmd

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/oci/pulled"
)

// cmdRun is one run of attest verify built from c (its Stdout and Stderr
// replaced), with args: what it printed and the error it returned.
type cmdRun struct {
	stdout, stderr string
	err            error
}

func runVerify(t *testing.T, c Config, args ...string) cmdRun {
	t.Helper()
	var out, errs bytes.Buffer
	c.Stdout, c.Stderr = &out, &errs
	if c.Prog == "" {
		c.Prog = "prog"
	}
	if c.Now == nil {
		c.Now = func() string { return attesttest.EvaluatedAt }
	}
	cmd := Command(c)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	cmd.SetOut(&out)
	cmd.SetErr(&errs)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return cmdRun{out.String(), errs.String(), err}
}

// usage returns the message of a *cli.UsageError, or fails.
func (r cmdRun) usage(t *testing.T) string {
	t.Helper()
	var u *cli.UsageError
	if !errors.As(r.err, &u) {
		t.Fatalf("want a usage error, got %T %v (stdout %q, stderr %q)", r.err, r.err, r.stdout, r.stderr)
	}
	return u.Error()
}

// exit returns the code of a *cli.ExitError, 0 for no error, or fails.
func (r cmdRun) exit(t *testing.T) int {
	t.Helper()
	if r.err == nil {
		return 0
	}
	var e *cli.ExitError
	if !errors.As(r.err, &e) {
		t.Fatalf("want an exit status, got %T %v (stdout %q, stderr %q)", r.err, r.err, r.stdout, r.stderr)
	}
	return e.Code
}

// command returns the message of a *cli.CommandError, or fails.
func (r cmdRun) command(t *testing.T) string {
	t.Helper()
	var c *cli.CommandError
	if !errors.As(r.err, &c) {
		t.Fatalf("want a command error, got %T %v (stdout %q, stderr %q)", r.err, r.err, r.stdout, r.stderr)
	}
	return c.Error()
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// publicKeyOne is attesttest's first key as an SPKI PEM file.
func publicKeyOne(t *testing.T) string {
	t.Helper()
	pub, err := keyfile.MarshalPublicKeyPEM(attesttest.TestOnlyKeyOne().Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, t.TempDir(), "one.pub", pub)
}

// An --evaluated-at given empty or not an RFC 3339 date-time is a usage
// error naming it; a valid one is echoed in the result.
func TestCommandRefusesEvaluatedAt(t *testing.T) {
	path, _ := signedExample(t)
	for _, tt := range []struct{ at, want string }{
		{"", "--evaluated-at is empty"},
		{"2026-13-01T00:00:00Z", `--evaluated-at "2026-13-01T00:00:00Z" is not an RFC 3339 date-time (leap seconds are rejected)`},
		{"2026-06-30T23:59:60Z", `--evaluated-at "2026-06-30T23:59:60Z" is not an RFC 3339 date-time (leap seconds are rejected)`},
	} {
		if got := runVerify(t, Config{}, "--evaluated-at="+tt.at, path).usage(t); got != tt.want {
			t.Errorf("--evaluated-at %q: %q, want %q", tt.at, got, tt.want)
		}
	}
	// Control: a valid instant is the one evaluated at.
	r := runVerify(t, Config{}, "--evaluated-at", "2026-08-27T18:05:00.000Z", path)
	if r.exit(t) != ExitValid || !strings.Contains(r.stdout, `"evaluatedAt":"2026-08-27T18:05:00.000Z"`) {
		t.Fatalf("valid --evaluated-at: %v, %s", r.err, r.stdout)
	}
}

// --format other than json, text or markdown is a usage error.
func TestCommandRefusesFormat(t *testing.T) {
	path, _ := signedExample(t)
	if got, want := runVerify(t, Config{}, "--format", "yaml", path).usage(t), `--format must be json, text or markdown, not "yaml"`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	r := runVerify(t, Config{}, "--format", "markdown", path)
	if r.exit(t) != ExitValid || !strings.Contains(r.stdout, "|") {
		t.Errorf("markdown: %v %q", r.err, r.stdout)
	}
}

// A gate flag or a subject flag without a trust source is a usage error
// naming the flags given and this binary's trust sources.
func TestCommandRefusesGateWithoutTrust(t *testing.T) {
	path, subject := signedExample(t)
	got := runVerify(t, Config{}, "--require-evidence-class", "GENUINE_RUNTIME", "--subject-digest", subject, path).usage(t)
	want := "--require-evidence-class, --subject-digest: a gate needs a trust source (--policy or --key): without one no signer is trusted, so nothing can pass"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// With TUF offered, the sources name it too.
	tuf := Config{FetchPolicyTUF: func(string, string, string, string) (string, []byte, error) { return "", nil, errors.New("unused") }}
	got = runVerify(t, tuf, "--subject-name", "x", path).usage(t)
	if want := "--subject-name: a gate needs a trust source (--policy, --policy-tuf or --key): without one no signer is trusted, so nothing can pass"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// A value that is not a level is said first, trust or not.
	got = runVerify(t, Config{}, "--require-level", "PLATINUM", path).usage(t)
	if !strings.HasPrefix(got, "--require-level: ") {
		t.Errorf("PLATINUM: %q", got)
	}
	// Control: the same gate with a trust source passes.
	r := runVerify(t, Config{}, "--key", publicKeyOne(t), "--identity", attesttest.IdentityOne, "--subject-digest", subject, path)
	if r.exit(t) != ExitValid || !strings.Contains(r.stdout, `"passed":true`) {
		t.Fatalf("control: %v %s %s", r.err, r.stdout, r.stderr)
	}
}

// The gate's flags that make no sense together are usage errors.
func TestCommandRefusesGateValues(t *testing.T) {
	path, _ := signedExample(t)
	key := publicKeyOne(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--require-level", "WITNESSED", "--require-level-unsafe", "SIGNED"}, "--require-level and --require-level-unsafe: give one"},
		{[]string{"--require-level", "SIGNED"}, "--require-level SIGNED is below SIGNED_WITH_IDENTITY, which a gate with a trust source requires by default (a trusted signer); to accept bundles that no trusted key signed, say so: --require-level-unsafe SIGNED"},
		{[]string{"--require-level-unsafe", "WITNESSED"}, "--require-level-unsafe WITNESSED is not below SIGNED_WITH_IDENTITY: say --require-level WITNESSED"},
		{[]string{"--accept-result", "PASS"}, "--accept-result PASS: PASS is always accepted; name the other results to accept (FAIL, INCOMPLETE)"},
	} {
		args := append([]string{"--key", key, "--identity", attesttest.IdentityOne}, tt.args...)
		if got := runVerify(t, Config{}, append(args, path)...).usage(t); got != tt.want {
			t.Errorf("%v: %q\nwant %q", tt.args, got, tt.want)
		}
	}
	// Control: --require-level-unsafe below the default is taken.
	r := runVerify(t, Config{}, "--key", key, "--identity", attesttest.IdentityOne, "--require-level-unsafe", "SIGNED", "--accept-result", "FAIL", path)
	if r.exit(t) != ExitValid {
		t.Fatalf("control: %v %s", r.err, r.stdout)
	}
}

// --subject-digest in another form is a usage error; an --artifact that
// is missing or not a regular file is a command error (exit 2), and
// nothing is verified.
func TestCommandRefusesSubjectInputs(t *testing.T) {
	path, subject := signedExample(t)
	key := publicKeyOne(t)
	trust := []string{"--key", key, "--identity", attesttest.IdentityOne}
	got := runVerify(t, Config{}, append(trust, "--subject-digest", strings.ToUpper(subject), path)...).usage(t)
	if !strings.HasPrefix(got, "--subject-digest: ") {
		t.Errorf("upper-case digest: %q", got)
	}
	dir := t.TempDir()
	for _, tt := range []struct{ artifact, want string }{
		{filepath.Join(dir, "missing.tar"), "--artifact: "},
		{dir, "--artifact: "},
	} {
		r := runVerify(t, Config{}, append(trust, "--artifact", tt.artifact, path)...)
		if msg := r.command(t); !strings.HasPrefix(msg, tt.want) || !strings.Contains(msg, tt.artifact) || r.stdout != "" {
			t.Errorf("--artifact %s: %q, stdout %q", tt.artifact, msg, r.stdout)
		}
	}
	// Control: an artifact of another content fails the gate (exit 1)
	// with the subject mismatch, not a usage error.
	other := writeFile(t, dir, "other.tar", []byte("not the artifact"))
	r := runVerify(t, Config{}, append(trust, "--artifact", other, path)...)
	if r.exit(t) != ExitInvalid || !strings.Contains(r.stdout, "MCPRES_SUBJECT_MISMATCH") {
		t.Fatalf("other artifact: %v %s", r.err, r.stdout)
	}
}

// --key and --identity come in pairs of a readable Ed25519 SPKI PEM and an
// identity, and are not a second trust source beside --policy.
func TestCommandRefusesAdHocKeys(t *testing.T) {
	path, _ := signedExample(t)
	key := publicKeyOne(t)
	dir := t.TempDir()
	priv, err := keyfile.MarshalPrivateKeyPEM(attesttest.TestOnlyKeyOne())
	if err != nil {
		t.Fatal(err)
	}
	privPath := writeFile(t, dir, "one.key", priv)
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&ec.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	ecPath := writeFile(t, dir, "p256.pub", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	policy := writeFile(t, dir, "policy.json", mustPretty(t, attesttest.Policy(attesttest.PolicyOptions{Trusted: []string{"one"}})))

	r := runVerify(t, Config{}, "--key", key, "--key", key, "--identity", attesttest.IdentityOne, path)
	if got, want := r.usage(t), "--key and --identity go in pairs: 2 --key and 1 --identity given"; got != want {
		t.Errorf("unpaired: %q", got)
	}
	r = runVerify(t, Config{}, "--key", key, "--identity", attesttest.IdentityOne, "--policy", policy, path)
	if got, want := r.usage(t), "--key/--identity can't be used with --policy: the keys are the trust policy"; got != want {
		t.Errorf("with --policy: %q", got)
	}
	r = runVerify(t, Config{}, "--key", filepath.Join(dir, "missing.pub"), "--identity", attesttest.IdentityOne, path)
	if msg := r.command(t); !strings.HasPrefix(msg, "--key: ") || !strings.Contains(msg, "missing.pub") {
		t.Errorf("missing key: %q", msg)
	}
	r = runVerify(t, Config{}, "--key", privPath, "--identity", attesttest.IdentityOne, path)
	if msg := r.command(t); !strings.HasPrefix(msg, "--key "+privPath+": ") || !strings.Contains(msg, "private key") {
		t.Errorf("private key: %q", msg)
	}
	if strings.Contains(r.stdout+r.stderr+r.err.Error(), string(priv[40:80])) {
		t.Error("private key material printed")
	}
	r = runVerify(t, Config{}, "--key", ecPath, "--identity", attesttest.IdentityOne, path)
	if msg := r.usage(t); !strings.HasPrefix(msg, "--key/--identity: --key "+ecPath+": ") || !strings.HasSuffix(msg, "(only Ed25519 public keys are accepted)") {
		t.Errorf("P-256 key: %q", msg)
	}
	// Control: the pair as given verifies, with the ad-hoc note.
	r = runVerify(t, Config{}, "--key", key, "--identity", attesttest.IdentityOne, path)
	if r.exit(t) != ExitValid || !strings.Contains(r.stdout, "SIGNED_WITH_IDENTITY") || !strings.Contains(r.stdout, "ad-hoc") {
		t.Fatalf("control: %v %s", r.err, r.stdout)
	}
}

// A policy file that cannot be read or is not JSON is reported for each
// input (exit 2), naming the policy, never taken for "no policy".
func TestCommandReportsUnreadablePolicy(t *testing.T) {
	path, _ := signedExample(t)
	dir := t.TempDir()
	for _, policy := range []string{filepath.Join(dir, "missing.json"), writeFile(t, dir, "torn.json", []byte(`{"schemaVersion":`))} {
		r := runVerify(t, Config{}, "--format", "text", "--policy", policy, path)
		if r.exit(t) != ExitInput || !strings.HasPrefix(r.stdout, policy+": INPUT INVALID MCP_RES_INPUT_INVALID: trust policy: ") {
			t.Errorf("%s: %v %q", policy, r.err, r.stdout)
		}
	}
	// Control: the policy readable verifies.
	policy := writeFile(t, dir, "policy.json", mustPretty(t, attesttest.Policy(attesttest.PolicyOptions{Trusted: []string{"one"}})))
	if r := runVerify(t, Config{}, "--policy", policy, path); r.exit(t) != ExitValid {
		t.Fatalf("control: %v %s", r.err, r.stdout)
	}
}

// The TUF flags go together and not with --policy; the fetch's error is
// returned as it is, and a fetched policy that is not JSON is an
// unreadable input (exit 2) naming the target.
func TestCommandRefusesPolicyTUF(t *testing.T) {
	path, _ := signedExample(t)
	policy := mustPretty(t, attesttest.Policy(attesttest.PolicyOptions{Trusted: []string{"one"}}))
	var fetched []string
	fetch := func(data []byte, err error) Config {
		return Config{FetchPolicyTUF: func(root, repo, target, cache string) (string, []byte, error) {
			fetched = append(fetched, root+" "+repo+" "+target+" "+cache)
			return "tuf:" + target, data, err
		}}
	}
	tuf := []string{"--policy-tuf", "1.root.json", "--policy-repo", "repo", "--policy-target", "policy.json"}

	if got, want := runVerify(t, fetch(policy, nil), "--policy-tuf", "1.root.json", path).usage(t), "--policy-tuf, --policy-repo and --policy-target go together"; got != want {
		t.Errorf("alone: %q", got)
	}
	if got, want := runVerify(t, fetch(policy, nil), append(tuf, "--policy", "p.json", path)...).usage(t), "--policy can't be used with --policy-tuf (the policy comes from the TUF repository)"; got != want {
		t.Errorf("with --policy: %q", got)
	}
	r := runVerify(t, fetch(policy, nil), append(tuf, "--key", "k.pub", "--identity", "x", path)...)
	if got, want := r.usage(t), "--key/--identity can't be used with --policy or --policy-tuf: the keys are the trust policy"; got != want {
		t.Errorf("with --key: %q", got)
	}
	if len(fetched) != 1 {
		t.Errorf("fetched %d times for the usage errors, want once (before --key is looked at)", len(fetched))
	}
	refused := errors.New("tuf: root signature threshold not met")
	if r := runVerify(t, fetch(nil, refused), append(tuf, path)...); r.err != refused {
		t.Errorf("fetch refused: %v", r.err)
	}
	r = runVerify(t, fetch([]byte("<html>"), nil), append(tuf, "--format", "text", path)...)
	if r.exit(t) != ExitInput || !strings.HasPrefix(r.stdout, "tuf:policy.json: INPUT INVALID MCP_RES_INPUT_INVALID: trust policy: ") {
		t.Errorf("not JSON: %v %q", r.err, r.stdout)
	}
	// Control: the fetched policy verifies, and the cache flag is handed over.
	fetched = nil
	r = runVerify(t, fetch(policy, nil), append(tuf, "--policy-cache", "cache", path)...)
	if r.exit(t) != ExitValid || len(fetched) != 1 || fetched[0] != "1.root.json repo policy.json cache" {
		t.Fatalf("control: %v %s %q", r.err, r.stdout, fetched)
	}
}

// --oci takes no FILE; --plain-http and --timeout go with it; forwarded,
// it can't take --policy-tuf; fetched here, --recursive, --with-file and
// a timeout that is not positive are refused. A pulled folder is verified
// alone and with a trust source.
func TestCommandRefusesOCIUsage(t *testing.T) {
	path, _ := signedExample(t)
	key := publicKeyOne(t)
	trust := []string{"--key", key, "--identity", attesttest.IdentityOne}
	var forwarded [][]string
	fwd := Config{
		ForwardOCI:     func(args []string) error { forwarded = append(forwarded, args); return nil },
		FetchPolicyTUF: func(string, string, string, string) (string, []byte, error) { return "", nil, errors.New("unused") },
	}
	fetchOCI := Config{FetchOCI: func(OCIRequest, func(OCISubject) error, func(OCIReferrer)) (OCISubject, error) {
		return OCISubject{}, errors.New("unused")
	}}

	for _, tt := range []struct {
		c    Config
		args []string
		want string
	}{
		{fwd, []string{"--oci", "reg.example/x:1", path}, "FILE arguments can't be used with --oci (the inputs are the image's referrers)"},
		{fwd, []string{"--plain-http", path}, "--plain-http goes with --oci"},
		{fwd, []string{"--timeout", "5s", path}, "--timeout goes with --oci"},
	} {
		r := runVerify(t, tt.c, tt.args...)
		if r.err == nil || r.err.Error() != tt.want {
			t.Errorf("%v: %v, want %q", tt.args, r.err, tt.want)
		}
	}
	r := runVerify(t, fwd, "--oci", "reg.example/x:1", "--policy-tuf", "r", "--policy-repo", "p", "--policy-target", "t")
	if got, want := r.usage(t), "--oci can't be used with --policy-tuf: fetch the policy with 'prog policy tuf fetch -o POLICY' first and give --policy POLICY"; got != want {
		t.Errorf("forwarded with TUF: %q", got)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--oci", "reg.example/x:1", "--recursive"}, "--recursive and --with-file go with FILE and DIR arguments, not --oci"},
		{[]string{"--oci", "reg.example/x:1", "--with-file"}, "--recursive and --with-file go with FILE and DIR arguments, not --oci"},
		{[]string{"--oci", "reg.example/x:1", "--timeout", "0s"}, "--timeout must be positive"},
	} {
		if got := runVerify(t, fetchOCI, append(trust, tt.args...)...).usage(t); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.args, got, tt.want)
		}
	}
	if got, want := runVerify(t, fetchOCI, "--oci", "reg.example/x:1").usage(t), "--oci: a gate needs a trust source (--policy or --key): without one no signer is trusted, so nothing can pass"; got != want {
		t.Errorf("--oci untrusted: %q", got)
	}

	folder := t.TempDir()
	writeFile(t, folder, pulled.IndexName, []byte("{}"))
	if got, want := runVerify(t, fwd, append(trust, folder, path)...).usage(t), folder+" is a folder written by oci pull (it holds "+pulled.IndexName+"): verify it on its own, without --recursive"; got != want {
		t.Errorf("folder and file: %q", got)
	}
	if got, want := runVerify(t, fwd, folder).usage(t), folder+" is a folder written by oci pull, verified as attest verify --oci is (a gate bound to the image): give --policy, --policy-tuf or --key"; got != want {
		t.Errorf("folder untrusted: %q", got)
	}

	// Control: --oci with a trust source is forwarded with its flags.
	if r := runVerify(t, fwd, append(trust, "--oci", "reg.example/x:1")...); r.err != nil || len(forwarded) != 1 || !strings.Contains(strings.Join(forwarded[0], " "), "--oci=reg.example/x:1") {
		t.Fatalf("control: %v %q", r.err, forwarded)
	}
}

// The keyless flags' rules, applied before anything is forwarded.
func TestCommandRefusesKeylessUsage(t *testing.T) {
	path, _ := signedExample(t)
	var forwarded [][]string
	c := Config{
		ForwardKeyless: func(args []string) error { forwarded = append(forwarded, args); return nil },
		FetchPolicyTUF: func(string, string, string, string) (string, []byte, error) { return "", nil, errors.New("unused") },
	}
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--trusted-root", "tr.json", "--policy-tuf", "r", path}, "keyless verification (--trusted-root) can't be used with --policy-tuf yet: fetch the policy with 'prog policy tuf fetch -o POLICY' and give --policy POLICY"},
		{[]string{"--sigstore-bundle", "b.sigstore.json", path}, "--sigstore-bundle and --certificate-* go with --trusted-root (the Sigstore trusted_root.json to verify certificates and timestamps against)"},
		{[]string{"--certificate-identity", "x", path}, "--sigstore-bundle and --certificate-* go with --trusted-root (the Sigstore trusted_root.json to verify certificates and timestamps against)"},
		{[]string{"--trusted-root", "tr.json", "--sigstore-bundle", "b.sigstore.json", "--policy", "p.json", path, path}, "--sigstore-bundle goes with one FILE; with several, each FILE's are beside it (FILE.sigstore.json)"},
		{[]string{"--trusted-root", "tr.json", "--sigstore-bundle", "b.sigstore.json", "--policy", "p.json", dir}, "--sigstore-bundle goes with one FILE; with several, each FILE's are beside it (FILE.sigstore.json)"},
		{[]string{"--trusted-root", "tr.json", path}, "--trusted-root goes with --policy (whose identity signers it verifies) or --certificate-identity and --certificate-oidc-issuer"},
		{[]string{"--trusted-root", "tr.json", "--certificate-identity", "x", "--certificate-oidc-issuer", "https://issuer", "--policy", "p.json", path}, "--certificate-identity/--certificate-oidc-issuer can't be used with --policy or --key: they are the trust policy"},
		{[]string{"--trusted-root", "tr.json", "--certificate-identity", "x", "--key", "k.pub", "--identity", "y", path}, "--certificate-identity/--certificate-oidc-issuer can't be used with --policy or --key: they are the trust policy"},
		{[]string{"--trusted-root", "tr.json", "--certificate-identity", "x", path}, "--certificate-oidc-issuer is required with --certificate-identity or --certificate-identity-regexp"},
		{[]string{"--trusted-root", "tr.json", "--certificate-oidc-issuer", "https://issuer", path}, "give one of --certificate-identity and --certificate-identity-regexp"},
		{[]string{"--trusted-root", "tr.json", "--certificate-identity", "x", "--certificate-identity-regexp", "x.*", "--certificate-oidc-issuer", "https://issuer", path}, "give one of --certificate-identity and --certificate-identity-regexp"},
	} {
		if got := runVerify(t, c, tt.args...).usage(t); got != tt.want {
			t.Errorf("%v:\n got %q\nwant %q", tt.args, got, tt.want)
		}
	}
	if len(forwarded) != 0 {
		t.Fatalf("forwarded a refused command line: %q", forwarded)
	}
	// Control: a complete keyless command line is forwarded, its FILE
	// after "--".
	r := runVerify(t, c, "--trusted-root", "tr.json", "--certificate-identity", "x", "--certificate-oidc-issuer", "https://issuer", path)
	if r.err != nil || len(forwarded) != 1 {
		t.Fatalf("control: %v %q", r.err, forwarded)
	}
	args := forwarded[0]
	if args[len(args)-2] != "--" || args[len(args)-1] != path {
		t.Errorf("forwarded %q", args)
	}
}

// A subject check asked of a document with no subject is refused per
// input (exit 2), saying what the document is; an attested bundle is
// held to it (control).
func TestNoSubject(t *testing.T) {
	for _, tt := range []struct{ doc, want string }{
		{`{"schemaVersion":"` + bundle.SchemaVersionBundleV01 + `"}`, "a v0.1.0 conformance bundle: subject checks apply to v0.2.0 bundles and attested bundles (mcpres migrate converts it)"},
		{`{"schemaVersion":"` + bundle.SchemaVersionMigrationResult + `"}`, "a migration result, which has no subject"},
		{`{"schemaVersion":"other/1"}`, `a "other/1" document, which has no subject`},
		{`{"inclusionProofBase64":"AA=="}`, "a transparency reference, which has no subject"},
		{`[1]`, "a document that is not an MCP-RES bundle, which has no subject"},
	} {
		doc, err := canonjson.Parse([]byte(tt.doc))
		if err != nil {
			t.Fatal(err)
		}
		if got := NoSubject(doc); !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.doc, got, tt.want)
		}
	}
	path, subject := signedExample(t)
	data, _ := os.ReadFile(path)
	doc, err := canonjson.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := NoSubject(doc); got != "" {
		t.Errorf("attested bundle: %q", got)
	}

	// Through the command: a policy given as the input of a subject check.
	dir := t.TempDir()
	policy := writeFile(t, dir, "policy.json", mustPretty(t, attesttest.Policy(attesttest.PolicyOptions{Trusted: []string{"one"}})))
	r := runVerify(t, Config{}, "--format", "text", "--key", publicKeyOne(t), "--identity", attesttest.IdentityOne, "--subject-digest", subject, policy)
	if r.exit(t) != ExitInput || !strings.Contains(r.stdout, "a subject check was asked, and this is a ") || !strings.Contains(r.stdout, "subject checks apply to attested bundles") {
		t.Errorf("policy as input: %v %q", r.err, r.stdout)
	}
}

func mustPretty(t *testing.T, v *canonjson.Value) []byte {
	t.Helper()
	data, err := canonjson.Pretty(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
