package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/attest/sigstore"
	"github.com/mcpres/mcpres/oci"
	"github.com/mcpres/mcpres/oci/ocitest"
	"github.com/mcpres/mcpres/oci/pulled"
)

// TestOCISigstoreCLI: a keyless signature's Sigstore bundles beside the
// attested bundle travel with it: attach finds and checks them and says
// so (one of another attested bundle stops it, nothing pushed), discover
// counts them, pull writes them beside the bundle under the names attest
// verify reads and lists them in the index, and a pulled folder whose
// Sigstore bundle was changed, or gained one, is refused.
func TestOCISigstoreCLI(t *testing.T) {
	r := ocitest.ReferrersRegistry(t)
	c := newCLI(t)
	pushed := r.PushImage(t, "mcp/keyless", "1.0", "cli")
	attested := ocitest.CoSigned(t, ocitest.AttestedBundle(t, pushed.Digest))
	sb1, sb2 := ocitest.SigstoreBundle(t, attested, 0), ocitest.SigstoreBundle(t, attested, 1)
	file := c.write("k.attested.json", attested)
	c.write(sigstore.MaterialName(file, 1), sb1)
	c.write(sigstore.MaterialName(file, 2), sb2)
	policy := c.write("policy.json", ocitest.Policy(t))
	at := "--evaluated-at=" + attesttest.EvaluatedAt

	// Refused before any push: a Sigstore bundle of another attested
	// bundle beside FILE (exit 1), one that is not JSON (exit 2), and the
	// usage errors.
	wrong := c.write("w.attested.json", attested)
	c.write(sigstore.MaterialName(wrong, 1), ocitest.SigstoreBundle(t, ocitest.AttestedBundle(t, oci.Digest([]byte("another image"))), 0))
	_, errs := c.must(1, "attach", pushed.Ref, wrong)
	if !strings.Contains(errs, "w.attested.json.sigstore.json: not attached with w.attested.json: the Sigstore bundle is not one of this attested bundle's envelopes") ||
		!strings.Contains(errs, "nothing was attached") {
		t.Errorf("a Sigstore bundle of another attested bundle:\n%s", errs)
	}
	c.write("junk.json", []byte("not json"))
	if out, _ := c.must(2, "attach", pushed.Ref, file, "--sigstore-bundle", "junk.json"); !strings.Contains(out, "junk.json") {
		t.Errorf("a Sigstore bundle that is not JSON:\n%s", out)
	}
	c.must(2, "attach", pushed.Ref, file, wrong, "--sigstore-bundle", sigstore.MaterialName(file, 1))
	c.must(2, "attach", pushed.Ref, file, "--sigstore-bundle", sigstore.MaterialName(file, 1), "--no-sigstore-bundle")
	if out, _ := c.must(0, "discover", pushed.Ref); !strings.Contains(out, ": 0 MCP-RES referrers") {
		t.Fatalf("something was pushed:\n%s", out)
	}

	out, _ := c.must(0, "attach", pushed.Ref, file)
	if !strings.Contains(out, "k.attested.json attached with k.attested.json.sigstore.json, k.attested.json.sigstore.2.json to") {
		t.Errorf("attach:\n%s", out)
	}
	if out, _ = c.must(0, "attach", pushed.Ref, file); !strings.Contains(out, "k.attested.json already attached with") {
		t.Errorf("attach again:\n%s", out)
	}
	// Without them: another artifact, of one layer.
	if out, _ = c.must(0, "attach", "--no-sigstore-bundle", pushed.Ref, file); !strings.Contains(out, "k.attested.json attached to") {
		t.Errorf("attach --no-sigstore-bundle:\n%s", out)
	}
	// Named: the first alone, from elsewhere.
	elsewhere := c.write("first.sigstore", sb1)
	if out, _ = c.must(0, "attach", pushed.Ref, file, "--sigstore-bundle", elsewhere); !strings.Contains(out, "k.attested.json attached with first.sigstore to") {
		t.Errorf("attach --sigstore-bundle:\n%s", out)
	}

	out, _ = c.must(0, "discover", pushed.Ref)
	if !strings.Contains(out, ": 3 MCP-RES referrers") || strings.Count(out, "  2 Sigstore bundles  ") != 1 || strings.Count(out, "  1 Sigstore bundle  ") != 1 ||
		strings.Count(out, "  0 Sigstore bundles  ") != 1 {
		t.Errorf("discover:\n%s", out)
	}
	out, _ = c.must(0, "discover", "--format", "json", pushed.Ref)
	counts := map[int]int{}
	for _, ref := range jsonLines(t, out)[0].Get("referrers").Items {
		counts[len(ref.Get("sigstore").Items)]++
	}
	if counts[0] != 1 || counts[1] != 1 || counts[2] != 1 {
		t.Errorf("discover JSON: Sigstore bundles per referrer %v\n%s", counts, out)
	}

	_, errs = c.must(0, "pull", pushed.Ref, "-o", "evidence")
	name := strings.TrimPrefix(oci.Digest(attested), "sha256:") + ".attested.json"
	for n, want := range [][]byte{attested, sb1, sb2} {
		p := filepath.Join("evidence", name)
		if n > 0 {
			p = sigstore.MaterialName(p, n)
		}
		if got, err := os.ReadFile(p); err != nil || !bytes.Equal(got, want) {
			t.Errorf("pulled %s: %v", p, err)
		}
	}
	if !strings.Contains(errs, "Sigstore bundle of "+name) {
		t.Errorf("pull:\n%s", errs)
	}
	f, err := pulled.Read("evidence")
	if err != nil {
		t.Fatal(err)
	}
	per := map[int]int{}
	for i := range f.Entries {
		sbs, err := f.Sigstore(i)
		if err != nil {
			t.Fatal(err)
		}
		per[len(sbs)]++
	}
	if per[0] != 1 || per[1] != 1 || per[2] != 1 {
		t.Errorf("pulled entries' Sigstore bundles %v", per)
	}

	// Offline: the folder verifies; a Sigstore bundle changed, or one
	// added beside the bundle, refuses it whole (exit 2).
	c.must(0, "attest", "verify", "--policy", policy, at, "evidence")
	second := sigstore.MaterialName(filepath.Join("evidence", name), 2)
	os.WriteFile(second, sb1, 0o644)
	if out, _ = c.must(2, "attest", "verify", "--policy", policy, at, "evidence"); !strings.Contains(out, name+".sigstore.2.json has changed since the pull") {
		t.Errorf("a Sigstore bundle changed since the pull:\n%s", out)
	}
	os.WriteFile(second, sb2, 0o644)
	os.WriteFile(sigstore.MaterialName(filepath.Join("evidence", name), 3), sb1, 0o644)
	if out, _ = c.must(2, "attest", "verify", "--policy", policy, at, "evidence"); !strings.Contains(out, name+".sigstore.3.json is not in the index: added since the pull") {
		t.Errorf("a Sigstore bundle added since the pull:\n%s", out)
	}
}

