package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/upstreamtest"
)

// canonicalizeOutput runs `mcpres canonicalize path`, requires exit 0, an
// empty stderr and one result object on stdout, and returns the decoded
// canonical bytes and the printed digest, checked against each other.
func canonicalizeOutput(t *testing.T, path string) ([]byte, string) {
	t.Helper()
	stdout, stderr, code := runCLI(t, "canonicalize", path)
	if code != exitValid || stderr != "" {
		t.Fatalf("canonicalize %s: exit %d, stderr %q", path, code, stderr)
	}
	if !strings.HasSuffix(stdout, "}\n") || strings.Count(stdout, "\n") != 1 {
		t.Fatalf("stdout is not one line: %q", stdout)
	}
	res, err := canonjson.Parse([]byte(stdout))
	if err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout)
	}
	if len(res.Members) != 2 || res.Members[0].Key != "canonicalBase64" || res.Members[1].Key != "sha256" {
		t.Fatalf("members %s, want canonicalBase64 then sha256", stdout)
	}
	b, err := base64.StdEncoding.Strict().DecodeString(res.Get("canonicalBase64").Str)
	if err != nil {
		t.Fatalf("canonicalBase64: %v", err)
	}
	sum := sha256.Sum256(b)
	if got := res.Get("sha256").Str; got != hex.EncodeToString(sum[:]) {
		t.Fatalf("sha256 %s is not the SHA-256 of the printed bytes (%x)", got, sum)
	}
	return b, res.Get("sha256").Str
}

// TestCLICanonicalize pins the canonical bytes of mcp-res-json-utf16-v1
// (REFERENCE §1.2): members sorted by UTF-16 code units, so U+1F600 (a
// surrogate pair, D83D…) sorts before U+FF61 although its code point is
// larger; no insignificant whitespace; non-ASCII characters as UTF-8, not
// escaped. Formatting and member order of the input do not change the
// output (the control: one changed value does).
func TestCLICanonicalize(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const want = `{"a":[true,null,"xé"],"b":1,"😀":1,"｡":0}`
	b, sum := canonicalizeOutput(t, write("in.json", `{"b":1,"a":[true,null,"x\u00e9"],"｡":0,"😀":1}`))
	if string(b) != want {
		t.Errorf("canonical bytes %s, want %s", b, want)
	}
	b2, sum2 := canonicalizeOutput(t, write("reordered.json", "{\n  \"😀\": 1,\n  \"｡\": 0,\n  \"a\": [ true, null, \"xé\" ],\n  \"b\": 1\n}\n"))
	if string(b2) != want || sum2 != sum {
		t.Errorf("reformatted input: %s %s, want %s %s", b2, sum2, want, sum)
	}
	// Canonicalizing the canonical bytes is the identity.
	if b3, sum3 := canonicalizeOutput(t, write("canonical.json", want)); string(b3) != want || sum3 != sum {
		t.Errorf("canonical input: %s %s", b3, sum3)
	}
	// Control: a different value gives different bytes and digest.
	if b4, sum4 := canonicalizeOutput(t, write("changed.json", `{"b":2,"a":[true,null,"xé"],"｡":0,"😀":1}`)); string(b4) == want || sum4 == sum {
		t.Errorf("a changed value kept the bytes %s / digest %s", b4, sum4)
	}
}

// TestCLICanonicalizeEvidenceDigest: the digest canonicalize prints for a
// bundle's evidence is the statement's evidenceSha256 — in mcpres's sealed
// example and, with ../shared present, in every valid upstream v0.2.0
// vector (digests computed by the upstream generator).
func TestCLICanonicalizeEvidenceDigest(t *testing.T) {
	files := []string{filepath.Join("..", "..", "testdata", "bundles", "example.json")}
	upstream := upstreamtest.Path(t, "../..", "v0.2.0/valid")
	if up, err := filepath.Glob(filepath.Join(upstream, "*.json")); err == nil && len(up) > 0 {
		files = append(files, up...)
	} else {
		t.Logf("upstream vectors not available (%s is absent); checking the mcpres example only", upstream)
	}
	dir := t.TempDir()
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			_, doc, err := canonjson.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ev, err := canonjson.Pretty(doc.Get("evidence"))
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, filepath.Base(f))
			if err := os.WriteFile(p, ev, 0o644); err != nil {
				t.Fatal(err)
			}
			_, sum := canonicalizeOutput(t, p)
			if want := doc.Path("statement", "evidenceSha256").Str; sum != want {
				t.Errorf("evidence digests to %s, statement.evidenceSha256 is %s", sum, want)
			}
		})
	}
}

// TestCLICanonicalizeErrors: input the strict reader refuses prints the
// MCP_RES_INPUT_INVALID object on stdout (nothing on stderr) and exits 2;
// a wrong number of arguments is a usage error (exit 2, usage on stderr,
// nothing on stdout).
func TestCLICanonicalizeErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, content []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, path, reason string
	}{
		{"missing file", filepath.Join(dir, "absent.json"), "cannot read " + filepath.Join(dir, "absent.json") + ": no such file"},
		{"directory", dir, "not a regular file"},
		{"duplicate key", write("dup.json", []byte(`{"a":1,"a":2}`)), `duplicate key \"a\"`},
		{"float", write("float.json", []byte(`{"a":1.5}`)), "fraction or exponent"},
		{"unsafe integer", write("big.json", []byte(`{"a":9007199254740992}`)), "integer outside ±9007199254740991"},
		{"invalid UTF-8", write("utf8.json", []byte("{\"a\":\"\xff\"}")), "UTF-8"},
		{"lone surrogate", write("surrogate.json", []byte(`{"a":"\ud800"}`)), "surrogate"},
		{"not JSON", write("text.json", []byte(`hello`)), "unexpected character 'h'"},
		{"empty", write("empty.json", nil), "unexpected end of input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, "canonicalize", tc.path)
			if code != exitInput || stderr != "" {
				t.Errorf("exit %d, stderr %q; want %d and nothing", code, stderr, exitInput)
			}
			if !strings.HasPrefix(stdout, `{"valid":false,"diagnostics":["MCP_RES_INPUT_INVALID"],"message":"MCP_RES_INPUT_INVALID: `) || !strings.Contains(stdout, tc.reason) {
				t.Errorf("stdout %q, want the input-invalid object naming %q", stdout, tc.reason)
			}
		})
	}
	for _, args := range [][]string{{"canonicalize"}, {"canonicalize", "a.json", "b.json"}} {
		stdout, stderr, code := runCLI(t, args...)
		if code != exitInput || stdout != "" || !strings.Contains(stderr, "accepts 1 arg(s)") || !strings.Contains(stderr, usagePointer) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want a usage error", args, code, stdout, stderr)
		}
	}
}
