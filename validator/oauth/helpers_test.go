package oauth_test

import (
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcpres/mcpres/internal/canonjson"
	"github.com/mcpres/mcpres/validator/oauth"
	"github.com/mcpres/mcpres/validator/schema"
)

var (
	schemasOnce sync.Once
	schemas     *schema.Set
	schemasErr  error
)

// testValidator shares one compiled schema set between tests.
func testValidator(t testing.TB) *oauth.Validator {
	t.Helper()
	schemasOnce.Do(func() { schemas, schemasErr = schema.Load() })
	if schemasErr != nil {
		t.Fatal(schemasErr)
	}
	return oauth.New(schemas)
}

func parse(t testing.TB, s string) *canonjson.Value {
	t.Helper()
	v, err := canonjson.Parse([]byte(s))
	if err != nil {
		t.Fatalf("parse %.60q: %v", s, err)
	}
	return v
}

func compact(t testing.TB, v *canonjson.Value) string {
	t.Helper()
	b, err := canonjson.Compact(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// edit returns a copy of doc with edits applied. Edits come in pairs: a
// JSON pointer and the JSON text of its new value; an empty text deletes
// the member or item, and a final "-" token appends to an array.
func edit(t testing.TB, doc *canonjson.Value, edits ...string) *canonjson.Value {
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
		val = parse(t, text)
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

// text is the SHA-256 of a label, for fixed identities in test documents.
func text(label string) string { return canonjson.TextDigest(label + "\n") }
