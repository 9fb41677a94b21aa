package attest_test

import (
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
)

const otherArtifact = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// twoSubjects returns the verification results of two bundles about two
// artifacts, signed by one key, and their subjects.
func twoSubjects(t *testing.T) (ra, rb attest.Result, a, b attest.Subject) {
	t.Helper()
	sign := func(bundle *canonjson.Value) attest.Result {
		s, err := attest.SignBundle(bundle, attesttest.TestOnlyKeyOne(), signOpts(attesttest.IdentityOne))
		if err != nil {
			t.Fatal(err)
		}
		return verifyNoPolicy(t, s.Attested)
	}
	ra = sign(bundletest.Example(t))
	rb = sign(bundletest.ExampleAbout(t, "io.github.acme/other", "1.0.0", otherArtifact))
	if !ra.Valid || !rb.Valid {
		t.Fatalf("valid %t %t", ra.Valid, rb.Valid)
	}
	return ra, rb, ra.Subject, rb.Subject
}

// A valid result carries its bundle's subject (BundleSubject of its
// bundle).
func TestResultSubject(t *testing.T) {
	_, _, a, b := twoSubjects(t)
	want := attest.Subject{Name: "ledger-notes-server", Version: "3.4.1", Digest: "sha256:6f1f1b2c33142719e087781ea53a4ce7b9feb0377b72082168d6f1371a439d6a"}
	if a != want {
		t.Errorf("subject %+v, want %+v", a, want)
	}
	if b != (attest.Subject{Name: "io.github.acme/other", Version: "1.0.0", Digest: "sha256:" + otherArtifact}) {
		t.Errorf("subject %+v", b)
	}
	if s := attest.BundleSubject(bundletest.Example(t)); s != want {
		t.Errorf("BundleSubject %+v", s)
	}
}

