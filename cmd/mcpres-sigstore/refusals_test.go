package main

import (
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/keyless"
	"github.com/mcpres/mcpres/keyless/keylesstest"
	"github.com/mcpres/mcpres/trustpolicy"
)

// TestRefusedInputs runs each command line that attest sign --keyless,
// attest keyless-policy, verify-blob and rekor upload refuse before any
// network or signature check (a missing or conflicting flag, an unreadable
// or malformed input) and checks the refusal is that line's own: its exit
// code, its diagnostic, the pointer to --help for a usage error only, and
// nothing written. The controls show the inputs the rows spoil pass these
// checks.
func TestRefusedInputs(t *testing.T) {
	// Not in GitHub Actions: without --identity-token there is no token.
	t.Setenv(keyless.ActionsURLEnv, "")
	t.Setenv(keyless.ActionsTokenEnv, "")
	c := setup(t)
	trJSON, err := keylesstest.OtherTrustedRoot(t).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	trPath := write(t, c.dir, "trusted_root.json", trJSON)
	d := trustpolicy.New("acme/release", "2026-01-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z")
	d.AddSigner(trustpolicy.Signer{Name: "release", Roles: []string{trustpolicy.RoleSigner},
		CertificateIdentity: &trustpolicy.CertificateIdentity{Issuer: "https://issuer.example.org", Identity: "release@example.org"}})
	d.TrustedRoot = &trustpolicy.TrustedRoot{SHA256: canonjson.BytesDigest(trJSON)}
	keylessPolicyPath := write(t, c.dir, "keyless-policy.json", pretty(t, d.Value()))
	notJSON := write(t, c.dir, "not.json", []byte("{"))
	empty := write(t, c.dir, "empty.json", []byte("{}"))
	missing := c.dir + "/missing.json"
	existing := write(t, c.dir, "existing.json", []byte("{}"))
	out := c.dir + "/out.json"

	// Controls: keyless-policy certifies with these inputs (no Sigstore
	// bundle beside the file: a note, not a refusal); keyless sign gets
	// as far as the identity token.
	if stdout, stderr, code := runCLI("attest", "keyless-policy", c.bundlePath, "--policy", keylessPolicyPath, "--trusted-root", trPath); code != 0 || !strings.Contains(stdout, "no Sigstore bundle beside") {
		t.Fatalf("keyless-policy control: exit %d\n%s\n%s", code, stdout, stderr)
	}
	sign := func(extra ...string) []string {
		return append([]string{"attest", "sign", c.bundlePath, "--keyless", "--policy-id", "acme/release", "-o", out}, extra...)
	}
	policy := func(extra ...string) []string {
		return append([]string{"attest", "keyless-policy", c.bundlePath}, extra...)
	}
	blob := func(extra ...string) []string {
		return append([]string{"verify-blob", c.bundlePath, "--certificate-oidc-issuer", "https://issuer.example.org", "--certificate-identity", "release@example.org"}, extra...)
	}
	const usage, failed = true, false
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		usage bool
		want  string
	}{
		{"sign: no token outside Actions", sign(), exitInput, usage, "no identity token: give --identity-token FILE|env:NAME"},
		{"sign: without --policy-id", []string{"attest", "sign", c.bundlePath, "--keyless", "-o", out}, exitInput, usage, "--policy-id is required"},
		{"sign: without -o", []string{"attest", "sign", c.bundlePath, "--keyless", "--policy-id", "acme/release"}, exitInput, usage, "-o/--output is required"},
		{"sign: -o - alone", []string{"attest", "sign", c.bundlePath, "--keyless", "--policy-id", "acme/release", "-o", "-"}, exitInput, usage, "-o -: give --sigstore-bundle FILE too"},
		{"sign: --sigstore-bundle is -o", sign("--sigstore-bundle", out), exitInput, usage, "--sigstore-bundle must be a file other than -o"},
		{"sign: --policy-id too long", []string{"attest", "sign", c.bundlePath, "--keyless", "--policy-id", strings.Repeat("p", 129), "-o", out}, exitInput, usage, "--policy-id is 129 characters long"},
		{"sign: --claim not a level", sign("--claim", "GOLD"), exitInput, usage, `--claim: unknown authenticity level "GOLD"`},
		{"sign: -o exists", []string{"attest", "sign", c.bundlePath, "--keyless", "--policy-id", "acme/release", "-o", existing}, exitInput, failed, "refusing to overwrite " + existing + " (use --force to replace it)"},
		{"sign: --transparency missing", sign("--transparency", missing), exitInput, failed, "transparency reference " + missing + ": cannot read " + missing + ": no such file"},
		{"sign: --transparency not a reference", sign("--transparency", empty), exitInput, failed, empty + ": transparency reference: no logId"},
		{"sign: --trusted-root not JSON", sign("--trusted-root", notJSON), exitInput, failed, "--trusted-root " + notJSON + ": failed to proto-json unmarshal trusted root"},
		{"sign: BUNDLE missing", []string{"attest", "sign", missing, "--keyless", "--policy-id", "acme/release", "-o", out}, exitInput, failed, missing + ": "},
		{"keyless-policy: without --trusted-root", policy("--policy", keylessPolicyPath), exitInput, usage, "--policy and --trusted-root are required"},
		{"keyless-policy: --policy missing", policy("--policy", missing, "--trusted-root", trPath), exitInput, failed, "--policy " + missing + ": "},
		{"keyless-policy: --policy does not load", policy("--policy", empty, "--trusted-root", trPath), exitInput, failed, "--policy " + empty + " does not load: "},
		{"keyless-policy: --trusted-root missing", policy("--policy", keylessPolicyPath, "--trusted-root", missing), exitInput, failed, "--trusted-root: "},
		{"keyless-policy: --trusted-root not the policy's", policy("--policy", keylessPolicyPath, "--trusted-root", empty), exitInput, failed, "--trusted-root " + empty + ": MCPRES_KEYLESS_TRUSTED_ROOT_MISMATCH"},
		{"keyless-policy: FILE missing", []string{"attest", "keyless-policy", missing, "--policy", keylessPolicyPath, "--trusted-root", trPath}, exitInput, failed, missing + ": "},
		{"keyless-policy: --sigstore-bundle missing", policy("--policy", keylessPolicyPath, "--trusted-root", trPath, "--sigstore-bundle", missing), exitInput, failed, "Sigstore bundle " + missing + ": "},
		{"verify-blob: without --trusted-root", blob("--bundle", empty), exitInput, usage, "--bundle, --trusted-root and --certificate-oidc-issuer are required"},
		{"verify-blob: --bundle missing", blob("--bundle", missing, "--trusted-root", trPath), exitInput, failed, "--bundle: "},
		{"verify-blob: --trusted-root missing", blob("--bundle", empty, "--trusted-root", missing), exitInput, failed, "--trusted-root: "},
		{"verify-blob: --bundle not a Sigstore bundle", blob("--bundle", empty, "--trusted-root", trPath), exitInput, failed, c.bundlePath + ": MCPRES_KEYLESS_MATERIAL_INVALID: not a Sigstore bundle"},
		// An empty value is refused where flags are parsed (the command's
		// body never sees --evaluated-at "").
		{"verify-rekor-entry: --evaluated-at empty", []string{"verify-rekor-entry", empty, "--bundle", c.bundlePath, "--policy", c.policyPath, "--evaluated-at", ""}, exitInput, usage, `invalid argument "" for "--evaluated-at" flag: an empty value is refused`},
		{"rekor upload: without --rekor-url", []string{"rekor", "upload", "--key", "k", c.bundlePath, "-o", out}, exitInput, usage, "--rekor-url is required"},
		{"rekor upload: without -o", []string{"rekor", "upload", "--rekor-url", "http://127.0.0.1:9", "--key", "k", c.bundlePath}, exitInput, usage, "-o/--output is required"},
		{"rekor upload: --entry is -o", []string{"rekor", "upload", "--rekor-url", "http://127.0.0.1:9", "--key", "k", c.bundlePath, "-o", out, "--entry", out}, exitInput, usage, "-o and --entry name the same file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Fatalf("%q: exit %d (want %d)\nstdout %s\nstderr %s\nwant stderr to contain %q", tc.args, code, tc.code, stdout, stderr, tc.want)
			}
			if got := strings.Contains(stderr, "--help' for usage."); got != tc.usage {
				t.Errorf("stderr %q: the pointer to --help is there: %v, want %v (a usage error)", stderr, got, tc.usage)
			}
			if _, _, err := canonjson.ReadFile(out); err == nil {
				t.Errorf("%s was written", out)
			}
		})
	}
}
