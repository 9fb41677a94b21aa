package bundle_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/example"
)

const (
	exampleDigest = "6f1f1b2c33142719e087781ea53a4ce7b9feb0377b72082168d6f1371a439d6a" // the example draft's
	otherDigest   = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
)

func exampleDraft(t testing.TB) *canonjson.Value {
	t.Helper()
	v, err := canonjson.Parse(example.Draft())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// blankSubject is the example draft as a harness writes it before it
// knows what ships: name, version and artifactSha256 empty.
func blankSubject(t testing.TB) *canonjson.Value {
	d := exampleDraft(t)
	s := d.Path("evidence", "subject")
	for _, k := range []string{"name", "version", "artifactSha256"} {
		s.Set(k, canonjson.NewString(""))
	}
	return d
}

func TestSetSubject(t *testing.T) {
	t.Run("fills an empty subject, then seals", func(t *testing.T) {
		d := blankSubject(t)
		u := bundle.SubjectUpdate{ArtifactSha256: otherDigest, Name: "io.github.example/mcp-server", Version: "1.2.3"}
		changes, err := bundle.SetSubject(d, u, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(changes) != 3 || changes[0] != (bundle.SubjectChange{Member: "artifactSha256", New: otherDigest}) {
			t.Errorf("changes %+v", changes)
		}
		s := d.Path("evidence", "subject")
		if s.Get("artifactSha256").Str != otherDigest || s.Get("name").Str != u.Name || s.Get("version").Str != u.Version {
			t.Errorf("subject %+v", s)
		}
		// Member order is kept (the members existed).
		if s.Members[0].Key != "subjectType" || s.Members[3].Key != "artifactSha256" {
			t.Errorf("member order changed: %v", s.Members)
		}
		if err := bundle.Seal(d); err != nil {
			t.Fatal(err)
		}
		b, err := bundle.Decode(d)
		if err != nil {
			t.Fatal(err)
		}
		if b.Evidence.Subject.ArtifactSha256 != otherDigest || b.Statement.SubjectVersion != "1.2.3" {
			t.Errorf("sealed subject %+v, statement version %q", b.Evidence.Subject, b.Statement.SubjectVersion)
		}
	})
	t.Run("the same subject again is no change", func(t *testing.T) {
		d := exampleDraft(t)
		before, _ := canonjson.Compact(d)
		changes, err := bundle.SetSubject(d, bundle.SubjectUpdate{ArtifactSha256: exampleDigest, Name: "ledger-notes-server"}, false)
		if err != nil || len(changes) != 0 {
			t.Errorf("changes %+v, err %v", changes, err)
		}
		if after, _ := canonjson.Compact(d); !bytes.Equal(before, after) {
			t.Error("the draft changed")
		}
	})
	t.Run("a different subject is refused, the draft unchanged", func(t *testing.T) {
		d := exampleDraft(t)
		before, _ := canonjson.Compact(d)
		// The name is the same (no conflict); the digest and version differ.
		_, err := bundle.SetSubject(d, bundle.SubjectUpdate{ArtifactSha256: otherDigest, Name: "ledger-notes-server", Version: "9.9.9"}, false)
		var ce *bundle.SubjectConflictError
		if !errors.As(err, &ce) || len(ce.Conflicts) != 2 || ce.Conflicts[0].Old != exampleDigest || ce.Conflicts[1].Member != "version" {
			t.Fatalf("err %v", err)
		}
		if !strings.Contains(err.Error(), `artifactSha256 is "`+exampleDigest+`", not "`+otherDigest+`"`) {
			t.Errorf("message %q", err)
		}
		if after, _ := canonjson.Compact(d); !bytes.Equal(before, after) {
			t.Error("the draft changed on a refusal")
		}
	})
	t.Run("replace says what it replaced", func(t *testing.T) {
		d := exampleDraft(t)
		changes, err := bundle.SetSubject(d, bundle.SubjectUpdate{ArtifactSha256: otherDigest}, true)
		if err != nil || len(changes) != 1 || changes[0].Old != exampleDigest || changes[0].New != otherDigest {
			t.Fatalf("changes %+v, err %v", changes, err)
		}
		if d.Path("evidence", "subject", "artifactSha256").Str != otherDigest {
			t.Error("not replaced")
		}
	})
	t.Run("a member of another type is a conflict", func(t *testing.T) {
		d := blankSubject(t)
		d.Path("evidence", "subject").Set("version", canonjson.NewInt(3))
		_, err := bundle.SetSubject(d, bundle.SubjectUpdate{Version: "3"}, false)
		var ce *bundle.SubjectConflictError
		if !errors.As(err, &ce) || ce.Conflicts[0].Old != "3" {
			t.Errorf("err %v", err)
		}
	})
	t.Run("an absent member is appended", func(t *testing.T) {
		d := blankSubject(t)
		d.Path("evidence", "subject").Delete("version")
		if _, err := bundle.SetSubject(d, bundle.SubjectUpdate{Version: "2.0.0"}, false); err != nil {
			t.Fatal(err)
		}
		if d.Path("evidence", "subject", "version").Str != "2.0.0" {
			t.Error("not appended")
		}
	})
	for _, c := range []struct {
		name  string
		draft string
		u     bundle.SubjectUpdate
		want  string
	}{
		{"uppercase digest", `{"evidence":{"subject":{}}}`, bundle.SubjectUpdate{ArtifactSha256: strings.ToUpper(otherDigest)}, "not 64 lowercase hex"},
		{"prefixed digest", `{"evidence":{"subject":{}}}`, bundle.SubjectUpdate{ArtifactSha256: "sha256:" + otherDigest}, "not 64 lowercase hex"},
		{"nothing to set", `{"evidence":{"subject":{}}}`, bundle.SubjectUpdate{}, "nothing to set"},
		{"no evidence", `{"statement":{}}`, bundle.SubjectUpdate{Name: "x"}, "/evidence: missing"},
		{"subject not an object", `{"evidence":{"subject":"x"}}`, bundle.SubjectUpdate{Name: "x"}, "/evidence/subject: missing or not an object"},
		{"not an object", `[]`, bundle.SubjectUpdate{Name: "x"}, "not a JSON object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := canonjson.Parse([]byte(c.draft))
			if err != nil {
				t.Fatal(err)
			}
			_, err = bundle.SetSubject(d, c.u, true)
			var se *bundle.SubjectError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %v, want a SubjectError with %q", err, c.want)
			}
		})
	}
}

