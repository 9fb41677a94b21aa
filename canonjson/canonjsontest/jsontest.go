// Package canonjsontest holds helpers for tests that build and edit JSON
// documents: parsing with the strict reader, JSON-pointer edits, and
// corpus checks. It must only be imported by tests.
package canonjsontest

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
)

// Parse reads s with the strict reader, failing the test on error.
func Parse(t testing.TB, s string) *canonjson.Value {
	t.Helper()
	v, err := canonjson.Parse([]byte(s))
	if err != nil {
		t.Fatalf("parse %.60q: %v", s, err)
	}
	return v
}

// Compact encodes v compactly, failing the test on error.
func Compact(t testing.TB, v *canonjson.Value) string {
	t.Helper()
	b, err := canonjson.Compact(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Edit returns a copy of doc with edits applied. Edits come in pairs: a
// JSON pointer and the JSON text of its new value; an empty text deletes
// the member or item, and a final "-" token appends to an array.
func Edit(t testing.TB, doc *canonjson.Value, edits ...string) *canonjson.Value {
	t.Helper()
	if len(edits)%2 != 0 {
		t.Fatalf("edit: odd number of arguments %q", edits)
	}
	out := doc.Clone()
	for i := 0; i < len(edits); i += 2 {
		setPointer(t, out, edits[i], edits[i+1])
	}
	return out
}

func setPointer(t testing.TB, root *canonjson.Value, ptr, text string) {
	t.Helper()
	toks := strings.Split(ptr, "/")[1:]
	for i := range toks {
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(toks[i], "~1", "/"), "~0", "~")
	}
	parent := root
	for _, tok := range toks[:len(toks)-1] {
		parent = child(t, parent, tok, ptr)
	}
	last := toks[len(toks)-1]
	var val *canonjson.Value
	if text != "" {
		val = Parse(t, text)
	}
	switch parent.Kind {
	case canonjson.Object:
		if val == nil {
			parent.Delete(last)
		} else {
			parent.Set(last, val)
		}
	case canonjson.Array:
		if last == "-" {
			parent.Items = append(parent.Items, val)
			return
		}
		i, err := strconv.Atoi(last)
		if err != nil || i >= len(parent.Items) {
			t.Fatalf("edit %s: no item %s", ptr, last)
		}
		if val == nil {
			parent.Items = append(parent.Items[:i:i], parent.Items[i+1:]...)
		} else {
			parent.Items[i] = val
		}
	default:
		t.Fatalf("edit %s: parent is a %s", ptr, parent.Kind)
	}
}

func child(t testing.TB, v *canonjson.Value, tok, ptr string) *canonjson.Value {
	t.Helper()
	switch v.Kind {
	case canonjson.Object:
		if c := v.Get(tok); c != nil {
			return c
		}
	case canonjson.Array:
		if i, err := strconv.Atoi(tok); err == nil && i < len(v.Items) {
			return v.Items[i]
		}
	}
	t.Fatalf("edit %s: no %q", ptr, tok)
	return nil
}

// Text is the SHA-256 of a label, for fixed identities in test documents.
func Text(label string) string { return canonjson.TextDigest(label + "\n") }

// SyncCorpus compares a generated corpus (relative slash paths to bytes)
// with the committed folder dir (README.md aside), failing the test for
// every stale, missing or extra file; with update it rewrites dir to hold
// exactly files instead. regenerate is the command that does that.
func SyncCorpus(t *testing.T, dir string, files map[string][]byte, update bool, regenerate string) {
	t.Helper()
	existing := map[string]bool{}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			if rel != "README.md" {
				existing[filepath.ToSlash(rel)] = true
			}
		}
		return nil
	})
	if update {
		for rel := range existing {
			if _, keep := files[rel]; !keep {
				if err := os.Remove(filepath.Join(dir, rel)); err != nil {
					t.Fatal(err)
				}
			}
		}
		for rel, data := range files {
			p := filepath.Join(dir, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	names := make([]string, 0, len(files))
	for rel := range files {
		names = append(names, rel)
	}
	slices.Sort(names)
	for _, rel := range names {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil || string(got) != string(files[rel]) {
			t.Errorf("%s is stale or missing; regenerate with %s", rel, regenerate)
		}
		delete(existing, rel)
	}
	for rel := range existing {
		t.Errorf("%s is not produced by the corpus builder; remove it or regenerate with %s", rel, regenerate)
	}
}
