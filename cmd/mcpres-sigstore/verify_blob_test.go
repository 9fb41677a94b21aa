package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/keyless"
	"github.com/mcpres/mcpres/keyless/keylesstest"
)

// verify-blob: a keyless signature (a DSSE in-toto statement about the
// file, made with a real Fulcio and timestamp authority) verifies over
// its file with its identity and issuer (exit 0); over other bytes or
// with another identity it is refused (exit 1, the code named); a
// missing flag or file is exit 2.
func TestVerifyBlobCLI(t *testing.T) {
	s := keylesstest.NewStack(t)
	e := &keylessEnv{t: t, s: s, dir: t.TempDir()}
	var err error
	if e.tr, err = keyless.FetchTrustedRoot(context.Background(), http.DefaultClient, s.FulcioURL, s.TSAURL); err != nil {
		t.Fatal(err)
	}
	e.rootPath, e.rootHash = e.rootFile("trusted_root.json", e.tr, e.tr)
	sums := []byte("0123  mcpres-linux-amd64\n")
	sum := sha256.Sum256(sums)
	b := bundletest.Example(t)
	b.Path("evidence", "subject").Set("artifactSha256", canonjson.NewString(hex.EncodeToString(sum[:])))
	if err := bundle.SealFrom(b, bundle.StageSubject); err != nil {
		t.Fatal(err)
	}
	write(t, e.dir, "bundle.json", pretty(t, b))
	e.sign("sums.att.json", s.EmailToken(t, "release@example.org", nil))
	file := write(t, e.dir, "SHA256SUMS", sums)
	other := write(t, e.dir, "OTHER", []byte("4567  mcpres-linux-amd64\n"))
	args := func(f string, extra ...string) []string {
		return append([]string{"verify-blob", f, "--bundle", e.p("sums.att.json.sigstore.json"), "--trusted-root", e.rootPath,
			"--certificate-oidc-issuer", s.EmailIssuer}, extra...)
	}
	if stdout, stderr, code := runCLI(args(file, "--certificate-identity", "release@example.org")...); code != 0 || !strings.Contains(stdout, "VERIFIED") {
		t.Fatalf("honest: exit %d\n%s%s", code, stdout, stderr)
	}
	if stdout, _, code := runCLI(args(other, "--certificate-identity", "release@example.org")...); code != 1 || !strings.Contains(stdout, keyless.CodeBlobSignature) {
		t.Errorf("other bytes: exit %d %s", code, stdout)
	}
	if stdout, _, code := runCLI(args(file, "--certificate-identity", "someone@example.org")...); code != 1 || !strings.Contains(stdout, keyless.CodeBlobSignature) {
		t.Errorf("another identity: exit %d %s", code, stdout)
	}
	if _, _, code := runCLI(args(file)...); code != 2 {
		t.Errorf("no identity: exit %d", code)
	}
	if _, _, code := runCLI(args(e.p("missing"), "--certificate-identity", "release@example.org")...); code != 2 {
		t.Errorf("missing file: exit %d", code)
	}
}