// FuzzSetSubject: on any document, SetSubject either changes exactly the
// members it reports or returns an error and changes nothing.
func FuzzSetSubject(f *testing.F) {
	f.Add(example.Draft(), otherDigest, "n", "v", false)
	f.Add([]byte(`{"evidence":{"subject":{"artifactSha256":"`+exampleDigest+`"}}}`), otherDigest, "", "", false)
	f.Add([]byte(`{"evidence":{"subject":{"name":1}}}`), "", "n", "", true)
	f.Add([]byte(`{"evidence":[]}`), "", "n", "", true)
	f.Fuzz(func(t *testing.T, data []byte, digest, name, version string, replace bool) {
		d, err := canonjson.Parse(data)
		if err != nil {
			return
		}
		before, err := canonjson.Compact(d)
		if err != nil {
			return
		}
		u := bundle.SubjectUpdate{ArtifactSha256: digest, Name: name, Version: version}
		changes, err := bundle.SetSubject(d, u, replace)
		after, _ := canonjson.Compact(d)
		if err != nil {
			if !bytes.Equal(before, after) {
				t.Fatalf("error %v, and the document changed", err)
			}
			return
		}
		s := d.Path("evidence", "subject")
		for _, c := range changes {
			if s.Get(c.Member).Str != c.New {
				t.Fatalf("change %+v not made", c)
			}
		}
		if len(changes) == 0 && !bytes.Equal(before, after) {
			t.Fatal("no change reported, and the document changed")
		}
		for _, m := range []struct{ key, val string }{{"artifactSha256", digest}, {"name", name}, {"version", version}} {
			if m.val != "" && s.Get(m.key).Str != m.val {
				t.Fatalf("%s is %v after a successful SetSubject(%q)", m.key, s.Get(m.key), m.val)
			}
		}
	})
}
