package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/oci"
	"github.com/mcpres/mcpres/oci/ocitest"
)

const helpPointer = "--help' for usage."

// resolve prints the manifest digest of an image; an image the registry
// does not have is an error (exit 2, not a usage error) and prints
// nothing on stdout.
func TestOCIResolveCLI(t *testing.T) {
	r := ocitest.ReferrersRegistry(t)
	c := newCLI(t)
	pushed := r.PushImage(t, "mcp/server", "1.0", "resolve")
	out, errs := c.must(0, "resolve", pushed.Ref)
	if out != pushed.Digest+"\n" || errs != "" {
		t.Errorf("resolve: stdout %q stderr %q", out, errs)
	}
	out, errs = c.must(2, "resolve", r.Host+"/mcp/server:9.9")
	if out != "" || !strings.HasPrefix(errs, "mcpres-oci: error: ") || !strings.Contains(errs, "9.9") || strings.Contains(errs, helpPointer) {
		t.Errorf("missing tag: stdout %q stderr %q", out, errs)
	}
}

// attach refuses an --evaluated-at that is not an RFC 3339 date-time as
// a usage error, before reading anything; a valid one is taken (control).
func TestOCIAttachEvaluatedAt(t *testing.T) {
	r := ocitest.ReferrersRegistry(t)
	c := newCLI(t)
	pushed := r.PushImage(t, "mcp/server", "1.0", "evaluated-at")
	about := c.write("about.attested.json", ocitest.AttestedBundle(t, pushed.Digest))
	out, errs := c.must(2, "attach", "--evaluated-at", "2026-02-30T00:00:00Z", pushed.Ref, about)
	if out != "" || !strings.HasPrefix(errs, `mcpres-oci: error: --evaluated-at "2026-02-30T00:00:00Z" is not an RFC 3339 date-time (leap seconds are rejected)`) || !strings.Contains(errs, helpPointer) {
		t.Errorf("bad --evaluated-at: stdout %q stderr %q", out, errs)
	}
	out, _ = c.must(0, "attach", "--evaluated-at", attesttest.EvaluatedAt, pushed.Ref, about)
	if !strings.Contains(out, "about.attested.json attached to") {
		t.Errorf("control: %s", out)
	}
}

// pull refuses an -o that is a file, an image the registry does not have
// (before creating the folder), and a pulled bundle whose file exists
// with other bytes (without --force; no index is written); --force
// replaces it (control).
func TestOCIPullRefusals(t *testing.T) {
	r := ocitest.ReferrersRegistry(t)
	c := newCLI(t)
	pushed := r.PushImage(t, "mcp/server", "1.0", "pull")
	data := ocitest.AttestedBundle(t, pushed.Digest)
	about := c.write("about.attested.json", data)
	c.must(0, "attach", pushed.Ref, about)

	file := c.write("a-file", []byte("x"))
	out, errs := c.must(2, "pull", pushed.Ref, "-o", file)
	if out != "" || !strings.HasPrefix(errs, "mcpres-oci: error: a-file is ") || !strings.HasSuffix(errs, ", not a folder\n") {
		t.Errorf("-o a file: stdout %q stderr %q", out, errs)
	}

	out, errs = c.must(2, "pull", r.Host+"/mcp/server:9.9", "-o", "missing")
	if out != "" || !strings.HasPrefix(errs, "mcpres-oci: error: ") || strings.Contains(errs, helpPointer) {
		t.Errorf("missing tag: stdout %q stderr %q", out, errs)
	}
	if _, err := os.Lstat("missing"); err == nil {
		t.Error("a refused pull created its folder")
	}

	if err := os.Mkdir("evidence", 0o755); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join("evidence", strings.TrimPrefix(oci.Digest(data), "sha256:")+".attested.json")
	if err := os.WriteFile(name, []byte("not the bundle"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs = c.must(2, "pull", pushed.Ref, "-o", "evidence")
	if !strings.Contains(errs, "mcpres-oci: error: refusing to overwrite "+name+" (use --force to replace it)") {
		t.Errorf("existing bundle file: %s", errs)
	}
	if _, err := os.Lstat(filepath.Join("evidence", oci.PullIndexName)); err == nil {
		t.Error("a refused pull wrote its index")
	}
	c.must(0, "pull", "--force", "-q", pushed.Ref, "-o", "evidence")
	if got, _ := os.ReadFile(name); !bytes.Equal(got, data) {
		t.Errorf("--force: %s holds %q", name, got)
	}
}

// resolve, attach and pull refuse a --timeout that is not positive as a
// usage error, before any request (nothing listens at the registry
// named); the control is TestOCIResolveCLI's resolve with the default.
func TestOCITimeoutMustBePositive(t *testing.T) {
	c := newCLI(t)
	about := c.write("about.attested.json", ocitest.AttestedBundle(t, oci.Digest([]byte("image"))))
	for _, args := range [][]string{
		{"resolve", "--timeout", "0s", "127.0.0.1:1/mcp/server:1.0"},
		{"attach", "--timeout", "-1s", "127.0.0.1:1/mcp/server:1.0", about},
		{"pull", "--timeout", "0s", "127.0.0.1:1/mcp/server:1.0", "-o", "evidence"},
	} {
		out, errs := c.must(2, args...)
		if out != "" || !strings.HasPrefix(errs, "mcpres-oci: error: --timeout must be positive\n") || !strings.Contains(errs, helpPointer) {
			t.Errorf("%q: stdout %q stderr %q", args, out, errs)
		}
	}
}