// Two bundles about two subjects, signed by one key: each check passes
// only for its own bundle, and each failure names what was expected and
// what was found.
func TestSubjectRequirementTwoSubjects(t *testing.T) {
	ra, rb, a, b := twoSubjects(t)
	cases := []struct {
		name   string
		a, b   attest.SubjectRequirement // a requirement a passes and b fails, then the reverse
		check  string
		wantIn []string // in b's reason under a's requirement
	}{
		{"artifact", attest.SubjectRequirement{Artifacts: []attest.Artifact{{Source: "dist/a.tar", Digest: a.Digest}}},
			attest.SubjectRequirement{Artifacts: []attest.Artifact{{Source: "dist/b.tar", Digest: b.Digest}}},
			attest.SubjectCheckArtifact, []string{"expected dist/a.tar (" + a.Digest + ")", "found " + b.Digest}},
		{"digest", attest.SubjectRequirement{Digests: []string{a.Digest}}, attest.SubjectRequirement{Digests: []string{b.Digest}},
			attest.SubjectCheckDigest, []string{"expected " + a.Digest, "found " + b.Digest, `subject "io.github.acme/other"`}},
		{"image", attest.SubjectRequirement{Image: &attest.Artifact{Source: "reg/a:1", Digest: a.Digest}},
			attest.SubjectRequirement{Image: &attest.Artifact{Source: "reg/b:1", Digest: b.Digest}},
			attest.SubjectCheckImage, []string{"reg/a:1", "found " + b.Digest}},
		{"name", attest.SubjectRequirement{Name: a.Name}, attest.SubjectRequirement{Name: b.Name},
			attest.SubjectCheckName, []string{`expected "ledger-notes-server"`, `found "io.github.acme/other"`}},
		{"version", attest.SubjectRequirement{Version: a.Version}, attest.SubjectRequirement{Version: b.Version},
			attest.SubjectCheckVersion, []string{`expected "3.4.1"`, `found "1.0.0"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, q := range []attest.SubjectRequirement{c.a, c.b} {
				if err := q.Check(); err != nil || !q.Active() {
					t.Fatalf("requirement %+v: active %t, %v", q, q.Active(), err)
				}
			}
			for _, p := range []struct {
				q          attest.SubjectRequirement
				own, other attest.Result
			}{{c.a, ra, rb}, {c.b, rb, ra}} {
				outs := p.q.Evaluate(p.own)
				if len(outs) != 1 || !outs[0].Passed || outs[0].Check != c.check || outs[0].Reason != "" || !attest.SubjectPassed(outs) {
					t.Errorf("own bundle: %+v", outs)
				}
				outs = p.q.Evaluate(p.other)
				if len(outs) != 1 || outs[0].Passed || attest.SubjectPassed(outs) || outs[0].Found == "" ||
					!strings.HasPrefix(outs[0].Reason, attest.CodeSubjectMismatch+": "+c.check+": expected ") {
					t.Errorf("other bundle: %+v", outs)
				}
			}
			why := c.a.Evaluate(rb)[0].Reason
			for _, w := range c.wantIn {
				if !strings.Contains(why, w) {
					t.Errorf("reason %q lacks %q", why, w)
				}
			}
		})
	}
}

// Within a check any value may match; every check must pass; the checks
// come out in a fixed order.
func TestSubjectRequirementAnyAndAll(t *testing.T) {
	ra, rb, a, b := twoSubjects(t)
	either := attest.SubjectRequirement{Digests: []string{b.Digest, a.Digest}}
	if !attest.SubjectPassed(either.Evaluate(ra)) || !attest.SubjectPassed(either.Evaluate(rb)) {
		t.Error("any of two digests: one of the bundles fails")
	}
	q := attest.SubjectRequirement{Version: a.Version, Name: a.Name, Digests: []string{a.Digest},
		Artifacts: []attest.Artifact{{Source: "x", Digest: a.Digest}}, Image: &attest.Artifact{Source: "i", Digest: a.Digest}}
	outs := q.Evaluate(ra)
	var order []string
	for _, o := range outs {
		order = append(order, o.Check)
	}
	if got := strings.Join(order, ","); got != "image,artifact,digest,name,version" || !attest.SubjectPassed(outs) {
		t.Errorf("checks %s, passed %t", got, attest.SubjectPassed(outs))
	}
	// The right digest with the wrong name fails, on the name alone.
	q.Name = b.Name
	outs = q.Evaluate(ra)
	for _, o := range outs {
		if o.Passed != (o.Check != attest.SubjectCheckName) {
			t.Errorf("%s: passed %t", o.Check, o.Passed)
		}
	}
}

// An invalid result is about no subject: every check fails, and says so.
func TestSubjectRequirementInvalid(t *testing.T) {
	b := bundletest.Example(t)
	s, err := attest.SignBundle(b, attesttest.TestOnlyKeyOne(), signOpts(attesttest.IdentityOne))
	if err != nil {
		t.Fatal(err)
	}
	bad := s.Attested.Clone()
	bad.Path("bundle", "evidence", "subject").Set("version", canonjson.NewString("9.9.9"))
	r := verifyNoPolicy(t, bad)
	if r.Valid {
		t.Fatal("a changed bundle verified")
	}
	q := attest.SubjectRequirement{Digests: []string{attest.BundleSubject(b).Digest}, Version: "9.9.9"}
	for _, o := range q.Evaluate(r) {
		if o.Passed || o.Found != "" || !strings.Contains(o.Reason, "found no subject: the bundle did not verify") {
			t.Errorf("%+v", o)
		}
	}
	if outs := (attest.SubjectRequirement{}).Evaluate(r); outs != nil || (attest.SubjectRequirement{}).Active() {
		t.Errorf("the zero requirement: %+v", outs)
	}
}

// Digests in any other form than sha256: and 64 lowercase hex digits are
// refused, each with its reason; a requirement holding one fails Check
// and still matches nothing.
func TestParseSubjectDigest(t *testing.T) {
	good := "sha256:" + strings.Repeat("ab", 32)
	if d, err := attest.ParseSubjectDigest(good); err != nil || d != good {
		t.Errorf("%s: %q, %v", good, d, err)
	}
	for _, c := range []struct{ in, why string }{
		{"", "empty"},
		{strings.Repeat("ab", 32), "no algorithm prefix"},
		{"sha256:" + strings.Repeat("AB", 32), "uppercase hexadecimal digits"},
		{"sha256:" + strings.Repeat("aB", 32), "uppercase hexadecimal digits"},
		{"SHA256:" + strings.Repeat("ab", 32), "written SHA256"},
		{"sha512:" + strings.Repeat("ab", 64), "algorithm sha512 is not taken"},
		{"sha256:" + strings.Repeat("ab", 31), "62 hexadecimal digits"},
		{good + "0", "65 hexadecimal digits"},
		{"sha256:", "0 hexadecimal digits"},
		{"sha256:" + strings.Repeat("g", 64), `"g" is not a hexadecimal digit`},
		{"sha256: " + strings.Repeat("ab", 32), `" " is not a hexadecimal digit`},
	} {
		_, err := attest.ParseSubjectDigest(c.in)
		if err == nil || !strings.Contains(err.Error(), c.why) || !strings.Contains(err.Error(), "want sha256: and 64 lowercase hexadecimal digits") {
			t.Errorf("%q: %v, want %q", c.in, err, c.why)
			continue
		}
		q := attest.SubjectRequirement{Digests: []string{c.in}}
		if q.Check() == nil {
			t.Errorf("%q: Check passed", c.in)
		}
		ra, _, _, _ := twoSubjects(t)
		if attest.SubjectPassed(q.Evaluate(ra)) {
			t.Errorf("%q matched a subject", c.in)
		}
	}
	if err := (attest.SubjectRequirement{Artifacts: []attest.Artifact{{Source: "f", Digest: "sha256:x"}}}).Check(); err == nil {
		t.Error("a malformed artifact digest passed Check")
	}
}