// TestOCISigstoreOrasInterop: oras pull of what mcpres attached writes the
// Sigstore bundles under the names attest verify reads beside the bundle
// (the layers' titles); what oras attaches with a Sigstore layer after the
// bundle, mcpres discovers with it.
func TestOCISigstoreOrasInterop(t *testing.T) {
	ocitest.Tool(t, "oras", ocitest.OrasModule)
	r := ocitest.ReferrersRegistry(t)
	c := newCLI(t)
	pushed := r.PushImage(t, "mcp/keyless", "1.0", "oras")
	attested := ocitest.CoSigned(t, ocitest.AttestedBundle(t, pushed.Digest))
	sb1, sb2 := ocitest.SigstoreBundle(t, attested, 0), ocitest.SigstoreBundle(t, attested, 1)
	file := c.write("k.attested.json", attested)
	c.write(sigstore.MaterialName(file, 1), sb1)
	c.write(sigstore.MaterialName(file, 2), sb2)
	out, _ := c.must(0, "attach", pushed.Ref, file)
	ref := out[strings.LastIndex(out, " as ")+4 : strings.LastIndex(out, " (")]
	c.oras("pull", "--plain-http", "-o", "by-oras", ref)
	name := filepath.Join("by-oras", strings.TrimPrefix(oci.Digest(attested), "sha256:")+".attested.json")
	for n, want := range [][]byte{attested, sb1, sb2} {
		p := name
		if n > 0 {
			p = sigstore.MaterialName(name, n)
		}
		if got, err := os.ReadFile(p); err != nil || !bytes.Equal(got, want) {
			t.Errorf("oras pull: %s: %v", p, err)
		}
	}

	pushed2 := r.PushImage(t, "mcp/keyless", "2.0", "oras2")
	theirs := ocitest.CoSigned(t, ocitest.AttestedBundle(t, pushed2.Digest))
	c.write("t.attested.json", theirs)
	c.write("t.sigstore.json", ocitest.SigstoreBundle(t, theirs, 1))
	c.oras("attach", "--plain-http", "--artifact-type", oci.ArtifactType, pushed2.Ref,
		"t.attested.json:"+oci.LayerMediaType, "t.sigstore.json:"+oci.SigstoreMediaType)
	out, _ = c.must(0, "discover", "--format", "json", pushed2.Ref)
	rs := jsonLines(t, out)[0].Get("referrers").Items
	if len(rs) != 1 || rs[0].Has("error") || len(rs[0].Get("sigstore").Items) != 1 {
		t.Fatalf("mcpres discover of what oras attached:\n%s", out)
	}
	_, errs := c.must(0, "pull", pushed2.Ref, "-o", "theirs")
	if !strings.Contains(errs, "Sigstore bundle of") {
		t.Errorf("pull of what oras attached:\n%s", errs)
	}
}
