package trustpolicy

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
)

func TestParseScope(t *testing.T) {
	for _, p := range []string{"ledger-notes-server", "io.github.acme/*", "io.github.acme/server-*", "*-server", "a*b*c", "io.github.*/server", "x/", "é*"} {
		s, err := ParseScope(p)
		if err != nil || s.String() != p {
			t.Errorf("%q: %v", p, err)
		}
	}
	for _, c := range []struct{ p, why string }{
		{"", "empty: leave subjects out"},
		{" ", "white space"},
		{"io.github.acme/ *", "white space"},
		{"a\tb", "white space"},
		{"a\u00a0b", "white space"},
		{"a\x01b", "control character"},
		{"a\u200bb", ""}, // a zero-width space is a format character, not white space: allowed
		{"**", `"**" is not taken`},
		{"io.github.acme/**", `"**" is not taken`},
		{"*", "no character other than"},
		{"*/*", "no character other than"},
		{"/", "no character other than"},
		{"*/", "no character other than"},
		{strings.Repeat("a", 129), "129 characters, more than 128"},
		{"a\xffb", "not valid UTF-8"},
	} {
		_, err := ParseScope(c.p)
		switch {
		case c.why == "" && err != nil:
			t.Errorf("%q: %v", c.p, err)
		case c.why != "" && (err == nil || !strings.Contains(err.Error(), c.why)):
			t.Errorf("%q: %v, want %q", c.p, err, c.why)
		}
	}
	if _, err := ParseScope(strings.Repeat("é", 128)); err != nil {
		t.Errorf("128 characters (256 bytes): %v", err)
	}
}

