package keyless_test

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/keyless"
	"github.com/mcpres/mcpres/keyless/keylesstest"
)

// cosign verifies the keyless signature mcpres made (the same Sigstore
// bundle sigstore-go verifies in TestSignFulcio) offline, with the trusted
// root, identity and issuer, using the RFC 3161 timestamp and no
// transparency log; another identity is refused (control). cosign cannot
// make such a bundle (it signs DSSE as Ed25519ph), so the interop is
// "mcpres signs, cosign verifies".
func TestCosignVerifiesKeyless(t *testing.T) {
	cosign := cosignBinary(t)
	s := keylesstest.NewStack(t)
	dir := t.TempDir()
	tr, err := keyless.FetchTrustedRoot(context.Background(), http.DefaultClient, s.FulcioURL, s.TSAURL)
	if err != nil {
		t.Fatal(err)
	}
	trJSON, _ := tr.MarshalJSON()
	trPath := filepath.Join(dir, "trusted_root.json")
	os.WriteFile(trPath, trJSON, 0o644)
	o := signOpts(parse(t, s.GitHubToken(t, nil)), s)
	o.TrustedRoot = tr
	res, err := keyless.Sign(context.Background(), bundletest.Example(t), o)
	if err != nil {
		t.Fatal(err)
	}
	sbPath := filepath.Join(dir, "bundle.sigstore.json")
	os.WriteFile(sbPath, res.SigstoreBundle, 0o644)
	blob := filepath.Join(dir, "blob")
	os.WriteFile(blob, nil, 0o644)
	run := func(identity string) (string, error) {
		cmd := exec.Command(cosign, "verify-blob-attestation", "--bundle", sbPath, "--trusted-root", trPath,
			"--certificate-identity", identity, "--certificate-oidc-issuer", s.GitHubIssuer,
			"--use-signed-timestamps", "--insecure-ignore-tlog", "--insecure-ignore-sct",
			"--type", attest.PredicateType, "--check-claims=false", blob)
		cmd.Env = append(os.Environ(), "TUF_ROOT="+filepath.Join(dir, "tuf"), "SIGSTORE_NO_CACHE=true")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run(keylesstest.GitHubIdentity)
	if err != nil || !strings.Contains(out, "Verified OK") {
		t.Fatalf("cosign: %v\n%s", err, out)
	}
	if out, err = run("https://github.com/attacker/repo/.github/workflows/release.yml@refs/tags/v1.4.0"); err == nil || !strings.Contains(strings.ToLower(out), "identit") {
		t.Fatalf("cosign accepted another identity: %v\n%s", err, out)
	}
}

// cosignBinary finds cosign or skips the test.
func cosignBinary(t *testing.T) string {
	if p, err := exec.LookPath("cosign"); err == nil {
		return p
	}
	home, _ := os.UserHomeDir()
	for _, d := range []string{os.Getenv("GOBIN"), filepath.Join(os.Getenv("GOPATH"), "bin"), filepath.Join(home, "go", "bin")} {
		if p := filepath.Join(d, "cosign"); d != "" {
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return p
			}
		}
	}
	t.Skip("cosign is not on PATH nor in $GOBIN or $GOPATH/bin: `go install github.com/sigstore/cosign/v2/cmd/cosign@v2.6.1` provides it (.ci/run installs it)")
	return ""
}
