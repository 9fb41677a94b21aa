package main

import (
	"bytes"
	"context"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/keyless"
	"github.com/mcpres/mcpres/keyless/keylesstest"
	sgbundle "github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
)

// noSecret fails when secret appears in the outputs or in any file under
// dir other than the ones allowed (the token file itself).
func noSecret(t *testing.T, secret, dir string, outputs []string, allowed ...string) {
	t.Helper()
	sig := secret[strings.LastIndex(secret, ".")+1:]
	for _, o := range outputs {
		if strings.Contains(o, sig) {
			t.Fatalf("the token is in the output:\n%s", o)
		}
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		for _, a := range allowed {
			if p == a {
				return nil
			}
		}
		if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(sig)) {
			t.Fatalf("the token is in %s", p)
		}
		return nil
	})
}

func TestKeylessSign(t *testing.T) {
	s := keylesstest.NewStack(t)
	dir := t.TempDir()
	tr, err := keyless.FetchTrustedRoot(context.Background(), http.DefaultClient, s.FulcioURL, s.TSAURL)
	if err != nil {
		t.Fatal(err)
	}
	trJSON, _ := tr.MarshalJSON()
	trPath := write(t, dir, "trusted_root.json", trJSON)
	otherJSON, _ := keylesstest.OtherTrustedRoot(t).MarshalJSON()
	otherPath := write(t, dir, "other_root.json", otherJSON)
	bundlePath := write(t, dir, "bundle.json", pretty(t, bundletest.Example(t)))
	token := s.EmailToken(t, "release@example.org", nil)
	tokenPath := write(t, dir, "token", []byte(token))
	base := func(out string, extra ...string) []string {
		return append([]string{"attest", "sign", bundlePath, "--keyless", "--fulcio", s.FulcioURL, "--tsa", s.TSAURL,
			"--trusted-root", trPath, "--policy-id", "acme/release", "-o", filepath.Join(dir, out)}, extra...)
	}
	exists := func(name string) bool { _, err := os.Stat(filepath.Join(dir, name)); return err == nil }

	stdout, stderr, code := runCLI(base("a.json", "--identity-token", tokenPath)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "wrote "+filepath.Join(dir, "a.json.sigstore.json")) || !strings.Contains(stderr, "release@example.org") {
		t.Fatalf("stderr: %s", stderr)
	}
	_, attested, err := canonjson.ReadFile(filepath.Join(dir, "a.json"))
	if err != nil {
		t.Fatal(err)
	}
	if id := attested.Path("authenticity", "envelopes").Items[0].Get("signatures").Items[0].Get("signerIdentity").Str; id != "release@example.org" {
		t.Fatalf("signerIdentity %q", id)
	}
	sgVerifyFile(t, filepath.Join(dir, "a.json.sigstore.json"), tr, s.EmailIssuer, "release@example.org")
	noSecret(t, token, dir, []string{stdout, stderr}, tokenPath)

	// The token from a variable, and from an Actions-shaped endpoint.
	t.Setenv("KEYLESS_ID_TOKEN", token)
	if _, stderr, code := runCLI(base("b.json", "--identity-token", "env:KEYLESS_ID_TOKEN")...); code != 0 {
		t.Fatalf("env: exit %d: %s", code, stderr)
	}
	ghToken := s.GitHubToken(t, nil)
	url, bearer := keylesstest.ActionsEndpoint(t, func(aud string) string {
		if aud != "sigstore" {
			return s.GitHubToken(t, map[string]any{"aud": aud})
		}
		return ghToken
	})
	t.Setenv(keyless.ActionsURLEnv, url)
	t.Setenv(keyless.ActionsTokenEnv, bearer)
	stdout, stderr, code = runCLI(base("c.json")...)
	if code != 0 {
		t.Fatalf("actions: exit %d: %s", code, stderr)
	}
	sgVerifyFile(t, filepath.Join(dir, "c.json.sigstore.json"), tr, s.GitHubIssuer, keylesstest.GitHubIdentity)
	noSecret(t, ghToken, dir, []string{stdout, stderr})
	if strings.Contains(stderr, bearer) {
		t.Fatal("the Actions request token is in the output")
	}

	// Refusals: exit code, nothing written, no token in the message.
	for _, tc := range []struct {
		name, out, want string
		code            int
		extra           []string
	}{
		{"identity mismatch", "d.json", "signer identity", 1, []string{"--identity-token", tokenPath, "--identity", "other@example.org"}},
		{"untrusted root", "e.json", "keyless verification material", 1, []string{"--identity-token", tokenPath, "--trusted-root", otherPath}},
		{"wrong audience", "f.json", "audience", 2, []string{"--identity-token", write(t, dir, "tok-aud", []byte(s.EmailToken(t, "release@example.org", map[string]any{"aud": "other"})))}},
		{"no --keyless", "g.json", "--keyless is required", 2, nil},
	} {
		args := base(tc.out, tc.extra...)
		if tc.name == "no --keyless" {
			args = slicesDelete(args, "--keyless")
		}
		_, stderr, code := runCLI(args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %s", tc.name, code, stderr)
		}
		if exists(tc.out) || exists(tc.out+".sigstore.json") {
			t.Errorf("%s: something was written", tc.name)
		}
		noSecret(t, token, dir, []string{stderr}, tokenPath, filepath.Join(dir, "tok-aud"))
	}
}

func slicesDelete(args []string, drop string) []string {
	var out []string
	for _, a := range args {
		if a != drop {
			out = append(out, a)
		}
	}
	return out
}

func sgVerifyFile(t *testing.T, path string, tr root.TrustedMaterial, issuer, identity string) {
	t.Helper()
	b, err := sgbundle.LoadJSONFromPath(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := verify.NewVerifier(tr, verify.WithSignedTimestamps(1))
	if err != nil {
		t.Fatal(err)
	}
	id, err := verify.NewShortCertificateIdentity(issuer, "", identity, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(b, verify.NewPolicy(verify.WithoutArtifactUnsafe(), verify.WithCertificateIdentity(id))); err != nil {
		t.Fatalf("sigstore-go: %v", err)
	}
}
