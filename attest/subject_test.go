package attest_test

import (
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
)

// A valid result carries its bundle's subject; SubjectDigestMismatch
// passes exactly that digest, and never an invalid result.
func TestSubjectDigestMismatch(t *testing.T) {
	b := bundletest.Example(t)
	want := "sha256:" + b.Path("evidence", "subject", "artifactSha256").Str
	s, err := attest.SignBundle(b, attesttest.TestOnlyKeyOne(), signOpts(attesttest.IdentityOne))
	if err != nil {
		t.Fatal(err)
	}
	r := verifyNoPolicy(t, s.Attested)
	if !r.Valid || r.Subject != (attest.Subject{Name: "ledger-notes-server", Version: "3.4.1", Digest: want}) {
		t.Fatalf("result valid %t, subject %+v", r.Valid, r.Subject)
	}
	if why := r.SubjectDigestMismatch(want); why != "" {
		t.Errorf("the bundle's own subject: %s", why)
	}
	other := "sha256:" + strings.Repeat("0", 64)
	if why := r.SubjectDigestMismatch(other); !strings.Contains(why, want) || !strings.Contains(why, other) {
		t.Errorf("another digest: %q, want both digests named", why)
	}

	// Control: an invalid bundle about the same subject never matches.
	bad := s.Attested.Clone()
	bad.Path("bundle", "evidence", "subject").Set("version", canonjson.NewString("9.9.9"))
	ri := verifyNoPolicy(t, bad)
	if ri.Valid {
		t.Fatal("a changed bundle verified")
	}
	if why := ri.SubjectDigestMismatch(want); !strings.Contains(why, "invalid") {
		t.Errorf("invalid bundle: %q, want a mismatch saying it is invalid", why)
	}
}

func TestParseSubjectDigest(t *testing.T) {
	good := "sha256:" + strings.Repeat("ab", 32)
	if d, err := attest.ParseSubjectDigest(good); err != nil || d != good {
		t.Errorf("%s: %q, %v", good, d, err)
	}
	for _, bad := range []string{"", strings.Repeat("ab", 32), "sha256:" + strings.Repeat("AB", 32), "sha512:" + strings.Repeat("ab", 32),
		"sha256:" + strings.Repeat("ab", 31), good + "0", "sha256:" + strings.Repeat("g", 64)} {
		if _, err := attest.ParseSubjectDigest(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