func TestScopeMatch(t *testing.T) {
	for _, c := range []struct {
		pattern string
		yes     []string
		no      []string
	}{
		{"io.github.acme/*", []string{"io.github.acme/server", "io.github.acme/", "io.github.acme/a.b-c"},
			[]string{"io.github.acme/team/server", "io.github.acme.evil/x", "io.github.acme", "xio.github.acme/server", "IO.github.acme/server"}},
		{"io.github.acme/server-*", []string{"io.github.acme/server-a", "io.github.acme/server-"}, []string{"io.github.acme/server", "io.github.acme/server-a/b"}},
		{"ledger-notes-server", []string{"ledger-notes-server"}, []string{"ledger-notes-server2", "ledger-notes-serve", "Ledger-notes-server", ""}},
		{"*-server", []string{"ledger-notes-server", "-server"}, []string{"a/b-server", "server"}},
		{"io.github.*/server", []string{"io.github.acme/server", "io.github./server"}, []string{"io.github.acme/other/server", "io.github.acme/server2"}},
		{"a*b*c", []string{"abc", "aXbYc", "abbbc", "acbc"}, []string{"ab", "acb", "a/b/c"}},
		{"x/", []string{"x/"}, []string{"x", "x/y"}},
	} {
		s, err := ParseScope(c.pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range c.yes {
			if !s.Match(n) {
				t.Errorf("%q does not match %q", c.pattern, n)
			}
		}
		for _, n := range c.no {
			if s.Match(n) {
				t.Errorf("%q matches %q", c.pattern, n)
			}
		}
	}
	if (Scope{}).Match("") || (Scope{}).Match("x") {
		t.Error("the zero Scope matches")
	}
}

// scopeRegexp is the reference meaning of a pattern: the literal bytes,
// and "*" as any run of bytes other than "/", anchored.
func scopeRegexp(pattern string) *regexp.Regexp {
	parts := strings.Split(pattern, "*")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	return regexp.MustCompile(`^(?s:` + strings.Join(parts, `[^/]*`) + `)$`)
}

// FuzzScopeMatch: a pattern ParseScope accepts has none of the forms it
// refuses, and Match agrees with the reference regular expression on
// every name.
func FuzzScopeMatch(f *testing.F) {
	for _, s := range [][2]string{
		{"io.github.acme/*", "io.github.acme/server"}, {"io.github.acme/*", "io.github.acme/team/server"},
		{"a*b*c", "aXbYc"}, {"*-server", "ledger-notes-server"}, {"**", "x"}, {"*/*", "a/b"}, {" ", " "},
		{"x/", "x/"}, {"a*a*a*a*a*b", strings.Repeat("a", 64)}, {"é*", "é/"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		s, err := ParseScope(pattern)
		if err != nil {
			if s.Match(name) {
				t.Fatalf("a refused pattern %q matches %q", pattern, name)
			}
			return
		}
		if pattern == "" || strings.Contains(pattern, "**") || strings.Trim(pattern, "*/") == "" || strings.ContainsAny(pattern, " \t\n\r") ||
			!utf8.ValidString(pattern) || utf8.RuneCountInString(pattern) > MaxScopeLength {
			t.Fatalf("accepted %q", pattern)
		}
		if !utf8.ValidString(name) {
			return // subject names are JSON strings; regexp reads bad bytes as U+FFFD
		}
		if got, want := s.Match(name), scopeRegexp(pattern).MatchString(name); got != want {
			t.Fatalf("%q on %q: Match %t, reference %t", pattern, name, got, want)
		}
	})
}

// subjectsPolicy is testPolicy with signer-one scoped to subjects, and
// signer-two a witness (quorum 1) scoped to witnessSubjects (nil: every
// subject).
func subjectsPolicy(subjects, witnessSubjects []string) *Document {
	d := testPolicy()
	d.Signers[0].Subjects = subjects
	d.Signers[1].Subjects = witnessSubjects
	d.Witnesses = witnessRule(1, true, "signer-two")
	return d
}

// A signer scoped to subjects vouches only for them; the result says why
// another is not trusted; a scoped witness does not count for another
// subject. Controls: the unscoped policy, and each scope on its own
// subject.
func TestScopedSigners(t *testing.T) {
	at := attesttest.EvaluatedAt
	const name = "ledger-notes-server" // the fixtures' subject
	for _, c := range []struct {
		desc              string
		signer, witness   []string
		claim             attest.Level
		diags             []string
		level             attest.Level
		notes             []string
		signerTrusted     bool
		witnessTrustedToo bool
	}{
		{"unscoped", nil, nil, attest.Witnessed, nil, attest.Witnessed, nil, true, true},
		{"scoped to the subject", []string{name}, []string{"ledger-*"}, attest.Witnessed, nil, attest.Witnessed, nil, true, true},
		{"scoped to others and the subject", []string{"io.github.acme/*", "ledger-notes-*"}, nil, attest.Witnessed, nil, attest.Witnessed, nil, true, true},
		{"signer scoped elsewhere", []string{"io.github.acme/*"}, nil, attest.SignedWithIdentity, []string{attest.CodeUntrustedSigner}, 0,
			[]string{`signer "signer-one" is not trusted for subject "ledger-notes-server" (its subjects: io.github.acme/*)`}, false, true},
		{"signer scoped elsewhere, claim SIGNED", []string{"io.github.acme/*"}, nil, attest.Signed, nil, attest.Signed,
			[]string{`signer "signer-one" is not trusted for subject "ledger-notes-server"`}, false, true},
		{"witness scoped elsewhere", nil, []string{"ledger-notes-server/*"}, attest.Witnessed, []string{attest.CodeUntrustedSigner}, 0,
			[]string{`signer "signer-two" is not trusted for subject "ledger-notes-server" (its subjects: ledger-notes-server/*)`, `signer-two: not trusted for subject "ledger-notes-server"`}, true, false},
	} {
		t.Run(c.desc, func(t *testing.T) {
			w := withClaim(t, "witnessed.json", c.claim)
			r := verify(t, w, subjectsPolicy(c.signer, c.witness), at)
			if strings.Join(r.Diagnostics, ",") != strings.Join(c.diags, ",") {
				t.Fatalf("diagnostics %v (%s), want %v; notes %q", r.Diagnostics, r.Detail, c.diags, r.Evaluation.Notes)
			}
			if r.Valid && r.Level != c.level {
				t.Errorf("level %s, want %s; notes %q", r.Level, c.level, r.Evaluation.Notes)
			}
			notes := strings.Join(r.Evaluation.Notes, "\n")
			for _, n := range c.notes {
				if !strings.Contains(notes, n) {
					t.Errorf("notes lack %q:\n%s", n, notes)
				}
			}
			if evs := r.Evaluation.Envelopes; len(evs) != 2 || evs[0].Trusted != c.signerTrusted || evs[1].Trusted != c.witnessTrustedToo {
				t.Errorf("envelopes %+v", evs)
			}
		})
	}
}

// Two bundles about two subjects signed by one key: the key scoped to one
// subject vouches for that bundle only.
func TestScopedSignerTwoSubjects(t *testing.T) {
	sign := func(b *canonjson.Value) *canonjson.Value {
		s, err := attest.SignBundle(b, attesttest.TestOnlyKeyOne(), attest.BundleSignOptions{SignOptions: attesttest.Options(attesttest.IdentityOne), Claim: ptr(attest.SignedWithIdentity)})
		if err != nil {
			t.Fatal(err)
		}
		return s.Attested
	}
	a := sign(bundletest.ExampleAbout(t, "io.github.acme/server-a", "1.0.0", strings.Repeat("a", 64)))
	b := sign(bundletest.ExampleAbout(t, "io.github.acme/other", "1.0.0", strings.Repeat("b", 64)))
	d := testPolicy()
	d.Signers[0].Name = "release-a"
	d.Signers[0].Subjects = []string{"io.github.acme/server-*"}
	if r := verify(t, a, d, attesttest.EvaluatedAt); !r.Valid || r.Level != attest.SignedWithIdentity {
		t.Errorf("its own subject: %v %s", r.Diagnostics, r.Detail)
	}
	r := verify(t, b, d, attesttest.EvaluatedAt)
	if r.Valid || r.Diagnostics[0] != attest.CodeUntrustedSigner ||
		!strings.Contains(strings.Join(r.Evaluation.Notes, "\n"), `signer "release-a" is not trusted for subject "io.github.acme/other"`) {
		t.Errorf("another subject: %v %s %q", r.Diagnostics, r.Detail, r.Evaluation.Notes)
	}
}

// Scopes that could match everything by accident, an empty list, too many
// and duplicate patterns are refused when the policy loads, each at its
// pointer.
func TestScopeLoadProblems(t *testing.T) {
	many := make([]string, MaxScopes+1)
	for i := range many {
		many[i] = fmt.Sprintf("io.github.acme/s%d", i)
	}
	for _, c := range []struct {
		subjects []string
		path     string
		want     string
	}{
		{[]string{}, "/signers/0/subjects", "at least 1"},
		{[]string{"**"}, "/signers/0/subjects/0", `"**" is not taken`},
		{[]string{"ok", "*"}, "/signers/0/subjects/1", "no character other than"},
		{[]string{" "}, "/signers/0/subjects/0", "white space"},
		{[]string{"a", "b", "a"}, "/signers/0/subjects/2", `pattern "a" is already listed as /signers/0/subjects/0`},
		{[]string{""}, "/signers/0/subjects/0", ""},
		{many, "/signers/0/subjects", "at most 32"},
		{[]string{strings.Repeat("x", 129)}, "/signers/0/subjects/0", ""},
	} {
		d := testPolicy()
		d.Signers[0].Subjects = c.subjects
		v := d.Value()
		if len(c.subjects) == 0 {
			// Value omits an empty list; write it as a document would.
			v.Get("signers").Items[0].Set("subjects", canonjson.NewArray())
		}
		p, problems := Load(v, testVal)
		found := false
		for _, pr := range problems {
			found = found || (pr.Path == c.path && strings.Contains(pr.Message, c.want))
		}
		if p != nil || !found {
			t.Errorf("subjects %q: problems %v, want one at %s with %q", c.subjects, problems, c.path, c.want)
		}
		// An edit never drops a refused list: Decode refuses it too, or
		// keeps it as it is.
		if dd, _ := Decode(v, testVal); dd != nil && len(dd.Signers[0].Subjects) != len(c.subjects) {
			t.Errorf("subjects %q decoded as %q", c.subjects, dd.Signers[0].Subjects)
		}
	}
	// Control: a valid list loads, and comes back the same.
	d := testPolicy()
	d.Signers[0].Subjects = []string{"io.github.acme/*", "ledger-notes-server"}
	p := mustLoad(t, d)
	if got := p.Document().Signers[0].Subjects; strings.Join(got, ",") != "io.github.acme/*,ledger-notes-server" {
		t.Errorf("subjects %q", got)
	}
	if dd, problems := Decode(d.Value(), testVal); problems != nil || strings.Join(dd.Signers[0].Subjects, ",") != "io.github.acme/*,ledger-notes-server" || dd.Signers[1].Subjects != nil {
		t.Errorf("decoded %v %v", dd, problems)
	}
}

// The upstream format has no scopes: export lists each scoped signer as a
// loss; an unscoped or revoked one is not (controls).
func TestScopeExportLoss(t *testing.T) {
	d := testPolicy()
	d.Signers[0].Subjects = []string{"io.github.acme/*"}
	_, losses := mustLoad(t, d).Upstream()
	want := `/signers/0 ("signer-one"): subjects [io.github.acme/*] are lost: upstream trusts every listed key for every subject`
	if !strings.Contains(strings.Join(losses, "\n"), want) {
		t.Errorf("losses %q, want %q", losses, want)
	}
	_, plain := mustLoad(t, testPolicy()).Upstream()
	for _, l := range plain {
		if strings.Contains(l, "subjects") {
			t.Errorf("unscoped policy: %q", l)
		}
	}
	d.Revoke(Revocation{Fingerprint: fp(attesttest.TestOnlyKeyOne()), Reason: "r"})
	_, revoked := mustLoad(t, d).Upstream()
	for _, l := range revoked {
		if strings.Contains(l, "subjects") {
			t.Errorf("revoked scoped signer: %q", l)
		}
	}
}

// FuzzLoadSubjects: whatever the subjects member holds, Load returns a
// policy or problems, never both; a loaded policy's scopes are exactly
// the patterns written, each accepted by ParseScope, and survive a round
// trip through the document.
func FuzzLoadSubjects(f *testing.F) {
	for _, s := range []string{`["io.github.acme/*"]`, `[]`, `["**"]`, `["a","a"]`, `[" "]`, `[1]`, `"x"`, `null`, `["ledger-*","*/*"]`, `{}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, subjects string) {
		sv, err := canonjson.Parse([]byte(subjects))
		if err != nil {
			return
		}
		v := testPolicy().Value()
		v.Get("signers").Items[0].Set("subjects", sv)
		p, problems := Load(v, testVal)
		if (p == nil) == (problems == nil) {
			t.Fatalf("policy %v and problems %v", p, problems)
		}
		if p == nil {
			return
		}
		got := p.Document().Signers[0].Subjects
		if !sv.Is(canonjson.Array) || len(got) != len(sv.Items) || len(got) == 0 || len(got) > MaxScopes {
			t.Fatalf("%s loaded as %q", subjects, got)
		}
		for i, s := range got {
			if _, err := ParseScope(s); err != nil || s != sv.Items[i].Str {
				t.Fatalf("%s: pattern %d %q: %v", subjects, i, s, err)
			}
		}
		if _, problems := Load(p.Document().Value(), testVal); problems != nil {
			t.Fatalf("%s: the round trip does not load: %v", subjects, problems)
		}
	})
}
