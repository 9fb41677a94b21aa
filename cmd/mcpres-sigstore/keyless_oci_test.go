package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/attest/sigstore"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/keyless"
	"github.com/mcpres/mcpres/keyless/keylesstest"
	"github.com/mcpres/mcpres/oci"
	"github.com/mcpres/mcpres/oci/ocitest"
	"github.com/mcpres/mcpres/oci/pulled"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/mcpres/mcpres/validator"
)

// Keyless signatures travel with their bundles through a registry: a
// bundle about an image, signed keylessly (real Fulcio and timestamp
// authority) and attached with its Sigstore bundle, passes attest verify
// --oci --trusted-root with its certification, bound to the image; the
// same bundle attached without it fails the gate (untrusted). A folder as
// oci pull writes it (the index naming the Sigstore bundle) passes
// offline; the control: the same folder with the Sigstore bundle changed
// is refused (exit 2).
func TestKeylessOCI(t *testing.T) {
	s := keylesstest.NewStack(t)
	reg := ocitest.ReferrersRegistry(t)
	e := &keylessEnv{t: t, s: s, dir: t.TempDir()}
	var err error
	if e.tr, err = keyless.FetchTrustedRoot(context.Background(), http.DefaultClient, s.FulcioURL, s.TSAURL); err != nil {
		t.Fatal(err)
	}
	e.rootPath, e.rootHash = e.rootFile("trusted_root.json", e.tr, e.tr)
	policy := e.policy("policy.json", trustpolicy.CertificateIdentity{Issuer: s.EmailIssuer, Identity: "release@example.org"}, e.rootHash)

	pushed := reg.PushImage(t, "mcp/keyless", "1.0", "keyless")
	b := bundletest.Example(t)
	b.Path("evidence", "subject").Set("artifactSha256", canonjson.NewString(strings.TrimPrefix(pushed.Digest, "sha256:")))
	if err := bundle.SealFrom(b, bundle.StageSubject); err != nil {
		t.Fatal(err)
	}
	write(t, e.dir, "bundle.json", pretty(t, b))
	e.sign("img.json", s.EmailToken(t, "release@example.org", nil))
	att, sb := mustRead(t, e.p("img.json")), mustRead(t, e.p("img.json.sigstore.json"))

	c, err := oci.NewClient(oci.Options{})
	if err != nil {
		t.Fatal(err)
	}
	img, err := c.Resolve(context.Background(), pushed.Ref)
	if err != nil {
		t.Fatal(err)
	}
	attach := func(withSigstore bool) {
		t.Helper()
		ob, err := oci.CheckBundle(att, time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), validator.New())
		if err != nil {
			t.Fatal(err)
		}
		if withSigstore {
			if err := ob.AddSigstore(sb); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := c.Attach(context.Background(), img, ob, oci.AttachOptions{Created: "2026-12-03T00:00:00Z"}); err != nil {
			t.Fatal(err)
		}
	}
	verifyOCI := []string{"attest", "verify", "--oci", pushed.Ref, "--policy", policy, "--trusted-root", e.rootPath}

	attach(false)
	if stdout, stderr, code := runCLI(verifyOCI...); code != 1 || !strings.Contains(stdout, "the referrer carries no Sigstore bundle") {
		t.Fatalf("--oci, attached without its Sigstore bundle: exit %d\n%s\n%s", code, stdout, stderr)
	}
	attach(true)
	if stdout, stderr, code := runCLI(verifyOCI...); code != 0 || !strings.Contains(stdout, "keyless: envelope 0 is certified for identity signer") ||
		!strings.Contains(stdout, `"authenticityClassification":"SIGNED_WITH_IDENTITY"`) {
		t.Fatalf("--oci: exit %d\n%s\n%s", code, stdout, stderr)
	}

	// A pulled folder, written as oci pull writes it.
	dir := filepath.Join(e.dir, "pulled")
	os.Mkdir(dir, 0o755)
	name := strings.TrimPrefix(oci.Digest(att), "sha256:") + ".attested.json"
	write(t, dir, name, att)
	write(t, dir, sigstore.MaterialName(name, 1), sb)
	line := fmt.Sprintf(`{"schemaVersion":%q,"image":%q,"repository":%q,"subjectDigest":%q,"referrer":"sha256:%064x","bundleDigest":%q,"size":%d,"file":%q,"annotations":{},"sigstore":[{"file":%q,"digest":%q,"size":%d}],"pulledAt":"2026-12-03T00:00:00.000Z"}`+"\n",
		pulled.SchemaVersion, pushed.Ref, img.Registry+"/"+img.Repository, pushed.Digest, 1, oci.Digest(att), len(att), name,
		sigstore.MaterialName(name, 1), oci.Digest(sb), len(sb))
	write(t, dir, pulled.IndexName, []byte(line))
	verifyDir := []string{"attest", "verify", dir, "--policy", policy, "--trusted-root", e.rootPath}
	if stdout, stderr, code := runCLI(verifyDir...); code != 0 || !strings.Contains(stdout, "keyless: envelope 0 is certified for identity signer") {
		t.Fatalf("pulled folder: exit %d\n%s\n%s", code, stdout, stderr)
	}
	write(t, dir, sigstore.MaterialName(name, 1), append(sb, ' '))
	if stdout, stderr, code := runCLI(verifyDir...); code != 2 {
		t.Fatalf("pulled folder with a changed Sigstore bundle: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
